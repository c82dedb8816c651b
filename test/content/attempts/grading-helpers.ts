import { and, eq } from "drizzle-orm";
import * as schema from "../../../src/db/schema";
import { uuidv7 } from "../../../src/core/lib/ids";
import { db } from "../../helpers/factories";
import { rebuildQuizFigures } from "../../helpers/figures";
import { insertAttempt, type AttemptSpec } from "../../helpers/quizzes";
import { as, type Member } from "../../helpers/users";
import { outboxRows } from "../../notifications/helpers";

/** A stored answer of a finished attempt: `awarded` null waits for review. */
export interface StoredAnswer {
  questionId: string;
  payload: Record<string, unknown>;
  awarded: number | null;
  isCorrect?: boolean | null;
  feedback?: string | null;
}

/** A submitted attempt with its scored answers, as submit leaves it (written straight to D1). */
export async function submittedAttempt(tenantId: string, quizId: string, userId: string, answers: readonly StoredAnswer[], spec: AttemptSpec = {}) {
  const id = await insertAttempt(tenantId, quizId, userId, { status: "submitted", ...spec });
  const savedAt = Date.now() - 30_000;
  for (const answer of answers) {
    await db()
      .insert(schema.quizAttemptAnswers)
      .values({
        id: uuidv7(),
        tenantId,
        attemptId: id,
        quizId,
        userId,
        questionId: answer.questionId,
        payload: answer.payload,
        awardedHundredths: answer.awarded,
        isCorrect: answer.isCorrect !== undefined ? answer.isCorrect : answer.awarded === null ? null : false,
        feedback: answer.feedback ?? null,
        savedAt,
      });
  }
  if (!spec.examAttemptId) await rebuildQuizFigures(tenantId, quizId, userId);
  return id;
}

export const grade = (member: Member, attemptId: string, grades: unknown[]) => as(member, `/t/attempts/${attemptId}/grade`, { body: { grades } });

export async function attemptRow(id: string) {
  const [row] = await db().select().from(schema.quizAttempts).where(eq(schema.quizAttempts.id, id));
  return row!;
}

export async function answerRow(attemptId: string, questionId: string) {
  const [row] = await db()
    .select()
    .from(schema.quizAttemptAnswers)
    .where(and(eq(schema.quizAttemptAnswers.attemptId, attemptId), eq(schema.quizAttemptAnswers.questionId, questionId)));
  return row;
}

export async function pushesOf(tenantId: string, code: string) {
  return (await outboxRows(tenantId)).filter((row) => row.eventCode === code);
}
