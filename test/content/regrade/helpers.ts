import { createMessageBatch, env } from "cloudflare:test";
import { and, eq } from "drizzle-orm";
import { expect } from "vitest";
import * as schema from "../../../src/db/schema";
import type { Env, QueueMessage } from "../../../src/core/env";
import { jobContext } from "../../../src/contributors";
import { uuidv7 } from "../../../src/core/lib/ids";
import { handleRegradeBatch, REGRADE_QUEUE } from "../../../src/content/regrade/consumer";
import { db } from "../../helpers/factories";
import { rebuildExamFigures, rebuildQuizFigures } from "../../helpers/figures";
import { fixtureD1 } from "../../helpers/databases";
import { as, type Member } from "../../helpers/users";

/** Regrade calls and the reads their tests compare with recomputations (docs/decisions/regrade.md). */

export const regrade = (member: Member, questionId: string, body: unknown) => as(member, `/t/quiz-questions/${questionId}/regrade`, { method: "POST", body });

/** Runs the queue's consumer on a regrade's message, as the queue would (the tests' queue has no consumer); `withEnv` a wrapped env (a D1 barrier). */
export async function runChunk(tenantId: string, regradeId: string, questionId: string, withEnv: Env = env as Env) {
  const batch = createMessageBatch<QueueMessage>(REGRADE_QUEUE, [
    { id: uuidv7(), timestamp: new Date(), attempts: 1, body: { kind: "regrade", tenant_id: tenantId, regrade_id: regradeId, question_id: questionId } },
  ] as never);
  await handleRegradeBatch(batch, jobContext(withEnv));
}

export async function regradesOf(tenantId: string) {
  return db().select().from(schema.quizRegrades).where(eq(schema.quizRegrades.tenantId, tenantId));
}

/** The quiz's attempts by id: score %, max, pass (what a regrade changes). */
export async function attemptsOf(tenantId: string, quizId: string) {
  const rows = await db()
    .select()
    .from(schema.quizAttempts)
    .where(and(eq(schema.quizAttempts.tenantId, tenantId), eq(schema.quizAttempts.quizId, quizId)));
  return Object.fromEntries(
    rows.map((row) => [row.id, { score: row.scoreHundredths, max: row.maxScoreHundredths, pct: row.scorePctHundredths, passed: row.passed, pending: row.pendingReview }]),
  );
}

/**
 * The analytics after a regrade equal the analytics after rebuilding every member's figures from
 * the raw rows (the figures the attempts' own batches would have written).
 */
export async function expectFiguresRecomputed(admin: Member, quizId: string, userIds: readonly string[]) {
  const read = async () => {
    const out = [];
    for (const staff of [false, true]) out.push((await as(admin, `/t/quizzes/${quizId}/analytics?include_admin_attempts=${staff}`)).body.data);
    return out;
  };
  const kept = await read();
  for (const userId of userIds) await rebuildQuizFigures(admin.tenantId, quizId, userId);
  expect(kept).toEqual(await read());
}

/**
 * What the default quiz rule (raw, 10.00 points, overwrite_if_higher) gives a student for the quiz:
 * the highest half-up share over their settled student attempts outside exams.
 */
export async function recomputedQuizPoints(tenantId: string, quizId: string, studentId: string): Promise<number> {
  const rows = await db()
    .select()
    .from(schema.quizAttempts)
    .where(and(eq(schema.quizAttempts.tenantId, tenantId), eq(schema.quizAttempts.quizId, quizId), eq(schema.quizAttempts.userId, studentId)));
  const amounts = rows
    .filter((row) => row.status === "submitted" && !row.pendingReview && row.actorRole === "student" && row.examAttemptId === null)
    .map((row) => Math.floor((2 * 1000 * (row.scorePctHundredths ?? 0) + 10000) / 20000));
  return Math.max(0, ...amounts);
}

/** The student's points from the quiz's point events, and every event's sum against the stored total. */
export async function heldQuizPoints(tenantId: string, quizId: string, studentId: string): Promise<number> {
  const row = await fixtureD1
    .prepare("SELECT COALESCE(SUM(points_hundredths), 0) AS held FROM point_events WHERE tenant_id = ? AND student_id = ? AND source_type = 'quiz' AND target_id = ?")
    .bind(tenantId, studentId, quizId)
    .first<{ held: number }>();
  return row!.held;
}

export async function expectTotalsConsistent(tenantId: string, studentId: string) {
  const sum = await fixtureD1.prepare("SELECT COALESCE(SUM(points_hundredths), 0) AS s FROM point_events WHERE tenant_id = ? AND student_id = ?").bind(tenantId, studentId).first<{ s: number }>();
  const total = await fixtureD1.prepare("SELECT points_hundredths AS p FROM rating_totals WHERE tenant_id = ? AND student_id = ?").bind(tenantId, studentId).first<{ p: number }>();
  expect(total?.p ?? 0).toBe(sum!.s);
}

/** The exam analytics after a regrade equal those after rebuilding every member's figures from the raw rows. */
export async function expectExamFiguresRecomputed(admin: Member, examId: string, userIds: readonly string[]) {
  const read = async () => {
    const out = [];
    for (const staff of [false, true]) out.push((await as(admin, `/t/exams/${examId}/analytics?include_admin_attempts=${staff}`)).body.data);
    return out;
  };
  const kept = await read();
  for (const userId of userIds) await rebuildExamFigures(admin.tenantId, examId, userId);
  expect(kept).toEqual(await read());
}

/**
 * What the default exam rule (raw, 20.00 points, overwrite_if_higher) gives a student for the
 * exam: the highest half-up share over their finished student attempts.
 */
export async function recomputedExamPoints(tenantId: string, examId: string, studentId: string): Promise<number> {
  const rows = await db()
    .select()
    .from(schema.examAttempts)
    .where(and(eq(schema.examAttempts.tenantId, tenantId), eq(schema.examAttempts.examId, examId), eq(schema.examAttempts.userId, studentId)));
  const amounts = rows
    .filter((row) => row.status === "submitted" && row.actorRole === "student")
    .map((row) => Math.floor((2 * 2000 * (row.finalScorePctHundredths ?? 0) + 10000) / 20000));
  return Math.max(0, ...amounts);
}

/** The student's points from the exam's point events. */
export async function heldExamPoints(tenantId: string, examId: string, studentId: string): Promise<number> {
  const row = await fixtureD1
    .prepare("SELECT COALESCE(SUM(points_hundredths), 0) AS held FROM point_events WHERE tenant_id = ? AND student_id = ? AND source_type = 'exam' AND target_id = ?")
    .bind(tenantId, studentId, examId)
    .first<{ held: number }>();
  return row!.held;
}
