import type { ServiceContext } from "../../core/http/context";
import type { AttemptJournalRpc, CloseOutcome, ExtendInput, ExtendOutcome, JournalQuestion, JournalStart, SaveItem, SaveOutcome, ViewOutcome } from "./journal-state";
import type { AttemptRow } from "./present";
import { formQuestions, undrawnIds } from "./form";

/**
 * The worker's side of an attempt's AttemptJournal (one object per attempt, named by its id).
 * Answer payloads are free-form JSON, which the RPC stub's types cannot express, so the stub is
 * typed by the object's interface (`AttemptJournalRpc`, ./journal-state.ts), not by its class.
 */

function journalOf(ctx: Pick<ServiceContext, "env">, attemptId: string) {
  const namespace = ctx.env.ATTEMPT_JOURNAL;
  return namespace.get(namespace.idFromName(attemptId)) as unknown as AttemptJournalRpc;
}

export const journal = {
  /** The journal for a read; `ensure` starts it when its start call was lost. Past grace the read closes it. */
  async read(ctx: Pick<ServiceContext, "env">, attemptId: string, input: { tenantId: string; ensure?: JournalStart }): Promise<ViewOutcome> {
    return await journalOf(ctx, attemptId).read(input);
  },
  /** `viaExam`: the exam's section save; a section's journal answers nothing else (its answers count only through the exam). */
  async save(ctx: Pick<ServiceContext, "env">, attemptId: string, input: { tenantId: string; userId: string; answers: SaveItem[]; viaExam?: boolean }): Promise<SaveOutcome> {
    return await journalOf(ctx, attemptId).save(input);
  },
  /** The submit's compare-and-set close. */
  async close(ctx: Pick<ServiceContext, "env">, attemptId: string, input: { tenantId: string; userId: string; ensure: JournalStart }): Promise<CloseOutcome> {
    return await journalOf(ctx, attemptId).close(input);
  },
  /** Moves the deadline and the alarm (an extension). */
  async extend(ctx: Pick<ServiceContext, "env">, attemptId: string, input: ExtendInput): Promise<ExtendOutcome> {
    return await journalOf(ctx, attemptId).extend(input);
  },
  async confirm(ctx: Pick<ServiceContext, "env">, attemptId: string): Promise<void> {
    await journalOf(ctx, attemptId).confirm();
  },
  async markQuizGone(ctx: Pick<ServiceContext, "env">, attemptId: string): Promise<void> {
    await journalOf(ctx, attemptId).markQuizGone();
  },
};

/**
 * What the journal is started with, from the attempt row and the quiz's live questions in order:
 * the attempt's form of them when it has one, so every caller starts the same journal.
 */
export function journalStart(ctx: Pick<ServiceContext, "config">, row: AttemptRow, questions: readonly JournalQuestion[]): JournalStart {
  return {
    tenantId: row.tenant_id,
    attemptId: row.id,
    quizId: row.quiz_id,
    userId: row.user_id,
    actorRole: row.actor_role,
    examAttemptId: row.exam_attempt_id,
    startedAt: row.started_at,
    deadlineAt: row.deadline_at,
    graceMs: ctx.config.attemptGraceMs,
    questions: formQuestions(row, questions).map((question) => ({ id: question.id, type: question.type })),
    ...(row.form_seed !== null ? { undrawn: undrawnIds(row, questions.map((question) => question.id)) } : {}),
  };
}
