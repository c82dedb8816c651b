import { describe, expect, it } from "vitest";
import { app } from "../../../src/app";
import { roundTripD1 } from "../../helpers/d1-counter";
import type { Member } from "../../helpers/users";
import { addMember, createGroup } from "../../helpers/users";
import { eventStatement, named, ratedContent, ratingSchool } from "./leaderboard-fixtures";
import { fixtureD1, schoolD1 } from "../../helpers/databases";
import { envWith } from "../../helpers/wrapped-d1";

/** What the rating reads ask of D1: the guard's query and one batch, whatever the number of students. */

async function measured(member: Member, path: string) {
  const trips = roundTripD1(await schoolD1(member.tenantId));
  const headers = { authorization: `Bearer ${member.token}`, "x-tenant-subdomain": member.subdomain };
  const response = await app.request(`https://api.lms.localhost/api/v1${path}`, { headers }, envWith(trips.db));
  const body = (await response.json()) as any;
  return { status: response.status, body, roundTrips: trips.roundTrips() };
}

describe("rating reads and D1", () => {
  it("the board, its filter options, a summary and the events: two round trips with the guard's, for 300 students as for 3", async () => {
    const { school, admin } = await ratingSchool();
    const content = await ratedContent(school.id);
    const student = await named(school, "Sara", "Ali");
    const group = await createGroup(school.id);
    await addMember(group, student.id);
    await eventStatement(school.id, student.id, 700, { sourceType: "quiz", targetId: content.quizOne }).run();
    const paths = [
      "/t/rating?limit=10",
      `/t/rating?limit=10&group_id=${group.id}`,
      `/t/rating?limit=10&module_id=${content.module1}&from=2020-01-01T00:00:00Z`,
      `/t/rating/filter-options?module_id=${content.module1}&group_id=${group.id}`,
      `/t/admin/rating/students/${student.id}/summary`,
      `/t/admin/rating/students/${student.id}/events?sign=positive&limit=5`,
    ];
    const before = [];
    for (const path of paths) before.push(await measured(student, path));
    // 300 more students with points, most above Sara, and some events each.
    const values = Array.from({ length: 300 }, (_, index) => index);
    const now = Date.now();
    // Ids of the school's own uuid prefix, so each run's students are new.
    const many = values.map((index) => `${school.id.slice(0, 24)}${index.toString(16).padStart(12, "0")}`);
    for (let start = 0; start < values.length; start += 50) {
      await fixtureD1.batch(
        values.slice(start, start + 50).map((index) =>
          fixtureD1.prepare(
            "INSERT INTO users (id, tenant_id, email, password_hash, first_name, last_name, role, is_active, created_at, updated_at) VALUES (?, ?, ?, '!', 'Many', ?, 'student', 1, ?, ?)",
          ).bind(many[index], school.id, `many.${index}@example.test`, `N${index}`, now, now),
        ),
      );
    }
    for (let start = 0; start < many.length; start += 50) {
      await fixtureD1.batch(many.slice(start, start + 50).flatMap((id, index) => [eventStatement(school.id, id, 500 + index * 3), eventStatement(school.id, id, 300, { sourceType: "quiz", targetId: content.quizOne })]));
    }
    for (const member of [student, admin]) {
      for (const [index, path] of paths.entries()) {
        const after = await measured(member, path);
        expect({ path, status: after.status }).toEqual({ path, status: 200 });
        expect({ path, roundTrips: after.roundTrips }).toEqual({ path, roundTrips: 2 });
        if (member === student) expect({ path, roundTrips: before[index]!.roundTrips }).toEqual({ path, roundTrips: 2 });
      }
    }
    const board = await measured(student, "/t/rating?limit=10");
    expect([board.body.data.total_students, board.body.data.caller_rank, board.body.data.entries.length]).toEqual([301, 301, 10]);
  });
});
