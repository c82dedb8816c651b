import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { appWithContributors } from "../../src/app";
import { contentContributor } from "../../src/content/common/events";
import { CONTRIBUTORS } from "../../src/contributors";
import { batchable } from "../../src/core/db/batch";
import { contributorRegistry, type ContributorRegistry } from "../../src/core/events";
import { insertCourseTree, insertEnrollment } from "../helpers/courses";
import { probedCall } from "../helpers/probe";
import { assignIndividualCurator, curatorWith, schoolWithAdmin, signedIn } from "../helpers/users";
import { addPushDevice, outboxRows } from "../notifications/helpers";
import { insertPath } from "../content/paths/helpers";

/**
 * The paths area announces what a course completion does to a learning path as its own events
 * (docs/domain-events.md, "Events"): a probe contributor registered after the app's selects, in
 * the completion's batch, each `path.course_unlocked` / `path.completed` whose condition holds,
 * while the app's path pushes (now their contributors) write what they wrote before.
 */

const probe = contentContributor({
  name: "test.path-probe",
  handles: ["path.course_unlocked", "path.completed"],
  statements: async (ctx, event) => [
    batchable(
      ctx,
      sql`SELECT 'path-probe' AS probe, ${event.type} AS type, ${event.pathId} AS path_id, ${event.courseId} AS course_id, ${event.studentId} AS student_id,
        ${event.type === "path.course_unlocked" ? event.unlockedCourseId : null} AS unlocked_course_id
        WHERE ${event.when}`,
    ),
  ],
});

const probeApp = appWithContributors(contributorRegistry([...CONTRIBUTORS.contributors, probe]) as unknown as ContributorRegistry);

describe("path.course_unlocked and path.completed", () => {
  it("a course completion announces the next course unlocked, the last one the path completed; a repeat announces nothing", async () => {
    const { school } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    const curator = await signedIn(school, curatorWith({}));
    await assignIndividualCurator(student.id, curator.id);
    for (const user of [student, curator]) await addPushDevice(school.id, user.id);
    const first = await insertCourseTree(school.id);
    const second = await insertCourseTree(school.id);
    const pathId = await insertPath(school.id, { courseIds: [first.courseId, second.courseId] });
    for (const course of [first, second]) await insertEnrollment(school.id, course.courseId, student.id);
    const complete = async (blockId: string) => {
      const { res, rows } = await probedCall(probeApp, "path-probe", student, `/t/blocks/${blockId}/complete`, { method: "POST" });
      expect(res.status).toBe(200);
      return rows.map((row) => [row.type, row.path_id, row.course_id, row.student_id, row.unlocked_course_id]);
    };

    expect(await complete(first.blockIds[0]!)).toEqual([["path.course_unlocked", pathId, first.courseId, student.id, second.courseId]]);
    expect(await complete(first.blockIds[0]!)).toEqual([]);
    expect(await complete(second.blockIds[0]!)).toEqual([["path.completed", pathId, second.courseId, student.id, null]]);
    expect(await complete(second.blockIds[0]!)).toEqual([]);

    // The pushes as before: the student acted, so nothing to them (#56, #57); #58 replaces #34 for
    // the completion that completed the path.
    expect((await outboxRows(school.id)).map((row) => [row.eventCode, row.userId])).toEqual([
      ["course.student_completed", curator.id],
      ["path.student_completed", curator.id],
    ]);
  });
});
