import { createMessageBatch, env } from "cloudflare:test";
import * as schema from "../../../src/db/schema";
import type { QueueMessage } from "../../../src/core/env";
import { jobContext } from "../../../src/contributors";
import { uuidv7 } from "../../../src/core/lib/ids";
import { handleItemAnalysisBatch, ITEM_ANALYSIS_QUEUE } from "../../../src/content/item-analysis/consumer";
import { db } from "../../helpers/factories";
import { rebuildQuizFigures } from "../../helpers/figures";
import { as, type Member } from "../../helpers/users";

export const itemAnalysis = (member: Member, quizId: string) => as(member, `/t/quizzes/${quizId}/item-analysis`);

/** What one attempt answered: question id → points awarded (hundredths) and the stored payload. */
export type AnswerSpec = [questionId: string, awardedHundredths: number, payload: Record<string, unknown>];

export interface PreparedAttempt {
  userId: string;
  scoreHundredths: number;
  maxScoreHundredths: number;
  answers: AnswerSpec[];
  formQuestionIds?: string[];
  actorRole?: "student" | "admin" | "curator";
  status?: "submitted" | "in_progress";
  pendingReview?: boolean;
}

/**
 * Writes the attempts in the order given with ascending ids (so "the earlier attempt" of the
 * discrimination's tie rule is the one given first), their answers, and the members' figures.
 */
export async function writeAttempts(tenantId: string, quizId: string, attempts: PreparedAttempt[]): Promise<string[]> {
  const ids = attempts.map(() => uuidv7()).sort();
  const now = Date.now();
  for (const [i, attempt] of attempts.entries()) {
    const submitted = (attempt.status ?? "submitted") === "submitted";
    await db()
      .insert(schema.quizAttempts)
      .values({
        id: ids[i]!,
        tenantId,
        quizId,
        userId: attempt.userId,
        actorRole: attempt.actorRole ?? "student",
        status: attempt.status ?? "submitted",
        startedAt: now - 120_000,
        submittedAt: submitted ? now - 60_000 : null,
        scoreHundredths: submitted ? attempt.scoreHundredths : null,
        maxScoreHundredths: attempt.maxScoreHundredths,
        scorePctHundredths: submitted ? Math.floor((attempt.scoreHundredths * 10_000) / attempt.maxScoreHundredths) : null,
        pendingReview: attempt.pendingReview ?? false,
        passed: submitted && !attempt.pendingReview ? attempt.scoreHundredths * 2 >= attempt.maxScoreHundredths : null,
        formSeed: attempt.formQuestionIds ? "00112233445566778899aabbccddeeff" : null,
        formQuestionIds: attempt.formQuestionIds ?? null,
        createdAt: now,
        updatedAt: now,
      });
    for (const [questionId, awarded, payload] of attempt.answers) {
      await db()
        .insert(schema.quizAttemptAnswers)
        .values({
          id: uuidv7(),
          tenantId,
          attemptId: ids[i]!,
          quizId,
          userId: attempt.userId,
          questionId,
          payload,
          awardedHundredths: awarded,
          isCorrect: awarded > 0,
          savedAt: now - 90_000,
        });
    }
  }
  for (const userId of new Set(attempts.map((attempt) => attempt.userId))) await rebuildQuizFigures(tenantId, quizId, userId);
  return ids;
}

/** Runs the queue's consumer on a recompute message for the quiz, as the queue would. */
export async function recompute(tenantId: string, quizId: string) {
  const batch = createMessageBatch<QueueMessage>(ITEM_ANALYSIS_QUEUE, [
    { id: uuidv7(), timestamp: new Date(), attempts: 1, body: { kind: "item_analysis", tenant_id: tenantId, quiz_id: quizId } },
  ] as never);
  await handleItemAnalysisBatch(batch, jobContext(env));
}
