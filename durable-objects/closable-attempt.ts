import { DurableObject } from "cloudflare:workers";
import type { Env } from "../src/core/env";
import { currentClock } from "../src/core/lib/clock";
import { closureAt, type Closure } from "../src/content/attempts/journal-state";

/** A closed attempt whose D1 write is not confirmed is written again this long after the close (and after each failure). */
export const RETRY_MS = 30_000;

/** Who may act on an attempt's object: the attempt's school and, for the owner's own calls, its owner. */
export interface Caller {
  tenantId: string;
  userId?: string;
}

/** What every attempt object keeps: its start data, and how and when it closed. */
export interface ClosableMeta {
  start: { tenantId: string; userId: string; deadlineAt: number | null; graceMs: number };
  closure: Closure | null;
}

/**
 * The part a quiz attempt's journal and an exam attempt's timer share: who may call them, the
 * clock, and the close. The close is a compare-and-set that runs with no await between the check
 * and the in-memory write, so of any number of concurrent submits, reads, saves and alarm runs
 * exactly one closes the attempt; the write to storage and the retry alarm follow without being
 * awaited (the output gate holds the reply until they are durable).
 */
export abstract class ClosableAttempt<M extends ClosableMeta> extends DurableObject<Env> {
  protected meta: M | null = null;

  protected now(): number {
    return currentClock().now();
  }

  protected admits(caller: Caller): boolean {
    const meta = this.meta;
    return meta !== null && meta.start.tenantId === caller.tenantId && (caller.userId === undefined || meta.start.userId === caller.userId);
  }

  /** Closes an open attempt and persists it; false when it was closed already. */
  protected closeNow(now: number): boolean {
    const meta = this.meta!;
    if (meta.closure !== null) return false;
    meta.closure = closureAt(meta.start, now);
    void this.ctx.storage.put("meta", meta);
    void this.ctx.storage.setAlarm(now + RETRY_MS);
    return true;
  }
}
