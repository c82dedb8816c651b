import { describe, expect, it } from "vitest";
import { curatorAnalyticsSeedSql } from "../../../scripts/bench/curator-analytics.mjs";
import { app } from "../../../src/app";
import { uuidv7 } from "../../../src/core/lib/ids";
import { roundTripD1 } from "../../helpers/d1-counter";
import { createSchool } from "../../helpers/factories";
import { signedIn, type Member } from "../../helpers/users";
import { fixtureD1, schoolD1 } from "../../helpers/databases";
import { envWith } from "../../helpers/wrapped-d1";

/**
 * What GET /analytics/curators asks of D1: the same round trips (at most 3 with the guard's) for a
 * school of 1 curator and 2 students as for the 50 curators and 5,000 students, seeded by
 * the bench's own SQL (group and individual assignments, group schedules, a month of activity).
 */

async function seededSchool(curators: number, students: number) {
  const school = await createSchool();
  // The bench's statements, each id prefixed by this school's own base so schools never collide.
  const text = curatorAnalyticsSeedSql({ tenantId: school.id, idBase: uuidv7().slice(0, 18), curators, students });
  const statements = text.split(/;\n/).map((statement) => statement.trim()).filter((statement) => statement.length > 0);
  await fixtureD1.batch(statements.map((statement) => fixtureD1.prepare(statement)));
  return signedIn(school, { role: "admin" });
}

async function measured(member: Member, path: string) {
  const trips = roundTripD1(await schoolD1(member.tenantId));
  const headers = { authorization: `Bearer ${member.token}`, "x-tenant-subdomain": member.subdomain };
  const started = Date.now();
  const response = await app.request(`https://api.lms.localhost/api/v1${path}`, { headers }, envWith(trips.db));
  const body = (await response.json()) as any;
  return { status: response.status, body, roundTrips: trips.roundTrips(), ms: Date.now() - started };
}

describe("GET /analytics/curators: round trips", () => {
  it("the same for 1 curator and 2 students as for 50 curators and 5,000 students, at most 3", async () => {
    const small = await seededSchool(1, 2);
    const large = await seededSchool(50, 5000);
    for (const query of ["", "?from=2000-01-01T00:00:00Z", `?course_id=${uuidv7()}`]) {
      const one = await measured(small, `/t/analytics/curators${query}`);
      const many = await measured(large, `/t/analytics/curators${query}`);
      expect([one.status, many.status]).toEqual([200, 200]);
      expect({ query, roundTrips: many.roundTrips }).toEqual({ query, roundTrips: one.roundTrips });
      expect(many.roundTrips).toBeLessThanOrEqual(3);
      console.info(`curator analytics ${query || "(defaults)"}: ${many.roundTrips} round trips, ${many.ms} ms for 50 curators and 5,000 students`);
    }
    // Every student is in a curated group; every 50th is inactive (n % 50 = 49, never one of the every-10th exam takers).
    const all = await measured(large, "/t/analytics/curators?from=2000-01-01T00:00:00Z");
    expect(all.body.data.summary).toMatchObject({ curators: 50, students: 4900 });
    expect(all.body.data.curators).toHaveLength(50);
    expect(all.body.data.summary.exams_completed.students).toBe(500);
  });
});
