import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { uuidv7 } from "../../../src/core/lib/ids";
import * as schema from "../../../src/db/schema";
import { insertEnrollment } from "../../helpers/courses";
import { db } from "../../helpers/factories";
import { insertQuizCourse } from "../../helpers/quizzes";
import { addGroupCurator, addMember, assignIndividualCurator, createGroup, curatorWith, signedIn } from "../../helpers/users";
import { addPushDevice, outboxRows } from "../../notifications/helpers";
import { moveClock, quizForStudent, read, save, started, submit } from "./helpers";

/**
 * What a finished attempt does besides its score: a passed student attempt completes the quiz's
 * blocks (source `quiz`) and recounts progress, with the course's completion pushes; #38 asks the
 * student's curators (or the admins) to review; #40 tells the curators the attempts are used up;
 * #37 tells the student the time ran out. Staff attempts complete nothing and notify nobody.
 */

const quizEvents = async (tenantId: string) => (await outboxRows(tenantId)).filter((row) => row.eventCode.startsWith("quiz.") || row.eventCode.startsWith("course."));
const pairs = async (tenantId: string) => (await quizEvents(tenantId)).map((row) => [row.eventCode, row.userId]).sort();

async function completionsOf(studentId: string) {
  return db().select().from(schema.blockCompletions).where(eq(schema.blockCompletions.studentId, studentId));
}

async function answerSingle(member: Parameters<typeof save>[0], id: string, question: { id: string; answerIds: string[] }, right: boolean) {
  await save(member, id, [{ question_id: question.id, payload: { answer_ids: [question.answerIds[right ? 0 : 1]] } }]);
}

describe("completion of quiz_ref blocks", () => {
  it("a passed attempt completes the quiz's blocks in every course the student is enrolled in and sees, and recounts progress", async () => {
    const { school, student, quiz, tree } = await quizForStudent({ title: "Final", passingScore: 100, questions: [{ type: "single" }] });
    const curator = await signedIn(school, curatorWith({}));
    await assignIndividualCurator(student.id, curator.id);
    await addPushDevice(school.id, student.id);
    await addPushDevice(school.id, curator.id);
    // A second course with the quiz and a text block: the pass completes one of its two blocks.
    const second = await insertQuizCourse(school.id, quiz.id, { title: "Second" });
    await db().update(schema.blocks).set({ type: "text", refId: null, payload: { html: "<p>x</p>" } }).where(eq(schema.blocks.id, second.blockIds[0]!));
    const extraBlock = uuidv7();
    await db().insert(schema.blocks).values({
      id: extraBlock,
      tenantId: school.id,
      courseId: second.courseId,
      moduleId: second.modules[0]!.id,
      lessonId: second.lessonIds[0]!,
      type: "quiz_ref",
      payload: { quiz_id: quiz.id },
      refId: quiz.id,
      position: 1,
      createdAt: Date.now(),
      updatedAt: Date.now(),
    });
    await insertEnrollment(school.id, second.courseId, student.id);
    // A course the student is not enrolled in, and one whose lesson an access group hides.
    const notEnrolled = await insertQuizCourse(school.id, quiz.id);
    const hidden = await insertQuizCourse(school.id, quiz.id);
    await insertEnrollment(school.id, hidden.courseId, student.id);
    const group = await createGroup(school.id);
    await db().insert(schema.lessonGroups).values({ tenantId: school.id, lessonId: hidden.lessonIds[0]!, groupId: group.id, createdAt: Date.now() });

    const failed = await started(student, quiz.id);
    await answerSingle(student, failed, quiz.questions[0]!, false);
    expect((await submit(student, failed)).body.data).toMatchObject({ passed: false });
    expect(await completionsOf(student.id)).toEqual([]);

    const passed = await started(student, quiz.id);
    await answerSingle(student, passed, quiz.questions[0]!, true);
    expect((await submit(student, passed)).body.data).toMatchObject({ passed: true, score_pct: "100.00" });
    const completions = await completionsOf(student.id);
    expect(completions.map((row) => [row.blockId, row.source]).sort()).toEqual(
      [
        [tree.blockIds[0], "quiz"],
        [extraBlock, "quiz"],
      ].sort(),
    );
    expect(completions.some((row) => row.courseId === notEnrolled.courseId || row.courseId === hidden.courseId)).toBe(false);
    const enrollments = await db().select().from(schema.enrollments).where(eq(schema.enrollments.studentId, student.id));
    const progress = Object.fromEntries(enrollments.map((row) => [row.courseId, [row.blocksCompleted, row.totalBlocks, row.completedAt !== null]]));
    expect(progress).toEqual({ [tree.courseId]: [1, 1, true], [second.courseId]: [1, 2, false], [hidden.courseId]: [0, 1, false] });

    // The course the pass completed: #34 to the curator; #33 not to the student who acted.
    const course = (await quizEvents(school.id)).filter((row) => row.eventCode.startsWith("course."));
    expect(course.map((row) => [row.eventCode, row.userId, row.aggregateId])).toEqual([["course.student_completed", curator.id, tree.courseId]]);

    // Another pass completes nothing more and sends nothing more.
    const again = await started(student, quiz.id);
    await answerSingle(student, again, quiz.questions[0]!, true);
    await submit(student, again);
    expect(await completionsOf(student.id)).toHaveLength(2);
    expect((await quizEvents(school.id)).filter((row) => row.eventCode.startsWith("course."))).toHaveLength(1);
  });

  it("a staff attempt completes nothing and notifies nobody", async () => {
    const { school, admin, quiz } = await quizForStudent({ maxAttempts: 1, passingScore: 100, questions: [{ type: "single" }, { type: "free_text" }] });
    await addPushDevice(school.id, admin.id);
    const other = await signedIn(school, { role: "admin" });
    await addPushDevice(school.id, other.id);
    const curator = await signedIn(school, curatorWith({}));
    await addPushDevice(school.id, curator.id);
    await insertEnrollment(school.id, (await insertQuizCourse(school.id, quiz.id)).courseId, curator.id);
    for (const member of [admin, curator]) {
      const id = await started(member, quiz.id);
      await save(member, id, [{ question_id: quiz.questions[1]!.id, payload: { text: "review me" } }]);
      expect((await submit(member, id)).body.data).toMatchObject({ pending_review: true });
    }
    expect(await completionsOf(curator.id)).toEqual([]);
    expect(await quizEvents(school.id)).toEqual([]);
  });
});

describe("quiz events", () => {
  it("#38 quiz.review_required: the student's individual and group curators, once, with the pending count", async () => {
    const { school, student, quiz } = await quizForStudent({ title: "Essay", questions: [{ type: "free_text" }, { type: "free_text" }, { type: "single" }] });
    await db().update(schema.users).set({ firstName: "Dilnoza", lastName: "Karimova" }).where(eq(schema.users.id, student.id));
    const curator = await signedIn(school, curatorWith({}));
    const groupCurator = await signedIn(school, curatorWith({}));
    const unrelated = await signedIn(school, curatorWith({}));
    const admin = await signedIn(school, { role: "admin" });
    for (const member of [student, curator, groupCurator, unrelated, admin]) await addPushDevice(school.id, member.id);
    await assignIndividualCurator(student.id, curator.id);
    const group = await createGroup(school.id);
    await addMember(group, student.id);
    await addGroupCurator(group, groupCurator.id);

    const id = await started(student, quiz.id);
    const [first, second] = quiz.questions;
    await save(student, id, [
      { question_id: first!.id, payload: { text: "one" } },
      { question_id: second!.id, payload: { text: "two" } },
    ]);
    await submit(student, id);
    const rows = await quizEvents(school.id);
    expect(rows.map((row) => [row.eventCode, row.userId]).sort()).toEqual(
      [
        ["quiz.review_required", curator.id],
        ["quiz.review_required", groupCurator.id],
      ].sort(),
    );
    for (const row of rows) {
      expect(row).toMatchObject({ aggregateType: "quiz_attempt", aggregateId: id, dedupeKey: `quiz.review_required:${id}:${row.userId}`, body: "Dilnoza Karimova, «Essay»: ответов на проверку — 2." });
      expect(row.data).toMatchObject({ event_code: "quiz.review_required", quiz_attempt_id: id, pending_count: 2, quiz_title: "Essay" });
    }
  });

  it("#38 goes to the school's admins when the student has no curator; nothing without pending answers", async () => {
    const { school, admin, student, quiz } = await quizForStudent({ questions: [{ type: "free_text", correctText: ["yes"] }] });
    const secondAdmin = await signedIn(school, { role: "admin" });
    for (const member of [admin, secondAdmin, student]) await addPushDevice(school.id, member.id);
    const right = await started(student, quiz.id);
    await save(student, right, [{ question_id: quiz.questions[0]!.id, payload: { text: " YES " } }]);
    await submit(student, right);
    expect(await quizEvents(school.id)).toEqual([]);
    const pending = await started(student, quiz.id);
    await save(student, pending, [{ question_id: quiz.questions[0]!.id, payload: { text: "maybe" } }]);
    await submit(student, pending);
    expect(await pairs(school.id)).toEqual([["quiz.review_required", admin.id], ["quiz.review_required", secondAdmin.id]].sort());
  });

  it("#40 quiz.attempts_exhausted: when the last allowed attempt fails and none passed or waits for review", async () => {
    const { school, student, quiz, tree } = await quizForStudent({ title: "Exam prep", maxAttempts: 3, passingScore: 80, questions: [{ type: "single" }, { type: "single" }, { type: "free_text" }] });
    await db().update(schema.users).set({ firstName: "Timur", lastName: "Aliev" }).where(eq(schema.users.id, student.id));
    const curator = await signedIn(school, curatorWith({}));
    await assignIndividualCurator(student.id, curator.id);
    for (const member of [student, curator]) await addPushDevice(school.id, member.id);
    const [single, secondSingle, text] = quiz.questions;

    // 1: pending review (free text), 2: failed, 3: failed. #40 waits while attempt 1 may still pass.
    const first = await started(student, quiz.id);
    await save(student, first, [{ question_id: text!.id, payload: { text: "maybe" } }]);
    await submit(student, first);
    for (let i = 0; i < 2; i++) {
      const id = await started(student, quiz.id);
      await answerSingle(student, id, single!, false);
      expect((await submit(student, id)).body.data).toMatchObject({ passed: false, pending_review: false, score_pct: "0.00" });
    }
    expect((await quizEvents(school.id)).filter((row) => row.eventCode === "quiz.attempts_exhausted")).toEqual([]);

    // Another student: three failures in a row.
    const other = await signedIn(school, { role: "student" });
    await db().update(schema.users).set({ firstName: "Timur", lastName: "Aliev" }).where(eq(schema.users.id, other.id));
    await assignIndividualCurator(other.id, curator.id);
    await insertEnrollment(school.id, tree.courseId, other.id);
    let last = "";
    for (let i = 0; i < 3; i++) {
      last = await started(other, quiz.id);
      await save(other, last, [
        { question_id: single!.id, payload: { answer_ids: [single!.answerIds[0]] } },
        { question_id: secondSingle!.id, payload: { answer_ids: [secondSingle!.answerIds[1]] } },
        { question_id: text!.id, payload: { text: "Answer" } },
      ]);
      expect((await submit(other, last)).body.data).toMatchObject({ passed: false, pending_review: false, score_pct: "66.67" });
    }
    const rows = (await quizEvents(school.id)).filter((row) => row.eventCode === "quiz.attempts_exhausted");
    expect(rows.map((row) => [row.userId, row.aggregateId, row.dedupeKey, row.body])).toEqual([
      [curator.id, last, `quiz.attempts_exhausted:${last}:${curator.id}`, "Timur Aliev не сдал(а) тест «Exam prep» за 3 попыт.; последний результат 66.67%."],
    ]);
    expect(rows[0]!.data).toMatchObject({ score_pct: "66.67", max_attempts: 3, quiz_title: "Exam prep" });
  });

  it("#37 reaches the student whose attempt ran out even when the student's own read finalized it; staff attempts send nothing", async () => {
    const { school, admin, student, quiz } = await quizForStudent({ timeLimitSeconds: 30, questions: [{ type: "single" }] });
    for (const member of [student, admin]) await addPushDevice(school.id, member.id);
    const id = await started(student, quiz.id);
    const staff = await started(admin, quiz.id);
    moveClock(30_000 + 15_000 + 2_000);
    await read(student, id);
    await read(admin, staff);
    // Without a passing score the finalized attempt passes and completes the course: #33 reaches the student too.
    expect(await pairs(school.id)).toEqual([
      ["course.completed", student.id],
      ["quiz.auto_submitted", student.id],
    ]);
  });
});
