import { describe, expect, it } from "vitest";
import { app } from "../../../src/app";
import { roundTripD1 } from "../../helpers/d1-counter";
import { addMember, as, createGroup, schoolWithAdmin, signedIn, type Member } from "../../helpers/users";
import { storedImage } from "../../media/helpers";
import { insertAssignment, insertSubmission } from "./helpers";
import { schoolD1 } from "../../helpers/databases";
import { envWith } from "../../helpers/wrapped-d1";

/** What the assignment reads ask of D1: at most 3 round trips with the guard's, whatever the number of rows. */

async function measured(member: Member, path: string) {
  const trips = roundTripD1(await schoolD1(member.tenantId));
  const headers = { authorization: `Bearer ${member.token}`, "x-tenant-subdomain": member.subdomain };
  const response = await app.request(`https://api.lms.localhost/api/v1${path}`, { headers }, envWith(trips.db));
  const body = (await response.json()) as any;
  return { status: response.status, body, roundTrips: trips.roundTrips() };
}

async function schoolWith(count: number) {
  const { school, admin } = await schoolWithAdmin();
  const student = await signedIn(school, { role: "student" });
  const group = await createGroup(school.id);
  await addMember(group, student.id);
  const ids: string[] = [];
  for (let index = 0; index < count; index++) {
    const assignment = await insertAssignment(school.id, { groups: index % 2 === 0 ? [group.id] : [] });
    await insertSubmission(school.id, assignment.id, student.id, { status: "submitted" });
    ids.push(assignment.id);
  }
  for (let index = 0; index < 5; index++) {
    expect((await as(admin, `/t/assignments/${ids[0]}/attachments`, { body: { media_asset_id: await storedImage(school.id) } })).status).toBe(201);
  }
  return { admin, student, ids };
}

describe("assignment reads and D1", () => {
  it("list, detail and progress: the same round trips for 1 assignment as for 30, at most 3 with the guard's", async () => {
    const small = await schoolWith(1);
    const large = await schoolWith(30);
    for (const who of ["admin", "student"] as const) {
      const paths = (ids: string[]) => ["/t/assignments", "/t/assignments?limit=100&q=Assignment", `/t/assignments/${ids[0]}`];
      for (const [index, path] of paths(large.ids).entries()) {
        const one = await measured(small[who], paths(small.ids)[index]!);
        const many = await measured(large[who], path);
        expect({ who, path, status: many.status }).toEqual({ who, path, status: 200 });
        expect({ who, path, roundTrips: many.roundTrips }).toEqual({ who, path, roundTrips: one.roundTrips });
        expect(many.roundTrips).toBeLessThanOrEqual(3);
      }
    }
    const progress = await measured(large.student, "/t/assignments/progress");
    expect(progress.body.data).toEqual({ completed: 30, accessible: 30, percent: "100.00" });
    expect(progress.roundTrips).toBeLessThanOrEqual(3);
    const detail = await measured(large.admin, `/t/assignments/${large.ids[0]}`);
    expect(detail.body.data.attachments).toHaveLength(5);
    expect(detail.roundTrips).toBe(2);
  });
});
