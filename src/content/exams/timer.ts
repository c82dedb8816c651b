import type { ServiceContext } from "../../core/http/context";
import type { ExamAttemptRow } from "./attempt-present";
import type { ExamAttemptTimerRpc, TimerCloseOutcome, TimerExtendInput, TimerExtendOutcome, TimerReadOutcome, TimerStart } from "./timer-state";

/** The worker's side of an exam attempt's ExamAttemptTimer (one object per attempt, named by its id). */

type Ctx = Pick<ServiceContext, "env">;

function timerOf(ctx: Ctx, examAttemptId: string) {
  const namespace = ctx.env.EXAM_TIMER;
  return namespace.get(namespace.idFromName(examAttemptId)) as unknown as ExamAttemptTimerRpc;
}

export const timer = {
  /** The timer for a read; `ensure` starts it when its start call was lost. Past grace the read closes it. */
  async read(ctx: Ctx, examAttemptId: string, input: { tenantId: string; userId?: string; ensure?: TimerStart }): Promise<TimerReadOutcome> {
    return await timerOf(ctx, examAttemptId).read(input);
  },
  /** The submit's compare-and-set close. */
  async close(ctx: Ctx, examAttemptId: string, input: { tenantId: string; userId: string; ensure: TimerStart }): Promise<TimerCloseOutcome> {
    return await timerOf(ctx, examAttemptId).close(input);
  },
  /** Moves the deadline, the alarms and the opened sections' journals (an extension). */
  async extend(ctx: Ctx, examAttemptId: string, input: TimerExtendInput): Promise<TimerExtendOutcome> {
    return await timerOf(ctx, examAttemptId).extend(input);
  },
  async confirm(ctx: Ctx, examAttemptId: string): Promise<void> {
    await timerOf(ctx, examAttemptId).confirm();
  },
};

/** What the timer is started with, from the attempt row (its own time limit: an exam edited since does not change it). */
export function timerStart(ctx: Pick<ServiceContext, "config">, row: ExamAttemptRow): TimerStart {
  return {
    tenantId: row.tenant_id,
    examAttemptId: row.id,
    examId: row.exam_id,
    userId: row.user_id,
    actorRole: row.actor_role,
    startedAt: row.started_at,
    deadlineAt: row.deadline_at,
    graceMs: ctx.config.attemptGraceMs,
    timeLimitSeconds: Math.round((row.deadline_at - row.started_at) / 1000),
  };
}
