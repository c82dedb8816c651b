import * as schema from "../../../src/db/schema";
import { uuidv7 } from "../../../src/core/lib/ids";
import { db } from "../../helpers/factories";
import { rebuildQuizFigures } from "../../helpers/figures";
import { insertAttempt, type AttemptSpec } from "../../helpers/quizzes";
import { as, type Member } from "../../helpers/users";

/** For quiz analytics: attempts with their answers written straight to D1. */

export const ZERO_BUCKETS = Array.from({ length: 10 }, (_, bucket) => ({ bucket, count: 0 }));

export function buckets(counts: Record<number, number>) {
  return ZERO_BUCKETS.map(({ bucket }) => ({ bucket, count: counts[bucket] ?? 0 }));
}

export const analytics = (member: Member, quizId: string, query = "") => as(member, `/t/quizzes/${quizId}/analytics${query}`);

/** An answer's verdict: true (full points), false, or null (waiting for a review). */
export type Verdict = boolean | null;

/** An attempt of the quiz with an answer row per entry of `answers` (question id → verdict). */
export async function attemptWithAnswers(tenantId: string, quizId: string, userId: string, spec: AttemptSpec, answers: [string, Verdict][] = []): Promise<string> {
  const attemptId = await insertAttempt(tenantId, quizId, userId, spec);
  await insertAnswers(tenantId, quizId, userId, attemptId, answers);
  return attemptId;
}

export async function insertAnswers(tenantId: string, quizId: string, userId: string, attemptId: string, answers: [string, Verdict][]) {
  for (const [questionId, verdict] of answers) {
    await db()
      .insert(schema.quizAttemptAnswers)
      .values({
        id: uuidv7(),
        tenantId,
        attemptId,
        quizId,
        userId,
        questionId,
        payload: {},
        awardedHundredths: verdict === null ? null : verdict ? 100 : 0,
        isCorrect: verdict,
        savedAt: Date.now() - 30_000,
      });
  }
  await rebuildQuizFigures(tenantId, quizId, userId);
}

/** A submitted, settled attempt at `pct` hundredths of a percent. */
export const settled = (pct: number, passed: boolean | null = pct >= 6000): AttemptSpec => ({ scoreHundredths: pct, maxScoreHundredths: 10_000, scorePctHundredths: pct, passed });
