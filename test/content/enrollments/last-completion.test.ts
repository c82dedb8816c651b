import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { setClockForTests } from "../../../src/core/lib/clock";
import { insertCourseTree, insertEnrollment } from "../../helpers/courses";
import { db } from "../../helpers/factories";
import { as, schoolWithAdmin, signedIn, type Member } from "../../helpers/users";
import { quizForStudent, save, started, submit as submitAttempt } from "../attempts/helpers";
import { examForStudent, opened, saveSection, single, startedExam, submitExam } from "../exams/attempt-helpers";
import { assignmentCourse, draftOf, submissionSchool, submit as submitSubmission } from "../submissions/helpers";
import { bulk, unenroll } from "./helpers";

/**
 * An enrollment's stored latest completion (`last_completion_at`, which the lists read for the
 * status's activity) equals the latest completion read from `block_completions`, for every
 * enrollment of the school, after each kind of write that adds or removes completions or moves
 * the activity: a manual completion, a passed quiz, a passed exam, a handed-in assignment, a course
 * access, a block deletion (its completions stay), an unenrollment and a return, and the permanent
 * deletion of a student (docs/decisions/heavy-reads-enrollments.md, "Enrollment lists").
 */

afterEach(() => setClockForTests(null));

interface Compared {
  id: string;
  student_id: string;
  stored: number | null;
  recomputed: number | null;
  stored_activity: number | null;
  activity: number | null;
}

/** Every enrollment of the school with its stored and recomputed latest completion and activity, row by row equal. */
async function expectStoredEqualsRaw(tenantId: string): Promise<Compared[]> {
  const latest = sql`(SELECT MAX(bc.completed_at) FROM block_completions bc
    WHERE bc.tenant_id = e.tenant_id AND bc.student_id = e.student_id AND bc.course_id = e.course_id)`;
  const rows = await db().all<Compared>(sql`SELECT e.id, e.student_id, e.last_completion_at AS stored, ${latest} AS recomputed,
      NULLIF(MAX(COALESCE(e.last_accessed_at, 0), COALESCE(e.last_completion_at, 0)), 0) AS stored_activity,
      NULLIF(MAX(COALESCE(e.last_accessed_at, 0), COALESCE(${latest}, 0)), 0) AS activity
    FROM enrollments e WHERE e.tenant_id = ${tenantId} ORDER BY e.id`);
  expect(rows.length).toBeGreaterThan(0);
  for (const row of rows) {
    expect({ id: row.id, stored: row.stored, activity: row.stored_activity }).toEqual({ id: row.id, stored: row.recomputed, activity: row.activity });
  }
  return rows;
}

const storedOf = (rows: Compared[], studentId: string) => rows.filter((row) => row.student_id === studentId).map((row) => row.stored);

/** The services' clock fixed at `at`, so each write's instant is known. */
const clockAt = (at: number) => setClockForTests({ now: () => at });

const complete = (member: Member, blockId: string) => as(member, `/t/blocks/${blockId}/complete`, { method: "POST" });

describe("the enrollment's stored latest completion", () => {
  it("follows manual completions, course access, a block deletion, an unenrollment and a return", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    const idle = await signedIn(school, { role: "student" });
    const tree = await insertCourseTree(school.id, { shape: [1, 2, 2] });
    const other = await insertCourseTree(school.id, { shape: [1, 1, 1] });
    for (const member of [student, idle]) await insertEnrollment(school.id, tree.courseId, member.id, { totalBlocks: 4 });
    await insertEnrollment(school.id, other.courseId, student.id, { totalBlocks: 1 });
    const t0 = Date.now() - 60_000;

    clockAt(t0);
    expect((await complete(student, tree.blockIds[0]!)).status).toBe(200);
    expect(storedOf(await expectStoredEqualsRaw(school.id), student.id).sort()).toEqual([t0, null].sort());

    // Opening a lesson moves the access, not the completion.
    clockAt(t0 + 1_000);
    expect((await as(student, `/t/lessons/${tree.lessonIds[1]}`)).status).toBe(200);
    const accessed = await expectStoredEqualsRaw(school.id);
    expect(accessed.filter((row) => row.student_id === student.id).map((row) => row.activity).sort()).toEqual([t0 + 1_000, null].sort());

    clockAt(t0 + 2_000);
    expect((await complete(student, tree.blockIds[1]!)).status).toBe(200);
    clockAt(t0 + 3_000);
    expect((await complete(student, other.blockIds[0]!)).status).toBe(200);
    expect(storedOf(await expectStoredEqualsRaw(school.id), student.id).sort()).toEqual([t0 + 2_000, t0 + 3_000].sort());

    // A deleted block keeps its completion; the course's recount keeps the latest one.
    clockAt(t0 + 4_000);
    expect((await as(admin, `/t/blocks/${tree.blockIds[1]}`, { method: "DELETE" })).status).toBe(204);
    expect(storedOf(await expectStoredEqualsRaw(school.id), student.id).sort()).toEqual([t0 + 2_000, t0 + 3_000].sort());

    clockAt(t0 + 5_000);
    expect((await unenroll(admin, tree.courseId, student.id)).status).toBe(204);
    await expectStoredEqualsRaw(school.id);
    clockAt(t0 + 6_000);
    expect((await bulk(admin, tree.courseId, [student.id])).status).toBe(200);
    expect(storedOf(await expectStoredEqualsRaw(school.id), student.id).sort()).toEqual([t0 + 2_000, t0 + 3_000].sort());
    expect(storedOf(await expectStoredEqualsRaw(school.id), idle.id)).toEqual([null]);
  });

  it("follows a passed quiz attempt (source quiz)", async () => {
    const { school, student, quiz } = await quizForStudent({ passingScore: 100, questions: [{ type: "single" }] });
    const before = await expectStoredEqualsRaw(school.id);
    expect(storedOf(before, student.id)).toEqual([null]);
    const id = await started(student, quiz.id);
    await save(student, id, [{ question_id: quiz.questions[0]!.id, payload: { answer_ids: [quiz.questions[0]!.answerIds[0]] } }]);
    const at = Date.now() + 5_000;
    clockAt(at);
    expect((await submitAttempt(student, id)).body.data).toMatchObject({ passed: true });
    expect(storedOf(await expectStoredEqualsRaw(school.id), student.id)).toEqual([at]);
  });

  it("follows a passed exam attempt (source exam)", async () => {
    const setup = await examForStudent({ passingScore: 60 });
    const { school, student, exam } = setup;
    const tree = await insertCourseTree(school.id, { blockType: "exam_ref", payload: { exam_id: exam.id }, refId: exam.id });
    await insertEnrollment(school.id, tree.courseId, student.id, { totalBlocks: 1 });
    const id = await startedExam(student, exam.id);
    await opened(student, id, 0);
    await opened(student, id, 1);
    await saveSection(student, id, 0, [single(setup.quizzes[0]!.questions[0]!, true)]);
    await saveSection(student, id, 1, setup.quizzes[1]!.questions.map((question) => single(question, true)));
    expect((await submitExam(student, id)).body.data).toMatchObject({ passed: true });
    const rows = await expectStoredEqualsRaw(school.id);
    expect(storedOf(rows, student.id)).toEqual([expect.any(Number)]);
  });

  it("follows a handed-in assignment (source assignment)", async () => {
    const { school, student, assignment } = await submissionSchool();
    const other = await signedIn(school, { role: "student" });
    await assignmentCourse(school.id, assignment.id, [student.id, other.id]);
    const draft = await draftOf(student, assignment.id);
    const at = Date.now() + 5_000;
    clockAt(at);
    expect((await submitSubmission(student, draft.id)).status).toBe(200);
    const rows = await expectStoredEqualsRaw(school.id);
    expect(storedOf(rows, student.id)).toEqual([at]);
    expect(storedOf(rows, other.id)).toEqual([null]);
  });

  it("stays exact for everyone else when a student is deleted permanently with their completions", async () => {
    const { school, admin } = await schoolWithAdmin();
    const leaver = await signedIn(school, { role: "student" });
    const stayer = await signedIn(school, { role: "student" });
    const tree = await insertCourseTree(school.id, { shape: [1, 1, 2] });
    for (const member of [leaver, stayer]) await insertEnrollment(school.id, tree.courseId, member.id, { totalBlocks: 2 });
    const t0 = Date.now() - 60_000;
    clockAt(t0);
    await complete(leaver, tree.blockIds[0]!);
    clockAt(t0 + 1_000);
    await complete(stayer, tree.blockIds[0]!);
    await expectStoredEqualsRaw(school.id);
    setClockForTests(null);

    expect((await as(admin, `/t/users/${leaver.id}/permanent`, { method: "DELETE" })).status).toBe(200);
    const rows = await expectStoredEqualsRaw(school.id);
    expect(rows.map((row) => [row.student_id, row.stored])).toEqual([[stayer.id, t0 + 1_000]]);
  });
});
