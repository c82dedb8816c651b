import { runBatch } from "../../core/db/batch";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError, coreErrors } from "../../core/http/errors";
import { iso } from "../../core/lib/clock";
import { quizzesErrors } from "../quizzes/errors";
import { isStaff } from "../common/access";
import { finalizeJournal } from "./attempt-service";
import { attemptsErrors } from "./errors";
import { confirmJournal, deadlineCtx, journalQuestions, quizOfAttemptSql, scoringReads, writeFinalized } from "./finalize";
import { journal, journalStart } from "./journal";
import { remainingSeconds } from "./journal-state";
import { presentSubmitted, type AttemptView } from "./present";
import type { SaveAnswersBody } from "./schemas";

/**
 * Saving answers and submitting (docs/decisions/quizzes.md, "Quiz attempts"). A save is one call to the
 * attempt's journal and nothing in D1: the journal knows the owner, the questions and the deadline,
 * and checks every payload (its tokens included) before keeping anything. A submit reads what
 * scoring needs, closes the journal (exactly one of concurrent submits does), and writes the
 * scored answers, the attempt and its settling in one batch.
 */

/** POST /attempts/:id/answers. */
export async function saveAnswers(ctx: SchoolCtx, input: { id: string; body: SaveAnswersBody }) {
  const outcome = await journal.save(ctx, input.id, { tenantId: ctx.tenantId, userId: ctx.actor.userId, answers: input.body.answers });
  switch (outcome.outcome) {
    case "saved":
      return { saved: outcome.saved, ignored: outcome.ignored, server_now: iso(outcome.now), remaining_seconds: remainingSeconds(outcome.deadlineAt, outcome.now) };
    case "not_found":
      throw new ApiError(attemptsErrors.ATTEMPT_NOT_FOUND);
    case "quiz_gone":
      throw new ApiError(quizzesErrors.QUIZ_NOT_FOUND);
    case "question_not_in_quiz":
      throw new ApiError(attemptsErrors.QUESTION_NOT_IN_QUIZ, { message: `Question ${outcome.questionId} is not a question of this quiz.` });
    case "question_not_in_form":
      throw new ApiError(attemptsErrors.QUESTION_NOT_IN_FORM, { message: `Question ${outcome.questionId} is not a question of this attempt's form.` });
    case "invalid":
      throw new ApiError(coreErrors.INVALID_REQUEST_BODY, { message: outcome.message });
    case "closed_now":
      // This save came after the deadline and its grace: the attempt is finalized with what was saved before.
      await finalizeJournal(ctx, outcome.view);
      throw new ApiError(attemptsErrors.ATTEMPT_ALREADY_SUBMITTED);
    case "closed":
      throw new ApiError(attemptsErrors.ATTEMPT_ALREADY_SUBMITTED);
  }
}

/** POST /attempts/:id/submit (body ignored): the scored attempt. */
export async function submitAttempt(ctx: SchoolCtx, input: { id: string }): Promise<AttemptView> {
  const userId = ctx.actor.userId;
  // Settle's reads ride along for a student (only students' attempts complete blocks and notify).
  const target = isStaff(ctx.actor) ? null : { attemptId: input.id, quizId: quizOfAttemptSql(ctx, input.id), userId, actorRole: "student" as const };
  const reads = scoringReads(ctx, input.id, target);
  const data = reads.read(await runBatch(ctx, reads.statements));
  const attempt = data.attempt;
  // A section's quiz attempt finishes with its exam (POST /exam-attempts/:id/submit or the exam's timer), never on its own.
  if (!attempt || attempt.user_id !== userId || attempt.exam_attempt_id !== null) throw new ApiError(attemptsErrors.ATTEMPT_NOT_FOUND);
  if (attempt.status === "submitted") throw new ApiError(attemptsErrors.ATTEMPT_ALREADY_SUBMITTED);
  if (attempt.quiz_deleted_at !== null) {
    // Saves learn it from the journal, which they reach without reading D1.
    await journal.markQuizGone(ctx, input.id);
    throw new ApiError(quizzesErrors.QUIZ_NOT_FOUND);
  }
  const outcome = await journal.close(ctx, input.id, { tenantId: ctx.tenantId, userId, ensure: journalStart(ctx, attempt, journalQuestions(data.questions)) });
  if (outcome.outcome === "not_found") throw new ApiError(attemptsErrors.ATTEMPT_NOT_FOUND);
  if (outcome.outcome === "closed") throw new ApiError(attemptsErrors.ATTEMPT_ALREADY_SUBMITTED);
  const settleCtx = outcome.view.closure!.autoFinalized ? deadlineCtx(ctx) : ctx;
  const written = await writeFinalized(settleCtx, data, outcome.view);
  await confirmJournal(ctx, input.id);
  return presentSubmitted(written.row, written.answers, ctx.clock.now());
}
