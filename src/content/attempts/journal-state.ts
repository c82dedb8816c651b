import type { QuestionType } from "../../db/schema";

/**
 * The state an attempt's AttemptJournal keeps while the attempt is in progress, and the rules
 * over it, pure (the object adds storage and the clock):
 * - per question the answer with the highest `client_seq` is kept; an item without one is newer
 *   than everything saved before it; an item whose `client_seq` is at or below the highest one
 *   seen for its question is ignored (a late replay of an older save never wins, a replay of the
 *   same save is harmless);
 * - saves count until `deadline_at` + grace; the first save, read, submit or alarm after that
 *   closes the journal as auto-finalized, with `submitted_at` = `deadline_at`;
 * - the journal closes once: the close is a compare-and-set with no await between the check and
 *   the write, so of concurrent submits exactly one scores.
 */

export interface JournalQuestion {
  id: string;
  type: QuestionType;
}

/** What the attempt's object is started with (from the attempt row and the quiz's questions at start). */
export interface JournalStart {
  tenantId: string;
  attemptId: string;
  quizId: string;
  userId: string;
  actorRole: "student" | "curator" | "admin";
  /** Set for the quiz attempt of an exam section: its finalize by the deadline then settles nothing beyond the scores. */
  examAttemptId?: string | null;
  startedAt: number;
  deadlineAt: number | null;
  graceMs: number;
  /** The attempt's questions: its form's when it has one (docs/decisions/quizzes.md, "Random forms"). */
  questions: JournalQuestion[];
  /** Live questions of the quiz its form left out: a save naming one is `question_not_in_form`. */
  undrawn?: string[];
}

export interface JournalEntry {
  questionId: string;
  /** As the client sent it (matching tokens included). */
  payload: Record<string, unknown>;
  /** The `client_seq` of this save, null when it had none. */
  clientSeq: number | null;
  /** The highest `client_seq` seen for the question (a later item without one keeps it). */
  highestSeq: number | null;
  savedAt: number;
}

export interface Closure {
  closedAt: number;
  submittedAt: number;
  autoFinalized: boolean;
}

/** A journal as the worker receives it. */
export interface JournalView {
  start: JournalStart;
  /** In the order of the quiz's questions. */
  entries: JournalEntry[];
  closure: Closure | null;
  now: number;
}

export interface SaveItem {
  question_id: string;
  payload: Record<string, unknown>;
  client_seq?: number | undefined;
}

/** True once saves no longer count and the attempt must be finalized. */
export function pastGrace(start: Pick<JournalStart, "deadlineAt" | "graceMs">, now: number): boolean {
  return start.deadlineAt !== null && now > start.deadlineAt + start.graceMs;
}

/** When the alarm that finalizes an untouched attempt fires; null for an untimed one. */
export function finalizeAt(start: Pick<JournalStart, "deadlineAt" | "graceMs">): number | null {
  return start.deadlineAt === null ? null : start.deadlineAt + start.graceMs + 1;
}

/** The closure a close at `now` makes: past grace it is the deadline's, else the submit's (never after the deadline). */
export function closureAt(start: Pick<JournalStart, "deadlineAt" | "graceMs">, now: number): Closure {
  const autoFinalized = pastGrace(start, now);
  const submittedAt = start.deadlineAt === null ? now : Math.min(now, start.deadlineAt);
  return { closedAt: now, submittedAt, autoFinalized };
}

/**
 * Applies the items of one save, in order, to the entries (changed in place). Returns the entries
 * written and how many items were ignored as stale.
 */
export function applySave(entries: Map<string, JournalEntry>, items: readonly SaveItem[], now: number): { written: JournalEntry[]; saved: number; ignored: number } {
  const written = new Map<string, JournalEntry>();
  let saved = 0;
  let ignored = 0;
  for (const item of items) {
    const kept = entries.get(item.question_id);
    const seq = item.client_seq ?? null;
    if (seq !== null && kept?.highestSeq != null && seq <= kept.highestSeq) {
      ignored += 1;
      continue;
    }
    const highestSeq = seq ?? kept?.highestSeq ?? null;
    const entry: JournalEntry = { questionId: item.question_id, payload: item.payload, clientSeq: seq, highestSeq, savedAt: now };
    entries.set(item.question_id, entry);
    written.set(item.question_id, entry);
    saved += 1;
  }
  return { written: [...written.values()], saved, ignored };
}

/**
 * `time_limit_seconds` of an attempt: from its start to its deadline, which the start froze with the
 * student's accommodation and extensions move (docs/decisions/accommodations.md, "Time limit shown").
 */
export function attemptTimeLimitSeconds(startedAt: number, deadlineAt: number | null): number | null {
  return deadlineAt === null ? null : Math.max(0, Math.round((deadlineAt - startedAt) / 1000));
}

/** `remaining_seconds`: null when untimed, else whole seconds to the deadline, rounded up, never negative. */
export function remainingSeconds(deadlineAt: number | null, now: number): number | null {
  return deadlineAt === null ? null : Math.max(0, Math.ceil((deadlineAt - now) / 1000));
}

// What the AttemptJournal object (durable-objects/attempt-journal.ts) answers. The types live with
// the journal's rules so the worker's side (./journal.ts) calls the object through its binding
// without importing the object's class: the object imports this area, not the reverse.

export type SaveOutcome =
  | { outcome: "saved"; saved: number; ignored: number; now: number; deadlineAt: number | null }
  | { outcome: "not_found" }
  | { outcome: "quiz_gone" }
  | { outcome: "closed" }
  | { outcome: "closed_now"; view: JournalView }
  | { outcome: "question_not_in_quiz"; questionId: string }
  | { outcome: "question_not_in_form"; questionId: string }
  | { outcome: "invalid"; message: string };

export type CloseOutcome = { outcome: "not_found" } | { outcome: "closed" } | { outcome: "closed_now"; view: JournalView };

export type ViewOutcome = { outcome: "not_found" } | { outcome: "open" | "closed" | "closed_now"; view: JournalView; confirmed: boolean };

/**
 * An extension (docs/decisions/accommodations.md, "Live extensions"): the deadline moved and the
 * journal as it now stands; or refused because the attempt is untimed, closed, or closes now
 * (past the deadline and its grace: finalized as a save would finalize it).
 */
export type ExtendOutcome =
  | { outcome: "not_found" }
  | { outcome: "not_timed" }
  | { outcome: "closed" }
  | { outcome: "closed_now"; view: JournalView }
  | { outcome: "extended"; previousDeadlineAt: number; view: JournalView };

/** `addMs` moves the deadline by that much; `deadlineAt` sets it (an exam's section follows its exam), never earlier. */
export type ExtendInput = { tenantId: string; ensure?: JournalStart } & ({ addMs: number } | { deadlineAt: number });

/** The object's RPC methods as the worker calls them; the class implements this interface. */
export interface AttemptJournalRpc {
  extend(input: ExtendInput): Promise<ExtendOutcome>;
  read(caller: { tenantId: string; userId?: string; ensure?: JournalStart }): Promise<ViewOutcome>;
  save(input: { tenantId: string; userId?: string; answers: SaveItem[]; viaExam?: boolean }): Promise<SaveOutcome>;
  close(caller: { tenantId: string; userId?: string; ensure?: JournalStart }): Promise<CloseOutcome>;
  confirm(): Promise<void>;
  markQuizGone(): Promise<void>;
}
