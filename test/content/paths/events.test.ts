import { memberActor, schoolCtx } from "../../helpers/school-ctx";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { app } from "../../../src/app";
import { pathCompletionPushes } from "../../../src/content/paths/completion-pushes";
import { runBatch } from "../../../src/core/db/batch";
import type { SchoolCtx } from "../../../src/core/http/context";
import * as schema from "../../../src/db/schema";
import { insertCourseTree, insertEnrollment } from "../../helpers/courses";
import { roundTripD1 } from "../../helpers/d1-counter";
import { db } from "../../helpers/factories";
import { as, assignIndividualCurator, curatorWith, schoolWithAdmin, signedIn, type Member } from "../../helpers/users";
import { addPushDevice, outboxRows } from "../../notifications/helpers";
import { insertPath, markCompleted } from "./helpers";
import { schoolD1 } from "../../helpers/databases";
import { envWith } from "../../helpers/wrapped-d1";

/**
 * The path pushes of a course completion: the next course unlocked (#56), the path completed (#57
 * to the student, #58 to the curators), and #57/#58 replacing the course's #33/#34 for the
 * completion that completes a path.
 */

const complete = (member: Member, blockId: string) => as(member, `/t/blocks/${blockId}/complete`, { method: "POST" });

async function setup() {
  const { school, admin } = await schoolWithAdmin();
  const student = await signedIn(school, { role: "student" });
  const curator = await signedIn(school, curatorWith({}));
  await assignIndividualCurator(student.id, curator.id);
  await db().update(schema.users).set({ firstName: "Dilnoza", lastName: "Karimova" }).where(eq(schema.users.id, student.id));
  for (const user of [student, curator]) await addPushDevice(school.id, user.id);
  const first = await insertCourseTree(school.id, { title: "Basics" });
  const second = await insertCourseTree(school.id, { title: "Advanced" });
  const pathId = await insertPath(school.id, { title: "Mastery", courseIds: [first.courseId, second.courseId] });
  const enrollments = [await insertEnrollment(school.id, first.courseId, student.id), await insertEnrollment(school.id, second.courseId, student.id)];
  return { school, admin, student, curator, first, second, pathId, enrollments };
}

const codes = async (tenantId: string) => (await outboxRows(tenantId)).map((row) => [row.eventCode, row.userId, row.dedupeKey]);

describe("path pushes of POST /t/blocks/:id/complete", () => {
  it("completing the last course of a path: path.student_completed to the curators instead of course.student_completed, once", async () => {
    const { school, student, curator, first, second, pathId, enrollments } = await setup();
    await complete(student, first.blockIds[0]!);
    // Not the path's last course: the course's push as usual; the student acted, so nothing to them.
    expect(await codes(school.id)).toEqual([["course.student_completed", curator.id, `course.student_completed:${enrollments[0]}:${curator.id}`]]);

    expect((await complete(student, second.blockIds[0]!)).body.data.progress.completed_at).toEqual(expect.any(String));
    await complete(student, second.blockIds[0]!);
    const rows = await outboxRows(school.id);
    expect(rows.map((row) => [row.eventCode, row.userId, row.dedupeKey])).toEqual([
      ["course.student_completed", curator.id, `course.student_completed:${enrollments[0]}:${curator.id}`],
      ["path.student_completed", curator.id, `path.student_completed:${pathId}:${student.id}:${curator.id}`],
    ]);
    expect(rows[1]).toMatchObject({ aggregateType: "path", aggregateId: pathId, body: "Dilnoza Karimova прошёл(ла) траекторию «Mastery»." });
    expect(rows[1]!.data).toMatchObject({ event_code: "path.student_completed", path_id: pathId, student_name: "Dilnoza Karimova", path_title: "Mastery" });
  });

  it("the course's push stays when the school has the path's push off, and for a draft path", async () => {
    const { school, admin, student, curator, first, second, enrollments } = await setup();
    await as(admin, "/t/notifications/admin/events/path.student_completed", { method: "PATCH", body: { enabled: false } });
    const draftPathCourse = await insertCourseTree(school.id);
    const draftEnrollment = await insertEnrollment(school.id, draftPathCourse.courseId, student.id);
    await insertPath(school.id, { status: "draft", courseIds: [draftPathCourse.courseId] });
    await complete(student, first.blockIds[0]!);
    await complete(student, second.blockIds[0]!);
    await complete(student, draftPathCourse.blockIds[0]!);
    expect((await codes(school.id)).map(([code, userId, key]) => [code, userId, key])).toEqual([
      ["course.student_completed", curator.id, `course.student_completed:${enrollments[0]}:${curator.id}`],
      ["course.student_completed", curator.id, `course.student_completed:${enrollments[1]}:${curator.id}`],
      ["course.student_completed", curator.id, `course.student_completed:${draftEnrollment}:${curator.id}`],
    ]);
  });

  it("the course-completing completion still costs three round trips", async () => {
    const { student, first } = await setup();
    const counted = roundTripD1(await schoolD1(student.tenantId));
    const res = await app.request(
      `https://api.lms.localhost/api/v1/t/blocks/${first.blockIds[0]}/complete`,
      { method: "POST", headers: { authorization: `Bearer ${student.token}`, "x-tenant-subdomain": student.subdomain } },
      envWith(counted.db),
    );
    expect(res.status).toBe(200);
    expect(counted.stats).toEqual({ batches: 2, statements: 1 });
  });
});

describe("the path pushes to the student (a completion someone else causes)", () => {
  const COMPLETION_CODES = ["path.course_unlocked", "path.completed", "path.student_completed"];

  /** The producer as the completion's batch runs it, with an admin as the actor (a grader, later). */
  async function produce(tenantId: string, actor: Member, input: { courseId: string; studentId: string; pathIds: string[] }) {
    const base = await schoolCtx(tenantId);
    const ctx: SchoolCtx = { ...base, actor: { ...memberActor(base.tenant), userId: actor.id } };
    const pushes = await pathCompletionPushes(ctx, { ...input, when: sql`1` });
    await runBatch(ctx, pushes.statements);
    return pushes;
  }

  it("path.course_unlocked for the next course, path.completed with path.student_completed for the last; each once", async () => {
    const { school, admin, student, curator, first, second, pathId, enrollments } = await setup();
    const third = await insertCourseTree(school.id, { title: "Expert" });
    await as(admin, `/t/learning-paths/${pathId}/courses`, { method: "PATCH", body: { course_ids: [first.courseId, second.courseId, third.courseId] } });
    await insertEnrollment(school.id, third.courseId, student.id);
    const input = { studentId: student.id, pathIds: [pathId] };

    await markCompleted(enrollments[0]!);
    const unlocked = await produce(school.id, admin, { ...input, courseId: first.courseId });
    expect(unlocked.supersedesStudentPush).not.toBeNull();
    await produce(school.id, admin, { ...input, courseId: first.courseId });
    const afterFirst = (await outboxRows(school.id)).filter((row) => COMPLETION_CODES.includes(row.eventCode));
    expect(afterFirst.map((row) => [row.eventCode, row.userId, row.dedupeKey])).toEqual([
      ["path.course_unlocked", student.id, `path.course_unlocked:${pathId}:${second.courseId}:${student.id}`],
    ]);
    expect(afterFirst[0]).toMatchObject({ body: "В траектории «Mastery» открыт курс «Advanced»." });

    // The last course completed out of order: the next one is already completed, so it unlocks nothing.
    await markCompleted(enrollments[1]!);
    const thirdEnrollment = (await db().select().from(schema.enrollments).where(eq(schema.enrollments.courseId, third.courseId)))[0]!;
    await markCompleted(thirdEnrollment.id);
    await produce(school.id, admin, { ...input, courseId: second.courseId });
    await produce(school.id, admin, { ...input, courseId: second.courseId });
    const rows = (await outboxRows(school.id)).filter((row) => COMPLETION_CODES.includes(row.eventCode));
    expect(rows.map((row) => [row.eventCode, row.userId, row.dedupeKey])).toEqual([
      ["path.course_unlocked", student.id, `path.course_unlocked:${pathId}:${second.courseId}:${student.id}`],
      ["path.completed", student.id, `path.completed:${pathId}:${student.id}`],
      ["path.student_completed", curator.id, `path.student_completed:${pathId}:${student.id}:${curator.id}`],
    ]);
    expect(rows[1]).toMatchObject({ title: "Траектория пройдена!", body: "Поздравляем: вы прошли траекторию «Mastery»." });
  });
});
