import type { Env } from "../src/core/env";
import { ClosableAttempt, RETRY_MS, type Caller } from "./closable-attempt";
import { log } from "../src/core/lib/log";
import { finalizeByDeadline } from "../src/content/attempts/finalize";
import {
  applySave,
  finalizeAt,
  pastGrace,
  type AttemptJournalRpc,
  type CloseOutcome,
  type Closure,
  type ExtendInput,
  type ExtendOutcome,
  type JournalEntry,
  type JournalStart,
  type JournalView,
  type SaveItem,
  type SaveOutcome,
  type ViewOutcome,
} from "../src/content/attempts/journal-state";
import { payloadBoundsProblem, readPayload } from "../src/content/attempts/payloads";
import { openMatchToken } from "../src/content/quizzes/match-tokens";
import { jobContext } from "../src/contributors";

/** What the object keeps besides the answers (one storage key each, `a:<question id>`). */
interface Meta {
  start: JournalStart;
  closure: Closure | null;
  /** D1 holds the finalized attempt: the answers are dropped, the rest stays so later calls get "closed". */
  confirmed: boolean;
  /** The quiz was found deleted: saves answer `quiz_not_found`. */
  quizGone: boolean;
}

/** storage.put takes at most 128 keys at once. */
const PUT_CHUNK = 128;

/**
 * One instance per quiz attempt in progress, named by the attempt id (docs/decisions/quizzes.md,
 * "Quiz attempts"): the answer journal, the deadline and the alarm that finalizes the attempt at
 * `deadline_at` + grace. Saves write here only, never to D1. Every check that decides a write
 * (owner, closed, past grace, the close itself) runs with no await between it and the in-memory
 * write, so concurrent calls see one order: of 20 concurrent submits one closes the journal.
 * Rules of the journal itself: src/content/attempts/journal-state.ts.
 */
export class AttemptJournal extends ClosableAttempt<Meta> implements AttemptJournalRpc {
  private entries = new Map<string, JournalEntry>();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    void ctx.blockConcurrencyWhile(async () => {
      this.meta = (await ctx.storage.get<Meta>("meta")) ?? null;
      const stored = await ctx.storage.list<JournalEntry>({ prefix: "a:" });
      for (const entry of stored.values()) this.entries.set(entry.questionId, entry);
    });
  }



  /**
   * The answers as the worker gets them: each with only the keys of its type. An entry that is not
   * an answer of its type (kept by an older version, or of a question whose type no longer fits)
   * is left out, so it counts as unanswered and can never break the read, the submit or the alarm.
   */
  private view(now: number): JournalView {
    const meta = this.meta!;
    const entries = meta.start.questions.flatMap((question) => {
      const entry = this.entries.get(question.id);
      if (!entry) return [];
      const read = readPayload(question.type, entry.payload);
      return read.ok ? [{ ...entry, payload: read.payload }] : [];
    });
    return { start: meta.start, entries, closure: meta.closure, now };
  }


  /**
   * Starts the journal once. Every call that finds the attempt row hands the journal its start
   * (`ensure`), so the first one starts it and a lost call loses nothing; later ones change nothing.
   */
  private begin(start: JournalStart): void {
    if (this.meta !== null) return;
    this.meta = { start, closure: null, confirmed: false, quizGone: false };
    void this.ctx.storage.put("meta", this.meta);
    const at = finalizeAt(start);
    if (at !== null) void this.ctx.storage.setAlarm(at);
  }

  /** The journal for a read; past grace it closes here (the read finalizes). `ensure` starts a missing journal. */
  async read(caller: Caller & { ensure?: JournalStart }): Promise<ViewOutcome> {
    if (caller.ensure) this.begin(caller.ensure);
    if (!this.admits(caller)) return { outcome: "not_found" };
    const now = this.now();
    const meta = this.meta!;
    if (meta.closure === null && pastGrace(meta.start, now) && this.closeNow(now)) return { outcome: "closed_now", view: this.view(now), confirmed: false };
    return { outcome: meta.closure === null ? "open" : "closed", view: this.view(now), confirmed: meta.confirmed };
  }

  async save(input: Caller & { answers: SaveItem[]; viaExam?: boolean }): Promise<SaveOutcome> {
    if (!this.admits(input)) return { outcome: "not_found" };
    if ((this.meta!.start.examAttemptId ?? null) !== null && input.viaExam !== true) return { outcome: "not_found" };
    const start = this.meta!.start;
    if (this.meta!.quizGone) return { outcome: "quiz_gone" };
    const late = this.lateOutcome(this.now());
    if (late) return late;
    const types = new Map(start.questions.map((question) => [question.id, question.type]));
    const items: SaveItem[] = [];
    for (const item of input.answers) {
      const type = types.get(item.question_id);
      if (type === undefined) {
        const undrawn = start.undrawn?.includes(item.question_id) ?? false;
        return { outcome: undrawn ? "question_not_in_form" : "question_not_in_quiz", questionId: item.question_id };
      }
      const kept = await this.keptPayload(start, item, type);
      if (typeof kept === "string") return { outcome: "invalid", message: kept };
      items.push({ ...item, payload: kept });
    }
    // From here to the in-memory write nothing awaits: the checks and the write are one step.
    const now = this.now();
    const lateNow = this.lateOutcome(now);
    if (lateNow) return lateNow;
    const { written, saved, ignored } = applySave(this.entries, items, now);
    for (let i = 0; i < written.length; i += PUT_CHUNK) {
      void this.ctx.storage.put(Object.fromEntries(written.slice(i, i + PUT_CHUNK).map((entry) => [`a:${entry.questionId}`, entry])));
    }
    return { outcome: "saved", saved, ignored, now, deadlineAt: start.deadlineAt };
  }

  /** A save that no longer counts: the journal is closed, or this save closes it (past grace). */
  private lateOutcome(now: number): SaveOutcome | null {
    const meta = this.meta!;
    if (meta.closure !== null) return { outcome: "closed" };
    if (!pastGrace(meta.start, now)) return null;
    return this.closeNow(now) ? { outcome: "closed_now", view: this.view(now) } : { outcome: "closed" };
  }

  /** The payload as kept (the keys of its type only), or why it is refused. */
  private async keptPayload(start: JournalStart, item: SaveItem, type: JournalStart["questions"][number]["type"]): Promise<Record<string, unknown> | string> {
    // The request schema checked the bounds already; checked again for any other caller of the object.
    const bounds = payloadBoundsProblem(item.payload);
    if (bounds !== null) return `answers: ${bounds}`;
    const read = readPayload(type, item.payload);
    if (!read.ok) return `answers: ${read.message}`;
    if (read.response.type !== "matching") return read.payload;
    for (const pair of read.response.pairs) {
      if ((await openMatchToken(this.env, start.tenantId, item.question_id, pair.rightId)) === null) return "answers: right_id is not an id of this question's match_rights";
    }
    return read.payload;
  }

  /** The submit's close; `ensure` starts a journal whose start call was lost (the attempt row exists). */
  async close(caller: Caller & { ensure?: JournalStart }): Promise<CloseOutcome> {
    if (caller.ensure) this.begin(caller.ensure);
    if (!this.admits(caller)) return { outcome: "not_found" };
    const now = this.now();
    return this.closeNow(now) ? { outcome: "closed_now", view: this.view(now) } : { outcome: "closed" };
  }

  /**
   * Moves the deadline and the finalize alarm in one step (no await between the checks and the
   * in-memory write), so a submit, save or alarm runs wholly before or wholly after it. Past the
   * deadline and its grace the extension is too late: the journal closes here, as a save would close it.
   */
  async extend(input: ExtendInput): Promise<ExtendOutcome> {
    if (input.ensure) this.begin(input.ensure);
    if (!this.admits(input)) return { outcome: "not_found" };
    const meta = this.meta!;
    const previous = meta.start.deadlineAt;
    if (previous === null) return { outcome: "not_timed" };
    if (meta.closure !== null) return { outcome: "closed" };
    const now = this.now();
    if (pastGrace(meta.start, now)) return this.closeNow(now) ? { outcome: "closed_now", view: this.view(now) } : { outcome: "closed" };
    const next = "addMs" in input ? previous + input.addMs : Math.max(previous, input.deadlineAt);
    meta.start = { ...meta.start, deadlineAt: next };
    void this.ctx.storage.put("meta", meta);
    void this.ctx.storage.setAlarm(finalizeAt(meta.start)!);
    return { outcome: "extended", previousDeadlineAt: previous, view: this.view(now) };
  }

  /** D1 holds the finalized attempt: nothing more to retry, and the answers need not be kept here. */
  async confirm(): Promise<void> {
    const meta = this.meta;
    if (!meta || meta.closure === null || meta.confirmed) return;
    meta.confirmed = true;
    const keys = [...this.entries.keys()].map((questionId) => `a:${questionId}`);
    this.entries.clear();
    meta.start = { ...meta.start, questions: [] };
    await this.ctx.storage.put("meta", meta);
    for (let i = 0; i < keys.length; i += PUT_CHUNK) await this.ctx.storage.delete(keys.slice(i, i + PUT_CHUNK));
    await this.ctx.storage.deleteAlarm();
  }

  async markQuizGone(): Promise<void> {
    if (!this.meta || this.meta.quizGone) return;
    this.meta.quizGone = true;
    await this.ctx.storage.put("meta", this.meta);
  }

  /**
   * At `deadline_at` + grace: closes a journal nobody closed and writes it to D1 through the same
   * finalize as every other path. A closed journal not yet confirmed (its writer failed or never
   * confirmed) is written again; a failed write tries again later.
   */
  override async alarm(): Promise<void> {
    const meta = this.meta;
    if (!meta || meta.confirmed) return;
    const now = this.now();
    if (meta.closure === null) {
      if (!pastGrace(meta.start, now)) {
        const at = finalizeAt(meta.start);
        if (at !== null) await this.ctx.storage.setAlarm(at);
        return;
      }
      this.closeNow(now);
    }
    try {
      await finalizeByDeadline(jobContext(this.env), this.view(now));
      await this.confirm();
    } catch (err) {
      log.error("attempt finalize failed; retrying", { attempt_id: meta.start.attemptId, error: String(err) });
      await this.ctx.storage.setAlarm(now + RETRY_MS);
    }
  }
}
