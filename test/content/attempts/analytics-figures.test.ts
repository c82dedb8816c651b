import { and, eq, isNull } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";
import { setClockForTests } from "../../../src/core/lib/clock";
import { db } from "../../helpers/factories";
import { giveQuizAccess } from "../../helpers/quizzes";
import { as, signedIn, type Member } from "../../helpers/users";
import { grade } from "./grading-helpers";
import { attemptRow, quizForStudent, read, save, started, submit } from "./helpers";
import { examForStudent, opened, saveSection, single, startedExam, submitExam } from "../exams/attempt-helpers";

/**
 * The quiz and exam analytics read figures kept per member by the write batches of the attempts
 * (docs/decisions/heavy-reads.md, "Analytics aggregates"). After every kind of event that changes
 * them, the response equals a recomputation written here over the raw rows (attempts, answers,
 * sections, members), for students only and with staff attempts.
 */

afterEach(() => setClockForTests(null));

/** Hundredths as the API's decimal text. */
const text = (hundredths: number) => `${Math.floor(hundredths / 100)}.${String(hundredths % 100).padStart(2, "0")}`;
/** `sum / count` rounded half-up (non-negative values). */
const halfUp = (sum: number, count: number) => Math.floor((2 * sum + count) / (2 * count));
const rate = (part: number, whole: number) => (whole === 0 ? null : text(Math.min(10_000, halfUp(10_000 * part, whole))));
const mean = (sum: number, count: number) => (count === 0 ? null : text(halfUp(sum, count)));
const bucketsOf = (pcts: number[]) =>
  Array.from({ length: 10 }, (_, bucket) => ({ bucket, count: pcts.filter((pct) => Math.min(9, Math.floor(pct / 1000)) === bucket).length }));

async function liveMembers(tenantId: string): Promise<Set<string>> {
  const rows = await db()
    .select({ id: schema.users.id })
    .from(schema.users)
    .where(and(eq(schema.users.tenantId, tenantId), isNull(schema.users.deletedAt)));
  return new Set(rows.map((row) => row.id));
}

async function quizRecomputed(tenantId: string, quizId: string, includeStaff: boolean) {
  const live = await liveMembers(tenantId);
  const [quiz] = await db().select().from(schema.quizzes).where(eq(schema.quizzes.id, quizId));
  const attempts = (await db().select().from(schema.quizAttempts).where(eq(schema.quizAttempts.quizId, quizId))).filter(
    (a) => a.tenantId === tenantId && a.examAttemptId === null && live.has(a.userId) && (includeStaff || a.actorRole === "student"),
  );
  const settled = attempts.filter((a) => a.status === "submitted" && !a.pendingReview);
  const pcts = settled.map((a) => a.scorePctHundredths ?? 0);
  const settledIds = new Set(settled.map((a) => a.id));
  const answers = (await db().select().from(schema.quizAttemptAnswers).where(eq(schema.quizAttemptAnswers.quizId, quizId))).filter((ans) => settledIds.has(ans.attemptId));
  const questions = (await db().select().from(schema.quizQuestions).where(eq(schema.quizQuestions.quizId, quizId)))
    .filter((q) => q.deletedAt === null)
    .sort((x, y) => x.position - y.position || (x.id < y.id ? -1 : 1));
  const submitted = attempts.filter((a) => a.status === "submitted").length;
  return {
    quiz_id: quizId,
    attempt_count: attempts.length,
    submitted_count: submitted,
    completion_rate: rate(submitted, attempts.length),
    avg_score_pct: mean(pcts.reduce((s, p) => s + p, 0), pcts.length),
    max_score_pct: pcts.length === 0 ? null : text(Math.max(...pcts)),
    min_score_pct: pcts.length === 0 ? null : text(Math.min(...pcts)),
    pass_rate: quiz!.passingScore === null ? null : rate(settled.filter((a) => a.passed === true).length, settled.length),
    per_question: questions.map((q) => {
      const of = answers.filter((ans) => ans.questionId === q.id);
      const correct = of.filter((ans) => ans.isCorrect === true).length;
      return { question_id: q.id, answered: of.length, correct, success_rate: rate(correct, of.length) };
    }),
    score_distribution: bucketsOf(pcts),
  };
}

async function examRecomputed(tenantId: string, examId: string, includeStaff: boolean) {
  const live = await liveMembers(tenantId);
  const [exam] = await db().select().from(schema.exams).where(eq(schema.exams.id, examId));
  const attempts = (await db().select().from(schema.examAttempts).where(eq(schema.examAttempts.examId, examId))).filter(
    (a) => a.tenantId === tenantId && live.has(a.userId) && (includeStaff || a.actorRole === "student"),
  );
  const submitted = attempts.filter((a) => a.status === "submitted");
  const pcts = submitted.map((a) => a.finalScorePctHundredths ?? 0);
  const sections = (await db().select().from(schema.examSections).where(eq(schema.examSections.examId, examId)))
    .filter((s) => s.deletedAt === null)
    .sort((x, y) => x.position - y.position || (x.id < y.id ? -1 : 1));
  const perSection = [];
  for (const section of sections) {
    let sum = 0;
    for (const attempt of submitted) {
      const links = (await db().select().from(schema.examSectionAttempts).where(eq(schema.examSectionAttempts.examAttemptId, attempt.id))).filter(
        (link) => link.examSectionId === section.id,
      );
      for (const link of links) {
        const [qa] = await db().select().from(schema.quizAttempts).where(eq(schema.quizAttempts.id, link.quizAttemptId));
        const max = qa?.examAttemptId === attempt.id ? (qa.maxScoreHundredths ?? 0) : 0;
        if (max > 0) sum += Math.min(10_000, halfUp(10_000 * Math.max(qa!.scoreHundredths ?? 0, 0), max));
      }
    }
    perSection.push({ section_id: section.id, title: section.title, weight: section.weight, avg_score_pct: mean(sum, submitted.length) });
  }
  const passed = submitted.filter((a) => a.passed === true).length;
  return {
    exam_id: examId,
    attempt_count: attempts.length,
    submitted_count: submitted.length,
    passed_count: passed,
    pass_rate: exam!.passingScore === null ? null : rate(passed, submitted.length),
    avg_score_pct: mean(pcts.reduce((s, p) => s + p, 0), pcts.length),
    max_score_pct: pcts.length === 0 ? null : text(Math.max(...pcts)),
    min_score_pct: pcts.length === 0 ? null : text(Math.min(...pcts)),
    per_section: perSection,
    score_distribution: bucketsOf(pcts),
  };
}

async function expectQuizRecomputed(admin: Member, quizId: string) {
  for (const includeStaff of [false, true]) {
    const res = await as(admin, `/t/quizzes/${quizId}/analytics?include_admin_attempts=${includeStaff}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(await quizRecomputed(admin.tenantId, quizId, includeStaff));
  }
}

async function expectExamRecomputed(admin: Member, examId: string) {
  for (const includeStaff of [false, true]) {
    const res = await as(admin, `/t/exams/${examId}/analytics?include_admin_attempts=${includeStaff}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(await examRecomputed(admin.tenantId, examId, includeStaff));
  }
}

describe("analytics figures equal the recomputation after every event", () => {
  it("quiz: start, submit (pending review), grading, deadline settle, staff attempt, regrade, question edit and deletion, member deletion, quiz deletion", async () => {
    const setup = await quizForStudent({
      passingScore: 60,
      timeLimitSeconds: 600,
      questions: [{ type: "single" }, { type: "single" }, { type: "free_text", correctText: ["yes"] }],
    });
    const { school, admin, student, quiz } = setup;
    const [q1, q2, q3] = quiz.questions;
    const late = await signedIn(school, { role: "student" });
    await giveQuizAccess(school.id, quiz.id, [late.id]);
    await expectQuizRecomputed(admin, quiz.id);

    // Start: an attempt in progress counts in attempt_count only.
    const first = await started(student, quiz.id);
    await expectQuizRecomputed(admin, quiz.id);

    // Submit with a free-text answer waiting for review: submitted, not settled.
    await save(student, first, [
      { question_id: q1!.id, payload: { answer_ids: [q1!.answerIds[0]] } },
      { question_id: q2!.id, payload: { answer_ids: [q2!.answerIds[1]] } },
      { question_id: q3!.id, payload: { text: "maybe" } },
    ]);
    expect((await submit(student, first)).status).toBe(200);
    expect((await attemptRow(first))!.pendingReview).toBe(true);
    await expectQuizRecomputed(admin, quiz.id);

    // Grading the last pending answer settles it.
    expect((await grade(admin, first, [{ question_id: q3!.id, awarded_points: "0.50" }])).status).toBe(200);
    expect((await attemptRow(first))!.pendingReview).toBe(false);
    await expectQuizRecomputed(admin, quiz.id);

    // A regrade of the settled attempt moves its score and bucket.
    expect((await grade(admin, first, [{ question_id: q3!.id, awarded_points: "1" }])).status).toBe(200);
    await expectQuizRecomputed(admin, quiz.id);

    // Settled by its deadline: a read past the deadline and its grace finalizes what was saved.
    const timed = await started(late, quiz.id);
    await save(late, timed, [{ question_id: q1!.id, payload: { answer_ids: [q1!.answerIds[0]] } }]);
    const deadline = (await attemptRow(timed))!.deadlineAt!;
    setClockForTests({ now: () => deadline + 60_000 });
    expect((await read(late, timed)).body.data).toMatchObject({ status: "submitted", auto_finalized: true });
    setClockForTests(null);
    await expectQuizRecomputed(admin, quiz.id);

    // A second attempt of the first student, all right; a staff attempt counted only on request.
    const second = await started(student, quiz.id);
    await save(student, second, [
      { question_id: q1!.id, payload: { answer_ids: [q1!.answerIds[0]] } },
      { question_id: q2!.id, payload: { answer_ids: [q2!.answerIds[0]] } },
    ]);
    expect((await submit(student, second)).status).toBe(200);
    const staff = await started(admin, quiz.id);
    await save(admin, staff, [{ question_id: q2!.id, payload: { answer_ids: [q2!.answerIds[0]] } }]);
    expect((await submit(admin, staff)).status).toBe(200);
    await expectQuizRecomputed(admin, quiz.id);

    // Question edit and deletion: the deleted question leaves per_question, nothing else moves.
    expect((await as(admin, `/t/quiz-questions/${q1!.id}`, { method: "PATCH", body: { prompt: "Edited" } })).status).toBe(200);
    await expectQuizRecomputed(admin, quiz.id);
    expect((await as(admin, `/t/quiz-questions/${q2!.id}`, { method: "DELETE" })).status).toBe(204);
    await expectQuizRecomputed(admin, quiz.id);

    // A deleted member's attempts stop counting.
    await db().update(schema.users).set({ deletedAt: Date.now() }).where(eq(schema.users.id, late.id));
    await expectQuizRecomputed(admin, quiz.id);

    // A deleted quiz has no analytics.
    expect((await as(admin, `/t/quizzes/${quiz.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await as(admin, `/t/quizzes/${quiz.id}/analytics`)).status).toBe(404);
  });

  it("exam: start, finish by submit, a section graded after the finish, a staff attempt", async () => {
    const { school, admin, student, exam, quizzes } = await examForStudent({ timeLimitSeconds: 1800, passingScore: 60 }, [
      { quiz: { questions: [{ type: "single" }] }, weight: 1, title: "A" },
      { quiz: { questions: [{ type: "single" }, { type: "free_text", correctText: ["yes"] }] }, weight: 3, title: "B" },
    ]);
    const other = await signedIn(school, { role: "student" });
    await expectExamRecomputed(admin, exam.id);

    const id = await startedExam(student, exam.id);
    await expectExamRecomputed(admin, exam.id);

    await opened(student, id, 0);
    await saveSection(student, id, 0, [single(quizzes[0]!.questions[0]!, true)]);
    await opened(student, id, 1);
    const [b1, b2] = quizzes[1]!.questions;
    await saveSection(student, id, 1, [single(b1!, false), { question_id: b2!.id, payload: { text: "maybe" } }]);
    expect((await submitExam(student, id)).status).toBe(200);
    await expectExamRecomputed(admin, exam.id);

    // Grading the section's free-text answer changes that section's mean.
    const [section] = await db().select().from(schema.examSectionAttempts).where(and(eq(schema.examSectionAttempts.examAttemptId, id), eq(schema.examSectionAttempts.position, 1)));
    expect((await grade(admin, section!.quizAttemptId, [{ question_id: b2!.id, awarded_points: "1" }])).status).toBe(200);
    await expectExamRecomputed(admin, exam.id);

    // Another student finishes with nothing opened; a staff attempt counts only on request.
    const empty = await startedExam(other, exam.id);
    expect((await submitExam(other, empty)).status).toBe(200);
    const staff = await startedExam(admin, exam.id);
    await opened(admin, staff, 0);
    await saveSection(admin, staff, 0, [single(quizzes[0]!.questions[0]!, true)]);
    expect((await submitExam(admin, staff)).status).toBe(200);
    await expectExamRecomputed(admin, exam.id);
  });
});
