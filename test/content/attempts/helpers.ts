import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import * as schema from "../../../src/db/schema";
import type { Env } from "../../../src/core/env";
import { setClockForTests } from "../../../src/core/lib/clock";
import { sealMatchToken } from "../../../src/content/quizzes/match-tokens";
import { db } from "../../helpers/factories";
import { giveQuizAccess, insertQuiz, type QuizSpec } from "../../helpers/quizzes";
import { as, schoolWithAdmin, signedIn, type Member } from "../../helpers/users";

/** A student with access to a quiz (through an enrolled course), the school's admin, the quiz and its course. */
export async function quizForStudent(spec: QuizSpec = { questions: [{ type: "single" }] }) {
  const { school, admin } = await schoolWithAdmin();
  const student = await signedIn(school, { role: "student" });
  const quiz = await insertQuiz(school.id, spec);
  const tree = await giveQuizAccess(school.id, quiz.id, [student.id]);
  return { school, admin, student, quiz, tree };
}

export const start = (member: Member, quizId: string) => as(member, "/t/attempts", { method: "POST", body: { quiz_id: quizId } });
export const read = (member: Member, attemptId: string) => as(member, `/t/attempts/${attemptId}`);
export const save = (member: Member, attemptId: string, answers: unknown[]) => as(member, `/t/attempts/${attemptId}/answers`, { method: "POST", body: { answers } });
export const submit = (member: Member, attemptId: string, body?: unknown) => as(member, `/t/attempts/${attemptId}/submit`, { method: "POST", ...(body === undefined ? {} : { body }) });

/** Starts an attempt and returns its id, failing loudly otherwise. */
export async function started(member: Member, quizId: string): Promise<string> {
  const res = await start(member, quizId);
  if (res.status !== 201 && res.status !== 200) throw new Error(`start failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.id as string;
}

/** A token of the student view for a match row (what `match_rights[].id` carries). */
export const tokenFor = (tenantId: string, questionId: string, matchId: string) => sealMatchToken(env as Env, tenantId, questionId, matchId);

/** Time as the services (and the journals, in the same isolate) see it, running `ms` ahead of the real clock. */
export function moveClock(ms: number): void {
  setClockForTests({ now: () => Date.now() + ms });
}

/** Fixes the services' clock at `at` (epoch ms). */
export function clockAt(at: number): void {
  setClockForTests({ now: () => at });
}

export async function attemptRow(id: string) {
  const [row] = await db().select().from(schema.quizAttempts).where(eq(schema.quizAttempts.id, id));
  return row;
}

export async function answerRows(attemptId: string) {
  return db().select().from(schema.quizAttemptAnswers).where(eq(schema.quizAttemptAnswers.attemptId, attemptId));
}
