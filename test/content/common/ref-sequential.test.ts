import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";
import type { BlockType } from "../../../src/db/schema";
import { insertCourseTree, insertEnrollment, type Tree } from "../../helpers/courses";
import { insertExam } from "../../helpers/exams";
import { db } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { insertQuiz } from "../../helpers/quizzes";
import { as, schoolWithAdmin, signedIn, type Member } from "../../helpers/users";
import { insertAssignment } from "../assignments/helpers";

/**
 * `sequential_required` covers reference blocks (docs/decisions/courses.md,
 * "Reference blocks and the course order"): a quiz, assignment or exam a student meets only through a block the
 * course order still locks is not read, not listed, not started (409 `sequential_order_required`),
 * and a pass completes only the blocks the order leaves open.
 */

/** Turns the tree's block (by index in course order) into a reference block naming `refId`. */
async function makeRef(tree: Tree, index: number, type: BlockType, refId: string) {
  const key = type === "quiz_ref" ? "quiz_id" : type === "assignment_ref" ? "assignment_id" : "exam_id";
  await db()
    .update(schema.blocks)
    .set({ type, refId, payload: { [key]: refId } })
    .where(eq(schema.blocks.id, tree.blockIds[index]!));
}

const complete = (member: Member, blockId: string) => as(member, `/t/blocks/${blockId}/complete`, { method: "POST" });
const completions = async (member: Member, courseId: string) => (await as(member, `/t/courses/${courseId}/my-completions`)).body.data.block_ids as string[];
const quizIds = async (member: Member, query = "") => (await as(member, `/t/quizzes${query}`)).body.data.quizzes.map((quiz: { id: string }) => quiz.id) as string[];
const startAttempt = (member: Member, quizId: string) => as(member, "/t/attempts", { method: "POST", body: { quiz_id: quizId } });
const submitAttempt = (member: Member, attemptId: string) => as(member, `/t/attempts/${attemptId}/submit`, { method: "POST" });
const createDraft = (member: Member, assignmentId: string) => as(member, `/t/assignments/${assignmentId}/submissions`, { method: "POST" });
const startExam = (member: Member, examId: string) => as(member, "/t/exam-attempts", { method: "POST", body: { exam_id: examId } });
const locked = { status: 409, error: "sequential_order_required" };

describe("sequential order over reference blocks", () => {
  it("a quiz, an assignment and an exam behind a locked block: not read, not listed, 409 on start; each opens once the blocks before it are complete", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    const quiz = await insertQuiz(school.id, { questions: [{ type: "single" }] });
    const assignment = await insertAssignment(school.id);
    const sectionQuiz = await insertQuiz(school.id, { questions: [{ type: "single" }] });
    const exam = await insertExam(school.id, { sections: [{ quizId: sectionQuiz.id }] });
    // Block 1 text, block 2 the quiz, block 3 the assignment, block 4 the exam.
    const tree = await insertCourseTree(school.id, { sequential: true, shape: [1, 1, 4] });
    await makeRef(tree, 1, "quiz_ref", quiz.id);
    await makeRef(tree, 2, "assignment_ref", assignment.id);
    await makeRef(tree, 3, "exam_ref", exam.id);
    await insertEnrollment(school.id, tree.courseId, student.id, { totalBlocks: 4 });
    const [text, quizBlock, assignmentBlock] = tree.blockIds as [string, string, string, string];

    expect(failure(await as(student, `/t/quizzes/${quiz.id}`))).toEqual({ status: 404, error: "quiz_not_found" });
    expect(await quizIds(student)).toEqual([]);
    expect(await quizIds(student, `?course_id=${tree.courseId}`)).toEqual([]);
    expect(failure(await startAttempt(student, quiz.id))).toEqual(locked);
    expect(failure(await createDraft(student, assignment.id))).toEqual(locked);
    expect(failure(await startExam(student, exam.id))).toEqual(locked);
    // Staff bypass the order.
    expect((await as(admin, `/t/quizzes/${quiz.id}`)).status).toBe(200);

    expect((await complete(student, text)).status).toBe(200);
    expect((await as(student, `/t/quizzes/${quiz.id}`)).status).toBe(200);
    expect(await quizIds(student)).toEqual([quiz.id]);
    expect(await quizIds(student, `?course_id=${tree.courseId}`)).toEqual([quiz.id]);
    // The assignment and the exam still wait for the quiz block.
    expect(failure(await createDraft(student, assignment.id))).toEqual(locked);
    const started = await startAttempt(student, quiz.id);
    expect(started.status).toBe(201);
    expect((await submitAttempt(student, started.body.data.id)).status).toBe(200);
    expect(await completions(student, tree.courseId)).toEqual([text, quizBlock]);

    expect(failure(await startExam(student, exam.id))).toEqual(locked);
    const draft = await createDraft(student, assignment.id);
    expect(draft.status).toBe(201);
    expect((await as(student, `/t/submissions/${draft.body.data.id}/submit`, { method: "POST" })).status).toBe(200);
    expect(await completions(student, tree.courseId)).toEqual([text, quizBlock, assignmentBlock]);
    expect((await startExam(student, exam.id)).status).toBe(201);
  });

  it("a passed attempt on a quiz also reached through an open block completes only the open blocks", async () => {
    const { school } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    const quiz = await insertQuiz(school.id, { questions: [{ type: "single" }] });
    // Block 1 the quiz (open: nothing before it), block 2 text, block 3 the quiz again (locked by block 2).
    const tree = await insertCourseTree(school.id, { sequential: true, shape: [1, 1, 3] });
    await makeRef(tree, 0, "quiz_ref", quiz.id);
    await makeRef(tree, 2, "quiz_ref", quiz.id);
    await insertEnrollment(school.id, tree.courseId, student.id, { totalBlocks: 3 });
    const [first, text, last] = tree.blockIds as [string, string, string];

    const attempt = await startAttempt(student, quiz.id);
    expect(attempt.status).toBe(201);
    expect((await submitAttempt(student, attempt.body.data.id)).status).toBe(200);
    expect(await completions(student, tree.courseId)).toEqual([first]);

    // The next pass, with block 2 done, completes the last block.
    expect((await complete(student, text)).status).toBe(200);
    const again = await startAttempt(student, quiz.id);
    expect(again.status).toBe(201);
    expect((await submitAttempt(student, again.body.data.id)).status).toBe(200);
    expect((await completions(student, tree.courseId)).sort()).toEqual([first, text, last].sort());
  });

  it("a submitted assignment reached through a locked and an open block completes only the open one", async () => {
    const { school } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    const assignment = await insertAssignment(school.id);
    const tree = await insertCourseTree(school.id, { sequential: true, shape: [1, 1, 3] });
    await makeRef(tree, 0, "assignment_ref", assignment.id);
    await makeRef(tree, 2, "assignment_ref", assignment.id);
    await insertEnrollment(school.id, tree.courseId, student.id, { totalBlocks: 3 });
    const draft = await createDraft(student, assignment.id);
    expect(draft.status).toBe(201);
    expect((await as(student, `/t/submissions/${draft.body.data.id}/submit`, { method: "POST" })).status).toBe(200);
    expect(await completions(student, tree.courseId)).toEqual([tree.blockIds[0]]);
  });

  it("a draft whose block the course order has locked since: submit is 409 and completes nothing", async () => {
    const { school } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    const assignment = await insertAssignment(school.id);
    const tree = await insertCourseTree(school.id, { shape: [1, 1, 2] });
    await makeRef(tree, 1, "assignment_ref", assignment.id);
    await insertEnrollment(school.id, tree.courseId, student.id, { totalBlocks: 2 });
    const draft = await createDraft(student, assignment.id);
    expect(draft.status).toBe(201);
    await db().update(schema.courses).set({ sequentialRequired: true }).where(eq(schema.courses.id, tree.courseId));
    expect(failure(await as(student, `/t/submissions/${draft.body.data.id}/submit`, { method: "POST" }))).toEqual(locked);
    expect(await completions(student, tree.courseId)).toEqual([]);
    expect((await complete(student, tree.blockIds[0]!)).status).toBe(200);
    expect((await as(student, `/t/submissions/${draft.body.data.id}/submit`, { method: "POST" })).status).toBe(200);
    expect(await completions(student, tree.courseId)).toEqual([tree.blockIds[0], tree.blockIds[1]]);
  });
});
