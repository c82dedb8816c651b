import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";
import { insertCourseTree, insertEnrollment } from "../../helpers/courses";
import { db } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { insertQuiz } from "../../helpers/quizzes";
import { addMember, as, createGroup, curatorWith, schoolWithAdmin, signedIn, unknownId, type Member } from "../../helpers/users";

/** POST /t/blocks/:id/complete and GET /t/courses/:id/my-completions. */

async function setup(options: Parameters<typeof insertCourseTree>[1] = {}) {
  const { school, admin } = await schoolWithAdmin();
  const student = await signedIn(school, { role: "student" });
  const tree = await insertCourseTree(school.id, options);
  return { school, admin, student, tree };
}

const complete = (member: Member, blockId: string) => as(member, `/t/blocks/${blockId}/complete`, { method: "POST" });

async function completionRows(studentId: string) {
  return db().select().from(schema.blockCompletions).where(eq(schema.blockCompletions.studentId, studentId));
}

describe("POST /t/blocks/:id/complete", () => {
  it("records a manual completion and answers it with the enrollment's progress; a repeat answers the same record", async () => {
    const { school, student, tree } = await setup({ shape: [1, 1, 3] });
    const enrollmentId = await insertEnrollment(school.id, tree.courseId, student.id);
    const res = await complete(student, tree.blockIds[1]!);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      completion: { id: expect.any(String), student_id: student.id, block_id: tree.blockIds[1], enrollment_id: enrollmentId, source: "manual", completed_at: expect.any(String) },
      progress: { blocks_completed: 1, total_blocks: 3, pct: "33.33", completed_at: null },
    });
    const again = await complete(student, tree.blockIds[1]!);
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(res.body.data);
    expect(await completionRows(student.id)).toHaveLength(1);
    expect(await completionRows(student.id)).toEqual([expect.objectContaining({ tenantId: school.id, courseId: tree.courseId, lessonId: tree.lessonIds[0], source: "manual" })]);
  });

  it("the completion record carries the stored row's id, on the first call and on a repeat, for a lesson-completing block too", async () => {
    const { school, student, tree } = await setup({ shape: [1, 1, 2] });
    await insertEnrollment(school.id, tree.courseId, student.id);
    const first = await complete(student, tree.blockIds[0]!);
    const last = await complete(student, tree.blockIds[1]!);
    const repeat = await complete(student, tree.blockIds[1]!);
    const stored = new Map((await completionRows(student.id)).map((row) => [row.blockId, row.id]));
    expect([first.status, last.status, repeat.status]).toEqual([200, 200, 200]);
    expect([first.body.data.completion.id, last.body.data.completion.id, repeat.body.data.completion.id]).toEqual([
      stored.get(tree.blockIds[0]!),
      stored.get(tree.blockIds[1]!),
      stored.get(tree.blockIds[1]!),
    ]);
    expect(stored.size).toBe(2);
  });

  it("the last block completes the course: completed_at is set once and kept", async () => {
    const { school, student, tree } = await setup({ shape: [1, 1, 2] });
    await insertEnrollment(school.id, tree.courseId, student.id);
    await complete(student, tree.blockIds[0]!);
    const last = await complete(student, tree.blockIds[1]!);
    expect(last.status).toBe(200);
    expect(last.body.data.progress).toEqual({ blocks_completed: 2, total_blocks: 2, pct: "100.00", completed_at: expect.any(String) });
    const repeat = await complete(student, tree.blockIds[1]!);
    expect(repeat.body.data).toEqual(last.body.data);
  });

  it("every manual type completes by hand", async () => {
    const { school, student } = await setup();
    for (const [blockType, payload] of [
      ["video", { url: "https://v.example.com/1" }],
      ["image", { media_asset_id: unknownId() }],
      ["pdf", { media_asset_id: unknownId() }],
      ["file", { media_asset_id: unknownId() }],
      ["embed", { url: "https://e.example.com" }],
    ] as const) {
      const tree = await insertCourseTree(school.id, { blockType, payload });
      await insertEnrollment(school.id, tree.courseId, student.id);
      expect({ blockType, status: (await complete(student, tree.blockIds[0]!)).status }).toEqual({ blockType, status: 200 });
    }
  });

  it("400 block_type_completed_via_domain for quiz and exam blocks; 422 assignment_not_submitted for an assignment block", async () => {
    const { school, student } = await setup();
    const quiz = await insertQuiz(school.id, { questions: [{ type: "single" }] });
    for (const [blockType, payload] of [
      ["quiz_ref", { quiz_id: quiz.id }],
      ["exam_ref", { exam_id: unknownId() }],
    ] as const) {
      const tree = await insertCourseTree(school.id, { blockType, payload, refId: Object.values(payload)[0] });
      await insertEnrollment(school.id, tree.courseId, student.id);
      expect(failure(await complete(student, tree.blockIds[0]!))).toEqual({ status: 400, error: "block_type_completed_via_domain" });
    }
    const assignmentId = unknownId();
    const tree = await insertCourseTree(school.id, { blockType: "assignment_ref", payload: { assignment_id: assignmentId }, refId: assignmentId });
    await insertEnrollment(school.id, tree.courseId, student.id);
    expect(failure(await complete(student, tree.blockIds[0]!))).toEqual({ status: 422, error: "assignment_not_submitted" });
    expect(await completionRows(student.id)).toEqual([]);
  });

  it("404 block_not_found: not enrolled, removed enrollment, draft course, hidden lesson, deleted block, another school's block", async () => {
    const { school, student, tree } = await setup({ shape: [1, 2, 1] });
    const notFound = { status: 404, error: "block_not_found" };
    expect(failure(await complete(student, tree.blockIds[0]!))).toEqual(notFound);

    const enrollmentId = await insertEnrollment(school.id, tree.courseId, student.id);
    await db().update(schema.enrollments).set({ removedAt: Date.now() }).where(eq(schema.enrollments.id, enrollmentId));
    expect(failure(await complete(student, tree.blockIds[0]!))).toEqual(notFound);
    await db().update(schema.enrollments).set({ removedAt: null }).where(eq(schema.enrollments.id, enrollmentId));

    const group = await createGroup(school.id);
    await db().insert(schema.lessonGroups).values({ tenantId: school.id, lessonId: tree.lessonIds[0]!, groupId: group.id, createdAt: Date.now() });
    expect(failure(await complete(student, tree.blockIds[0]!))).toEqual(notFound);
    await addMember(group, student.id);
    expect((await complete(student, tree.blockIds[0]!)).status).toBe(200);

    await db().update(schema.blocks).set({ deletedAt: Date.now() }).where(eq(schema.blocks.id, tree.blockIds[1]!));
    expect(failure(await complete(student, tree.blockIds[1]!))).toEqual(notFound);

    const draft = await insertCourseTree(school.id, { status: "draft" });
    await insertEnrollment(school.id, draft.courseId, student.id);
    expect(failure(await complete(student, draft.blockIds[0]!))).toEqual(notFound);

    const other = await setup();
    await insertEnrollment(other.school.id, other.tree.courseId, other.student.id);
    expect(failure(await complete(student, other.tree.blockIds[0]!))).toEqual(notFound);
    expect(failure(await complete(student, unknownId()))).toEqual(notFound);
  });

  it("409 sequential_order_required until every earlier visible block is complete", async () => {
    const { school, student, tree } = await setup({ sequential: true, shape: [2, 1, 2] });
    await insertEnrollment(school.id, tree.courseId, student.id);
    const [b1, b2, b3] = tree.blockIds as [string, string, string, string];
    expect(failure(await complete(student, b3))).toEqual({ status: 409, error: "sequential_order_required" });
    expect(failure(await complete(student, b2))).toEqual({ status: 409, error: "sequential_order_required" });
    expect((await complete(student, b1)).status).toBe(200);
    expect((await complete(student, b2)).status).toBe(200);
    expect((await complete(student, b3)).status).toBe(200);
  });

  it("400 invalid_block_id; staff are refused by the gate (403 forbidden)", async () => {
    const { school, admin, tree } = await setup();
    expect(failure(await as(await signedIn(school, { role: "student" }), "/t/blocks/x/complete", { method: "POST" }))).toEqual({ status: 400, error: "invalid_block_id" });
    expect(failure(await complete(admin, tree.blockIds[0]!))).toEqual({ status: 403, error: "forbidden" });
    expect(failure(await complete(await signedIn(school, curatorWith({ can_manage_courses: true })), tree.blockIds[0]!))).toEqual({ status: 403, error: "forbidden" });
  });
});

describe("GET /t/courses/:id/my-completions", () => {
  it("the caller's completed live blocks of the course (empty at first)", async () => {
    const { school, student, tree } = await setup({ shape: [1, 1, 3] });
    await insertEnrollment(school.id, tree.courseId, student.id);
    const empty = await as(student, `/t/courses/${tree.courseId}/my-completions`);
    expect(empty.status).toBe(200);
    expect(empty.body.data).toEqual({ block_ids: [] });
    await complete(student, tree.blockIds[2]!);
    await complete(student, tree.blockIds[0]!);
    await complete(student, tree.blockIds[1]!);
    const other = await signedIn(school, { role: "student" });
    await insertEnrollment(school.id, tree.courseId, other.id);
    await complete(other, tree.blockIds[1]!);
    await db().update(schema.blocks).set({ deletedAt: Date.now() }).where(eq(schema.blocks.id, tree.blockIds[1]!));
    const res = await as(student, `/t/courses/${tree.courseId}/my-completions`);
    expect(res.body.data.block_ids.sort()).toEqual([tree.blockIds[0], tree.blockIds[2]].sort());
    expect((await as(other, `/t/courses/${tree.courseId}/my-completions`)).body.data).toEqual({ block_ids: [] });
  });

  it("400 invalid_course_id; 404 course_not_found: not enrolled, removed enrollment, unpublished, another school's, unknown", async () => {
    const { school, admin, student, tree } = await setup();
    const notFound = { status: 404, error: "course_not_found" };
    expect(failure(await as(student, "/t/courses/abc/my-completions"))).toEqual({ status: 400, error: "invalid_course_id" });
    expect(failure(await as(student, `/t/courses/${tree.courseId}/my-completions`))).toEqual(notFound);
    expect(failure(await as(admin, `/t/courses/${tree.courseId}/my-completions`))).toEqual(notFound);
    const enrollmentId = await insertEnrollment(school.id, tree.courseId, student.id);
    expect((await as(student, `/t/courses/${tree.courseId}/my-completions`)).status).toBe(200);
    await db().update(schema.enrollments).set({ removedAt: Date.now() }).where(eq(schema.enrollments.id, enrollmentId));
    expect(failure(await as(student, `/t/courses/${tree.courseId}/my-completions`))).toEqual(notFound);

    const draft = await insertCourseTree(school.id, { status: "draft" });
    await insertEnrollment(school.id, draft.courseId, student.id);
    expect(failure(await as(student, `/t/courses/${draft.courseId}/my-completions`))).toEqual(notFound);
    const other = await setup();
    await insertEnrollment(other.school.id, other.tree.courseId, other.student.id);
    expect(failure(await as(student, `/t/courses/${other.tree.courseId}/my-completions`))).toEqual(notFound);
    expect(failure(await as(student, `/t/courses/${unknownId()}/my-completions`))).toEqual(notFound);
  });
});
