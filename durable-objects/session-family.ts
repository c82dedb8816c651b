import { DurableObject } from "cloudflare:workers";
import type { Env } from "../src/core/env";
import { timingSafeEqual } from "../src/core/lib/crypto";
import type { PresentOutcome, RotateOutcome, SessionFamilyRpc } from "../src/platform/devices/session-family-state";

/** Rotation state of one session's refresh token. Only SHA-256 hashes of secrets are kept. */
interface FamilyState {
  currentHash: string;
  /** The hash rotated away most recently, and when: a replay within the grace window is a tab race. */
  previousHash: string | null;
  rotatedAt: number;
  /** Older retired hashes: presenting any of them is confirmed reuse. */
  retiredHashes: string[];
  refreshExpiresAt: number;
  revoked: boolean;
}

const MAX_RETIRED = 64;

/**
 * One instance per session (named by the session id). Rotation is a compare-and-set on in-memory
 * state with no await between the comparison and the write, so of N concurrent refreshes with the
 * same token exactly one rotates; the others see the previous hash and get `stale`.
 */
export class SessionFamily extends DurableObject<Env> implements SessionFamilyRpc {
  private state: FamilyState | null = null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    void ctx.blockConcurrencyWhile(async () => {
      this.state = (await ctx.storage.get<FamilyState>("state")) ?? null;
    });
  }

  async start(input: { secretHash: string; refreshExpiresAt: number; now: number }): Promise<void> {
    this.state = {
      currentHash: input.secretHash,
      previousHash: null,
      rotatedAt: input.now,
      retiredHashes: [],
      refreshExpiresAt: input.refreshExpiresAt,
      revoked: false,
    };
    await this.ctx.storage.put("state", this.state);
    await this.ctx.storage.setAlarm(input.refreshExpiresAt);
  }

  async rotate(input: { presentedHash: string; nextHash: string; now: number; graceMs: number; refreshExpiresAt: number }): Promise<RotateOutcome> {
    const state = this.state;
    if (!state || state.revoked) return { outcome: "invalid" };
    const match = classify(state, input.presentedHash);
    if (match === "current") {
      if (state.refreshExpiresAt <= input.now) return { outcome: "invalid" };
      if (state.previousHash) state.retiredHashes = [state.previousHash, ...state.retiredHashes].slice(0, MAX_RETIRED);
      state.previousHash = state.currentHash;
      state.currentHash = input.nextHash;
      state.rotatedAt = input.now;
      state.refreshExpiresAt = input.refreshExpiresAt;
      await this.ctx.storage.put("state", state);
      await this.ctx.storage.setAlarm(state.refreshExpiresAt);
      return { outcome: "rotated", refreshExpiresAt: state.refreshExpiresAt };
    }
    if (match === "previous" && input.now - state.rotatedAt <= input.graceMs) return { outcome: "stale" };
    if (match === "previous" || match === "retired") {
      state.revoked = true;
      await this.ctx.storage.put("state", state);
      return { outcome: "reuse" };
    }
    return { outcome: "invalid" };
  }

  /** Which generation a presented secret is, without changing anything (logout checks it). */
  async identify(presentedHash: string): Promise<PresentOutcome> {
    return this.state ? classify(this.state, presentedHash) : "unknown";
  }

  /**
   * Fires when the refresh token expires: nothing can rotate after that, so the family's storage
   * is deleted rather than kept forever (one object per sign-in adds up).
   */
  override async alarm(): Promise<void> {
    this.state = null;
    await this.ctx.storage.deleteAll();
  }
}

function classify(state: FamilyState, hash: string): PresentOutcome {
  if (timingSafeEqual(hash, state.currentHash)) return "current";
  if (state.previousHash !== null && timingSafeEqual(hash, state.previousHash)) return "previous";
  if (state.retiredHashes.some((retired) => timingSafeEqual(hash, retired))) return "retired";
  return "unknown";
}
