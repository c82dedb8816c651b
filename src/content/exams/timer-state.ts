import { MINUTE_MS } from "../../core/lib/clock";
import type { Closure } from "../attempts/journal-state";

/**
 * What an exam attempt's ExamAttemptTimer keeps, and its rules, pure (the object adds storage,
 * alarms and the clock). The deadline and its grace follow the quiz journal's rules
 * (src/content/attempts/journal-state.ts: `pastGrace`, `finalizeAt`, `closureAt`): saves count
 * until `deadline_at` + grace, the first read, save, submit or alarm after that closes the attempt
 * as auto-finalized with `submitted_at` = `deadline_at`, and the close is a compare-and-set.
 */

export interface TimerStart {
  tenantId: string;
  examAttemptId: string;
  examId: string;
  userId: string;
  actorRole: "student" | "curator" | "admin";
  startedAt: number;
  deadlineAt: number;
  graceMs: number;
  timeLimitSeconds: number;
}

/** The timer as the worker receives it. */
export interface TimerView {
  start: TimerStart;
  closure: Closure | null;
  now: number;
}

/** The warning goes this long before the deadline… */
export const WARNING_LEAD_MS = 5 * MINUTE_MS;
/** …for time limits above this (a 10-minute exam gets no warning). */
export const WARNING_MIN_LIMIT_SECONDS = 600;

/** When #43 `exam.time_warning` is due; null when the time limit is 10 minutes or less. */
export function warningAt(start: Pick<TimerStart, "deadlineAt" | "timeLimitSeconds">): number | null {
  return start.timeLimitSeconds > WARNING_MIN_LIMIT_SECONDS ? start.deadlineAt - WARNING_LEAD_MS : null;
}

// What the ExamAttemptTimer object (durable-objects/exam-attempt-timer.ts) answers, here so that
// ./timer.ts calls the object through its binding without importing the object's class.

export type TimerReadOutcome = { outcome: "not_found" } | { outcome: "open" | "closed" | "closed_now"; view: TimerView; confirmed: boolean };

export type TimerCloseOutcome = { outcome: "not_found" } | { outcome: "closed"; confirmed: boolean } | { outcome: "closed_now"; view: TimerView };

/** An extension of the exam's deadline (docs/decisions/accommodations.md, "Live extensions"). */
export type TimerExtendOutcome =
  | { outcome: "not_found" }
  | { outcome: "closed"; confirmed: boolean }
  | { outcome: "closed_now"; view: TimerView }
  | { outcome: "extended"; previousDeadlineAt: number; view: TimerView };

export interface TimerExtendInput {
  tenantId: string;
  ensure?: TimerStart;
  addMs: number;
  /** The quiz attempts of the sections opened so far: their journals follow the exam's new deadline. */
  sectionAttemptIds: string[];
}

/** The object's RPC methods as the worker calls them; the class implements this interface. */
export interface ExamAttemptTimerRpc {
  extend(input: TimerExtendInput): Promise<TimerExtendOutcome>;
  read(caller: { tenantId: string; userId?: string; ensure?: TimerStart }): Promise<TimerReadOutcome>;
  close(caller: { tenantId: string; userId?: string; ensure?: TimerStart }): Promise<TimerCloseOutcome>;
  confirm(): Promise<void>;
}
