import type { Env } from "../src/core/env";
import { ClosableAttempt, RETRY_MS, type Caller } from "./closable-attempt";
import { log } from "../src/core/lib/log";
import { finalizeAt, pastGrace, type Closure } from "../src/content/attempts/journal-state";
import { finalizeExamByDeadline } from "../src/content/exams/exam-finalize";
import { sendTimeWarning } from "../src/content/exams/exam-events";
import { jobContext } from "../src/contributors";
import { journal } from "../src/content/attempts/journal";
import {
  warningAt,
  type ExamAttemptTimerRpc,
  type TimerCloseOutcome,
  type TimerExtendInput,
  type TimerExtendOutcome,
  type TimerReadOutcome,
  type TimerStart,
  type TimerView,
} from "../src/content/exams/timer-state";

interface Meta {
  start: TimerStart;
  closure: Closure | null;
  /** D1 holds the finished attempt: nothing more to retry. */
  confirmed: boolean;
  /** The warning alarm has run (sent, or found nothing to send). */
  warned: boolean;
}

/** A warning whose write failed is tried again this soon (while the deadline is still ahead). */
const WARNING_RETRY_MS = 10_000;

/**
 * One instance per exam attempt, named by its id (docs/decisions/exams.md, "Exam attempts"): the attempt's
 * deadline, the alarm that sends #43 five minutes before it (time limits above 10 minutes) and the
 * alarm that finalizes the attempt at `deadline_at` + grace, even with no client connected. The
 * sections' answers live in their quiz attempts' journals; finishing closes this timer first (a
 * compare-and-set with no await between the check and the write, so of any number of submits,
 * reads, saves and alarm runs exactly one closes it) and then writes everything to D1 with
 * conditional statements. Alarms are at-least-once, so a closed timer whose D1 write is not
 * confirmed is written again by a retry alarm: the write changes nothing the second time.
 */
export class ExamAttemptTimer extends ClosableAttempt<Meta> implements ExamAttemptTimerRpc {

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    void ctx.blockConcurrencyWhile(async () => {
      this.meta = (await ctx.storage.get<Meta>("meta")) ?? null;
    });
  }



  private view(now: number): TimerView {
    return { start: this.meta!.start, closure: this.meta!.closure, now };
  }


  /** The next alarm of an open timer: the warning while it is ahead and unsent, else the finalize. */
  private nextAlarm(now: number): number {
    const meta = this.meta!;
    const warning = warningAt(meta.start);
    if (!meta.warned && warning !== null) {
      if (now < warning) return warning;
      if (now < meta.start.deadlineAt) return Math.min(now + WARNING_RETRY_MS, meta.start.deadlineAt);
    }
    return finalizeAt(meta.start)!;
  }

  /** Starts the timer once; every call that finds the attempt row hands it the start (later ones change nothing). */
  private begin(start: TimerStart): void {
    if (this.meta !== null) return;
    this.meta = { start, closure: null, confirmed: false, warned: false };
    void this.ctx.storage.put("meta", this.meta);
    void this.ctx.storage.setAlarm(this.nextAlarm(this.now()));
  }

  /** The timer for a read; past grace it closes here (the caller finalizes). `ensure` starts a missing timer. */
  async read(caller: Caller & { ensure?: TimerStart }): Promise<TimerReadOutcome> {
    if (caller.ensure) this.begin(caller.ensure);
    if (!this.admits(caller)) return { outcome: "not_found" };
    const now = this.now();
    const meta = this.meta!;
    if (meta.closure === null && pastGrace(meta.start, now) && this.closeNow(now)) return { outcome: "closed_now", view: this.view(now), confirmed: false };
    return { outcome: meta.closure === null ? "open" : "closed", view: this.view(now), confirmed: meta.confirmed };
  }

  /** The submit's close; `ensure` starts a timer whose start call was lost (the attempt row exists). */
  async close(caller: Caller & { ensure?: TimerStart }): Promise<TimerCloseOutcome> {
    if (caller.ensure) this.begin(caller.ensure);
    if (!this.admits(caller)) return { outcome: "not_found" };
    const now = this.now();
    return this.closeNow(now) ? { outcome: "closed_now", view: this.view(now) } : { outcome: "closed", confirmed: this.meta!.confirmed };
  }

  /**
   * Moves the deadline and the next alarm in one step (no await between the checks and the
   * in-memory write), so a submit, read or alarm runs wholly before or wholly after it; the warning
   * not yet sent follows the new deadline. Then the opened sections' journals get the same deadline,
   * so their saves keep counting. Past the deadline and its grace the extension is too late: the
   * timer closes here, as a save would close it, and the caller finishes the attempt.
   */
  async extend(input: TimerExtendInput): Promise<TimerExtendOutcome> {
    if (input.ensure) this.begin(input.ensure);
    if (!this.admits(input)) return { outcome: "not_found" };
    const meta = this.meta!;
    if (meta.closure !== null) return { outcome: "closed", confirmed: meta.confirmed };
    const now = this.now();
    if (pastGrace(meta.start, now)) return this.closeNow(now) ? { outcome: "closed_now", view: this.view(now) } : { outcome: "closed", confirmed: meta.confirmed };
    const previous = meta.start.deadlineAt;
    const deadlineAt = previous + input.addMs;
    meta.start = { ...meta.start, deadlineAt, timeLimitSeconds: meta.start.timeLimitSeconds + Math.round(input.addMs / 1000) };
    void this.ctx.storage.put("meta", meta);
    void this.ctx.storage.setAlarm(this.nextAlarm(now));
    const view = this.view(now);
    await Promise.all(input.sectionAttemptIds.map((id) => journal.extend({ env: this.env }, id, { tenantId: meta.start.tenantId, deadlineAt })));
    return { outcome: "extended", previousDeadlineAt: previous, view };
  }

  /** D1 holds the finished attempt: no alarm is needed any more. */
  async confirm(): Promise<void> {
    const meta = this.meta;
    if (!meta || meta.closure === null || meta.confirmed) return;
    meta.confirmed = true;
    await this.ctx.storage.put("meta", meta);
    await this.ctx.storage.deleteAlarm();
  }

  /** The warning, once, while the deadline is ahead (a late alarm sends none); its D1 write decides "once" for good. */
  private async warnIfDue(now: number): Promise<void> {
    const meta = this.meta!;
    const at = warningAt(meta.start);
    if (meta.warned || at === null || now < at) return;
    if (now < meta.start.deadlineAt) {
      try {
        await sendTimeWarning(jobContext(this.env), meta.start);
      } catch (err) {
        log.error("exam time warning failed; retrying", { exam_attempt_id: meta.start.examAttemptId, error: String(err) });
        return;
      }
    }
    meta.warned = true;
    await this.ctx.storage.put("meta", meta);
  }

  /**
   * Before the deadline and its grace: the warning when it is due, then the next alarm. After: closes
   * a timer nobody closed and finishes the attempt through the same finalize as every other path.
   * A closed timer not yet confirmed (its writer failed or never confirmed) is written again.
   */
  override async alarm(): Promise<void> {
    const meta = this.meta;
    if (!meta || meta.confirmed) return;
    const now = this.now();
    if (meta.closure === null) {
      if (!pastGrace(meta.start, now)) {
        await this.warnIfDue(now);
        // A submit that closed the timer meanwhile set its own retry alarm.
        if (meta.closure === null) await this.ctx.storage.setAlarm(this.nextAlarm(this.now()));
        return;
      }
      this.closeNow(now);
    }
    try {
      await finalizeExamByDeadline(jobContext(this.env), this.view(now));
      await this.confirm();
    } catch (err) {
      log.error("exam attempt finalize failed; retrying", { exam_attempt_id: meta.start.examAttemptId, error: String(err) });
      await this.ctx.storage.setAlarm(now + RETRY_MS);
    }
  }
}
