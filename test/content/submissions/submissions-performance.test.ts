import { describe, expect, it } from "vitest";
import { app } from "../../../src/app";
import * as schema from "../../../src/db/schema";
import { roundTripD1 } from "../../helpers/d1-counter";
import { db } from "../../helpers/factories";
import { signedIn, type Member } from "../../helpers/users";
import { storedImage } from "../../media/helpers";
import { insertSubmission } from "../assignments/helpers";
import { assignmentCourse, lessonWindow, submissionSchool } from "./helpers";
import { schoolD1 } from "../../helpers/databases";
import { envWith } from "../../helpers/wrapped-d1";

/** What the submission reads ask of D1: at most 3 round trips with the guard's, the worksheet the same for 1 student as for 30. */

async function measured(member: Member, path: string) {
  const trips = roundTripD1(await schoolD1(member.tenantId));
  const headers = { authorization: `Bearer ${member.token}`, "x-tenant-subdomain": member.subdomain };
  const response = await app.request(`https://api.lms.localhost/api/v1${path}`, { headers }, envWith(trips.db));
  const body = (await response.json()) as any;
  return { status: response.status, body, roundTrips: trips.roundTrips() };
}

/** `count` students with a submitted attempt of two files each, in a course whose lesson has a closing date. */
async function worksheetOf(count: number) {
  const { school, admin, student, assignment } = await submissionSchool();
  const students = [student];
  for (let index = 1; index < count; index++) students.push(await signedIn(school, { role: "student" }));
  const tree = await assignmentCourse(school.id, assignment.id, students.map((one) => one.id));
  await lessonWindow(school.id, tree, { endsAt: Date.now() - 1_000 });
  const ids: string[] = [];
  for (const one of students) {
    await insertSubmission(school.id, assignment.id, one.id, { attempt: 1, status: "rejected" });
    const id = await insertSubmission(school.id, assignment.id, one.id, { attempt: 2, status: "submitted" });
    for (let position = 0; position < 2; position++) {
      const mediaAssetId = await storedImage(school.id);
      await db().insert(schema.submissionAttachments).values({ tenantId: school.id, submissionId: id, studentId: one.id, mediaAssetId, position, createdAt: Date.now() });
    }
    ids.push(id);
  }
  return { admin, student, assignment, ids };
}

describe("submission reads and D1", () => {
  it("worksheet, history and detail: the same round trips for 1 student as for 30, at most 3 with the guard's", async () => {
    const small = await worksheetOf(1);
    const large = await worksheetOf(30);
    const paths = (setup: typeof small) => [
      `/t/assignments/${setup.assignment.id}/submissions?limit=200`,
      `/t/assignments/${setup.assignment.id}/submissions/history?student_id=${setup.student.id}`,
      `/t/submissions/${setup.ids[0]}`,
    ];
    for (const [index, path] of paths(large).entries()) {
      const one = await measured(small.admin, paths(small)[index]!);
      const many = await measured(large.admin, path);
      expect({ path, status: many.status }).toEqual({ path, status: 200 });
      expect({ path, roundTrips: many.roundTrips }).toEqual({ path, roundTrips: one.roundTrips });
      expect(many.roundTrips).toBeLessThanOrEqual(3);
    }
    const sheet = await measured(large.admin, `/t/assignments/${large.assignment.id}/submissions?limit=200`);
    expect(sheet.body.data.total).toBe(30);
    expect(sheet.body.data.submissions).toHaveLength(30);
    for (const row of sheet.body.data.submissions) expect([row.attempt_count, row.attachments.length, row.late]).toEqual([2, 2, true]);
    const own = await measured(large.student, `/t/assignments/${large.assignment.id}/submissions`);
    expect(own.body.data.total).toBe(1);
    expect(own.roundTrips).toBeLessThanOrEqual(3);
    expect((await measured(large.student, `/t/submissions/${large.ids[0]}`)).roundTrips).toBe(2);
  });
});
