import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import type { ExamAttemptTimer } from "../../../durable-objects/exam-attempt-timer";
import { setClockForTests } from "../../../src/core/lib/clock";
import * as schema from "../../../src/db/schema";
import { db } from "../../helpers/factories";
import { insertExam, type ExamSpec } from "../../helpers/exams";
import { insertQuiz, type QuizSpec } from "../../helpers/quizzes";
import { as, schoolWithAdmin, signedIn, type Member } from "../../helpers/users";

/**
 * Fixtures and calls of the exam attempt tests. The default exam has two sections: "A" (weight 1)
 * is a quiz of one single-choice question (1 point), "B" (weight 3) a quiz of two single-choice
 * questions (1 point each); the first answer of each question is the right one.
 */

export interface ExamSetup {
  school: { id: string; subdomain: string };
  admin: Member;
  student: Member;
  exam: Awaited<ReturnType<typeof insertExam>>;
  quizzes: Awaited<ReturnType<typeof insertQuiz>>[];
}

export async function examForStudent(
  spec: Omit<ExamSpec, "sections"> = {},
  sections: { quiz?: QuizSpec; weight?: number; title?: string }[] = [
    { quiz: { questions: [{ type: "single" }] }, weight: 1, title: "A" },
    { quiz: { questions: [{ type: "single" }, { type: "single" }] }, weight: 3, title: "B" },
  ],
): Promise<ExamSetup> {
  const { school, admin } = await schoolWithAdmin();
  const student = await signedIn(school, { role: "student" });
  const quizzes: ExamSetup["quizzes"] = [];
  for (const section of sections) quizzes.push(await insertQuiz(school.id, section.quiz ?? { questions: [{ type: "single" }] }));
  const exam = await insertExam(school.id, {
    title: "Final exam",
    ...spec,
    sections: sections.map((section, i) => ({ quizId: quizzes[i]!.id, weight: section.weight ?? 1, title: section.title ?? `Section ${i + 1}` })),
  });
  return { school, admin, student, exam, quizzes };
}

export const startExam = (member: Member, examId: string) => as(member, "/t/exam-attempts", { method: "POST", body: { exam_id: examId } });
export const activeExam = (member: Member, examId: string) => as(member, `/t/exam-attempts/active?exam_id=${examId}`);
export const readExamAttempt = (member: Member, id: string) => as(member, `/t/exam-attempts/${id}`);
export const go = (member: Member, id: string, sectionIndex: unknown) => as(member, `/t/exam-attempts/${id}/go`, { method: "POST", body: { section_index: sectionIndex } });
export const saveSection = (member: Member, id: string, n: number | string, answers: unknown[]) =>
  as(member, `/t/exam-attempts/${id}/sections/${n}/answers`, { method: "POST", body: { answers } });
export const submitExam = (member: Member, id: string, body?: unknown) => as(member, `/t/exam-attempts/${id}/submit`, { method: "POST", ...(body === undefined ? {} : { body }) });

/** Starts an attempt and returns its id, failing loudly otherwise. */
export async function startedExam(member: Member, examId: string): Promise<string> {
  const res = await startExam(member, examId);
  if (res.status !== 201 && res.status !== 200) throw new Error(`start failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.id as string;
}

/** Opens a section, failing loudly otherwise; the `go` data. */
export async function opened(member: Member, id: string, sectionIndex: number) {
  const res = await go(member, id, sectionIndex);
  if (res.status !== 200) throw new Error(`go failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

/** A single-choice answer: the right one (the first answer) or the wrong one. */
export const single = (question: { id: string; answerIds: string[] }, right: boolean, clientSeq?: number) => ({
  question_id: question.id,
  payload: { answer_ids: [question.answerIds[right ? 0 : 1]] },
  ...(clientSeq === undefined ? {} : { client_seq: clientSeq }),
});

/** Time as the services, the journals and the timers see it, running `ms` ahead of the real clock. */
export function moveClock(ms: number): void {
  setClockForTests({ now: () => Date.now() + ms });
}

/** Moves the services' clock to `at + ms` (relative to the real clock, so it keeps running). */
export const clockTo = (at: number, ms = 0) => moveClock(at + ms - Date.now());

export const GRACE_MS = 15_000;

export function timerStub(id: string) {
  return env.EXAM_TIMER.get(env.EXAM_TIMER.idFromName(id)) as DurableObjectStub<ExamAttemptTimer>;
}

export async function examAttemptRow(id: string) {
  const [row] = await db().select().from(schema.examAttempts).where(eq(schema.examAttempts.id, id));
  return row!;
}

export async function examAttemptsOf(examId: string) {
  return db().select().from(schema.examAttempts).where(eq(schema.examAttempts.examId, examId));
}

export async function sectionQuizAttempts(examAttemptId: string) {
  return db().select().from(schema.quizAttempts).where(eq(schema.quizAttempts.examAttemptId, examAttemptId));
}

export async function sectionAttemptRows(examAttemptId: string) {
  return db().select().from(schema.examSectionAttempts).where(eq(schema.examSectionAttempts.examAttemptId, examAttemptId));
}

export async function answersOf(quizAttemptId: string) {
  return db().select().from(schema.quizAttemptAnswers).where(eq(schema.quizAttemptAnswers.attemptId, quizAttemptId));
}
