import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";
import { enrollmentOf, ISO } from "../../helpers/courses";
import { barrierD1, requestWithD1 } from "../../helpers/d1-barrier";
import { db } from "../../helpers/factories";
import { giveQuizAccess, insertQuiz } from "../../helpers/quizzes";
import { curatorWith, schoolWithAdmin, signedIn } from "../../helpers/users";
import { addPushDevice } from "../../notifications/helpers";
import { answerRow, attemptRow, grade, pushesOf, submittedAttempt } from "./grading-helpers";
import { schoolD1 } from "../../helpers/databases";

/**
 * A quiz of a single-choice question (1.00) and a free-text one (2.00), pass mark 60 %, reached by
 * a reachable student through a published course of one quiz_ref block; the student's attempt got
 * the choice right and waits for the free text's review.
 */
async function pendingAttempt(options: { passingScore?: number | null } = {}) {
  const { school, admin } = await schoolWithAdmin();
  const student = await signedIn(school, { role: "student" });
  await addPushDevice(school.id, student.id);
  const quiz = await insertQuiz(school.id, {
    title: "Biology",
    passingScore: options.passingScore === undefined ? 60 : options.passingScore,
    questions: [{ type: "single" }, { type: "free_text", pointsHundredths: 200 }],
  });
  const [choice, text] = quiz.questions;
  const tree = await giveQuizAccess(school.id, quiz.id, [student.id]);
  const attemptId = await submittedAttempt(
    school.id,
    quiz.id,
    student.id,
    [
      { questionId: choice!.id, payload: { answer_ids: [choice!.answerIds[0]] }, awarded: 100, isCorrect: true },
      { questionId: text!.id, payload: { text: "photosynthesis makes sugar" }, awarded: null },
    ],
    { scoreHundredths: 100, maxScoreHundredths: 300, scorePctHundredths: 3333, pendingReview: true, passed: null },
  );
  return { school, admin, student, quiz, choice: choice!, text: text!, tree, attemptId };
}

describe("POST /t/attempts/:id/grade", () => {
  it("grading the pending free-text answer re-scores, settles passed, completes the quiz_ref block and tells the student once", async () => {
    const { school, admin, student, quiz, choice, text, tree, attemptId } = await pendingAttempt();
    const res = await grade(admin, attemptId, [{ question_id: text.id, awarded_points: "1.5", feedback: "  Mostly right.  " }]);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      id: attemptId,
      quiz_id: quiz.id,
      user_id: student.id,
      status: "submitted",
      actor_role: "student",
      score: "2.50",
      max_score: "3.00",
      score_pct: "83.33",
      passed: true,
      pending_review: false,
      started_at: expect.stringMatching(ISO),
      deadline_at: null,
      time_limit_seconds: null,
      submitted_at: expect.stringMatching(ISO),
      auto_finalized: false,
      saved_answers: [
        { question_id: choice.id, payload: { answer_ids: [choice.answerIds[0]] }, awarded_points: "1.00", is_correct: true, feedback: null },
        { question_id: text.id, payload: { text: "photosynthesis makes sugar" }, awarded_points: "1.50", is_correct: false, feedback: "Mostly right." },
      ],
      server_now: expect.stringMatching(ISO),
      remaining_seconds: null,
    });
    const answer = (await answerRow(attemptId, text.id))!;
    expect(answer).toMatchObject({ awardedHundredths: 150, isCorrect: false, feedback: "Mostly right.", gradedBy: admin.id, payload: { text: "photosynthesis makes sugar" } });
    expect(await attemptRow(attemptId)).toMatchObject({ scoreHundredths: 250, maxScoreHundredths: 300, scorePctHundredths: 8333, pendingReview: false, passed: true });

    // The pass completes the student's quiz_ref block (source quiz) and the one-block course.
    const completions = await db().select().from(schema.blockCompletions).where(eq(schema.blockCompletions.studentId, student.id));
    expect(completions.map((row) => [row.blockId, row.source])).toEqual([[tree.blockIds[0], "quiz"]]);
    expect(await enrollmentOf(tree.courseId, student.id)).toMatchObject({ blocksCompleted: 1, completedAt: expect.any(Number) });

    const pushes = await pushesOf(school.id, "quiz.graded");
    expect(pushes).toHaveLength(1);
    expect(pushes[0]).toMatchObject({
      userId: student.id,
      title: "Тест проверен",
      body: "«Biology»: 2.50 из 3.00 (83.33%).",
      aggregateType: "quiz_attempt",
      aggregateId: attemptId,
      dedupeKey: `quiz.graded:${attemptId}:${answer.gradedAt}:${student.id}`,
      data: { event_code: "quiz.graded", quiz_attempt_id: attemptId, quiz_title: "Biology", score: "2.50", max_score: "3.00", score_pct: "83.33" },
    });

    // The same request again changes nothing: same attempt, no second push, the grading time kept.
    const again = await grade(admin, attemptId, [{ question_id: text.id, awarded_points: "1.50", feedback: "Mostly right." }]);
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ score: "2.50", passed: true, pending_review: false });
    expect((await answerRow(attemptId, text.id))!.gradedAt).toBe(answer.gradedAt);
    expect(await pushesOf(school.id, "quiz.graded")).toHaveLength(1);
    expect(await db().select().from(schema.blockCompletions).where(eq(schema.blockCompletions.studentId, student.id))).toHaveLength(1);
  });

  it("a partial grading leaves the attempt pending and tells nobody; the grading that settles it tells the student", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    await addPushDevice(school.id, student.id);
    const quiz = await insertQuiz(school.id, { title: "Essays", passingScore: 50, questions: [{ type: "free_text" }, { type: "free_text" }] });
    const [first, second] = quiz.questions;
    const attemptId = await submittedAttempt(
      school.id,
      quiz.id,
      student.id,
      [
        { questionId: first!.id, payload: { text: "one" }, awarded: null },
        { questionId: second!.id, payload: { text: "two" }, awarded: null },
      ],
      { scoreHundredths: 0, maxScoreHundredths: 200, scorePctHundredths: 0, pendingReview: true, passed: null },
    );
    const partial = await grade(admin, attemptId, [{ question_id: first!.id, awarded_points: 1 }]);
    expect(partial.body.data).toMatchObject({ score: "1.00", score_pct: "50.00", passed: null, pending_review: true });
    expect(partial.body.data.saved_answers.map((a: { awarded_points: string | null; is_correct: boolean | null }) => [a.awarded_points, a.is_correct])).toEqual([
      ["1.00", true],
      [null, null],
    ]);
    expect(await pushesOf(school.id, "quiz.graded")).toEqual([]);

    const settled = await grade(admin, attemptId, [{ question_id: second!.id, awarded_points: "0" }]);
    expect(settled.body.data).toMatchObject({ score: "1.00", score_pct: "50.00", passed: true, pending_review: false });
    const pushes = await pushesOf(school.id, "quiz.graded");
    expect(pushes.map((row) => [row.userId, row.body])).toEqual([[student.id, "«Essays»: 1.00 из 2.00 (50.00%)."]]);

    // A later regrade is a new grading: the student is told again.
    await new Promise((resolve) => setTimeout(resolve, 2));
    const regrade = await grade(admin, attemptId, [{ question_id: second!.id, awarded_points: "0.5" }]);
    expect(regrade.body.data).toMatchObject({ score: "1.50", score_pct: "75.00", passed: true });
    expect(await pushesOf(school.id, "quiz.graded")).toHaveLength(2);
  });

  it("re-scores with exact decimals: half-up percentages, is_correct only for full points, a failed pass mark", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    const quiz = await insertQuiz(school.id, { passingScore: 50, questions: [{ type: "free_text", pointsHundredths: 800 }, { type: "free_text", pointsHundredths: 300 }] });
    const [big, small] = quiz.questions;
    const attemptId = await submittedAttempt(
      school.id,
      quiz.id,
      student.id,
      [
        { questionId: big!.id, payload: { text: "a" }, awarded: null },
        { questionId: small!.id, payload: { text: "b" }, awarded: null },
      ],
      { scoreHundredths: 0, maxScoreHundredths: 1100, scorePctHundredths: 0, pendingReview: true, passed: null },
    );
    // 0.01 of 11.00 is 0.0909… %: 0.09.
    const low = await grade(admin, attemptId, [
      { question_id: big!.id, awarded_points: "0.01" },
      { question_id: small!.id, awarded_points: 0 },
    ]);
    expect(low.body.data).toMatchObject({ score: "0.01", max_score: "11.00", score_pct: "0.09", passed: false, pending_review: false });
    // 5.50 of 11.00 is exactly the pass mark; full points on the small question are correct.
    const pass = await grade(admin, attemptId, [
      { question_id: big!.id, awarded_points: "2.5" },
      { question_id: small!.id, awarded_points: "3" },
    ]);
    expect(pass.body.data).toMatchObject({ score: "5.50", score_pct: "50.00", passed: true });
    expect(pass.body.data.saved_answers.map((a: { is_correct: boolean }) => a.is_correct)).toEqual([false, true]);
    // 7.37 of 11.00 = 67.0000 %; 1.00 of 11.00 = 9.0909 % → 9.09; 0.05 of 8.00 alone would be 0.625 → 0.63 (half-up).
    expect((await grade(admin, attemptId, [{ question_id: big!.id, awarded_points: "4.37" }])).body.data).toMatchObject({ score: "7.37", score_pct: "67.00" });
    expect((await grade(admin, attemptId, [{ question_id: big!.id, awarded_points: "1" }, { question_id: small!.id, awarded_points: "0" }])).body.data).toMatchObject({
      score: "1.00",
      score_pct: "9.09",
      passed: false,
    });
    await db().update(schema.quizAttempts).set({ maxScoreHundredths: 800 }).where(eq(schema.quizAttempts.id, attemptId));
    expect((await grade(admin, attemptId, [{ question_id: big!.id, awarded_points: "0.05" }])).body.data).toMatchObject({ score: "0.05", max_score: "8.00", score_pct: "0.63" });
  });

  it("a question the attempt left unanswered gets an answer row with payload {}; feedback left out is kept, null clears it", async () => {
    const { school, admin, student, choice, text, attemptId } = await pendingAttempt();
    await db().delete(schema.quizAttemptAnswers).where(and(eq(schema.quizAttemptAnswers.attemptId, attemptId), eq(schema.quizAttemptAnswers.questionId, choice.id)));
    const res = await grade(admin, attemptId, [
      { question_id: choice.id, awarded_points: "1.00", feedback: "Given by the grader." },
      { question_id: text.id, awarded_points: "2.00", feedback: "Perfect." },
    ]);
    expect(res.body.data).toMatchObject({ score: "3.00", score_pct: "100.00", passed: true });
    expect(res.body.data.saved_answers).toEqual([
      { question_id: choice.id, payload: {}, awarded_points: "1.00", is_correct: true, feedback: "Given by the grader." },
      { question_id: text.id, payload: { text: "photosynthesis makes sugar" }, awarded_points: "2.00", is_correct: true, feedback: "Perfect." },
    ]);
    expect(await answerRow(attemptId, choice.id)).toMatchObject({ payload: {}, userId: student.id, tenantId: school.id, gradedBy: admin.id });

    const kept = await grade(admin, attemptId, [{ question_id: text.id, awarded_points: "1.00" }]);
    expect(kept.body.data.saved_answers[1]).toMatchObject({ awarded_points: "1.00", feedback: "Perfect." });
    const cleared = await grade(admin, attemptId, [{ question_id: text.id, awarded_points: "1.00", feedback: null }, { question_id: choice.id, awarded_points: "1.00", feedback: "" }]);
    expect(cleared.body.data.saved_answers.map((a: { feedback: string | null }) => a.feedback)).toEqual([null, null]);
  });

  it("a failing grade completes nothing but tells the student; a staff member's own attempt settles and tells nobody", async () => {
    const { school, admin, student, text, attemptId } = await pendingAttempt({ passingScore: 100 });
    const res = await grade(admin, attemptId, [{ question_id: text.id, awarded_points: "1.99" }]);
    expect(res.body.data).toMatchObject({ score: "2.99", score_pct: "99.67", passed: false, pending_review: false });
    expect(await db().select().from(schema.blockCompletions).where(eq(schema.blockCompletions.studentId, student.id))).toEqual([]);
    // Graded and settled: the student is told even though the attempt failed.
    expect(await pushesOf(school.id, "quiz.graded")).toHaveLength(1);

    const curator = await signedIn(school, curatorWith({ can_view_analytics: true, can_manage_groups: true }));
    await addPushDevice(school.id, curator.id);
    const quiz = await insertQuiz(school.id, { questions: [{ type: "free_text" }] });
    const own = await submittedAttempt(school.id, quiz.id, curator.id, [{ questionId: quiz.questions[0]!.id, payload: { text: "x" }, awarded: null }], {
      actorRole: "curator",
      scoreHundredths: 0,
      maxScoreHundredths: 100,
      scorePctHundredths: 0,
      pendingReview: true,
      passed: null,
    });
    const staff = await grade(admin, own, [{ question_id: quiz.questions[0]!.id, awarded_points: "1" }]);
    expect(staff.body.data).toMatchObject({ actor_role: "curator", score: "1.00", passed: true, pending_review: false });
    expect(await pushesOf(school.id, "quiz.graded")).toHaveLength(1);
  });

  it("two concurrent gradings of the two pending answers settle the attempt with both and tell the student once", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    await addPushDevice(school.id, student.id);
    const quiz = await insertQuiz(school.id, { questions: [{ type: "free_text" }, { type: "free_text" }] });
    const [first, second] = quiz.questions;
    const attemptId = await submittedAttempt(
      school.id,
      quiz.id,
      student.id,
      [
        { questionId: first!.id, payload: { text: "one" }, awarded: null },
        { questionId: second!.id, payload: { text: "two" }, awarded: null },
      ],
      { scoreHundredths: 0, maxScoreHundredths: 200, scorePctHundredths: 0, pendingReview: true, passed: null },
    );
    const curator = await signedIn(school, curatorWith({ can_view_analytics: true, can_manage_groups: true }));
    // Held: each grading's write batch, until both have read the attempt with both answers pending.
    const barrier = barrierD1(await schoolD1(school.id), { held: /graded_by, graded_at, saved_at\)/, parties: 2 });
    const gradeVia = (member: { token: string; subdomain: string }, grades: unknown[]) =>
      requestWithD1(barrier.db, `/t/attempts/${attemptId}/grade`, { token: member.token, tenant: member.subdomain, body: { grades } });
    const responses = await Promise.all([
      gradeVia(admin, [{ question_id: first!.id, awarded_points: "1" }]),
      gradeVia(curator, [{ question_id: second!.id, awarded_points: "0.25" }]),
    ]);
    expect(barrier.stats.releases).toEqual([2]);
    expect(responses.map((res) => res.status)).toEqual([200, 200]);
    expect(await attemptRow(attemptId)).toMatchObject({ scoreHundredths: 125, scorePctHundredths: 6250, pendingReview: false, passed: true });
    expect(await pushesOf(school.id, "quiz.graded")).toHaveLength(1);
  });

  it("an attempt inside an exam section is graded and settled, but completes nothing and tells nobody here", async () => {
    const { school, admin, student, text, attemptId } = await pendingAttempt();
    await db().update(schema.quizAttempts).set({ examAttemptId: attemptId }).where(eq(schema.quizAttempts.id, attemptId));
    const res = await grade(admin, attemptId, [{ question_id: text.id, awarded_points: "2" }]);
    expect(res.body.data).toMatchObject({ score: "3.00", passed: true, pending_review: false });
    expect(await db().select().from(schema.blockCompletions).where(eq(schema.blockCompletions.studentId, student.id))).toEqual([]);
    expect(await pushesOf(school.id, "quiz.graded")).toEqual([]);
  });

  it("grades an answer to a question deleted since the attempt, so the attempt can settle", async () => {
    const { admin, text, attemptId } = await pendingAttempt();
    await db().update(schema.quizQuestions).set({ deletedAt: Date.now() }).where(eq(schema.quizQuestions.id, text.id));
    const res = await grade(admin, attemptId, [{ question_id: text.id, awarded_points: "2" }]);
    expect(res.body.data).toMatchObject({ score: "3.00", max_score: "3.00", passed: true, pending_review: false });
  });
});
