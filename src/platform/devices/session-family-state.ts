/**
 * What the SessionFamily object (durable-objects/session-family.ts) answers, here so that
 * ./session-service.ts calls the object through its binding without importing the object's class:
 * the object imports this area, not the reverse.
 */

export type RotateOutcome =
  | { outcome: "rotated"; refreshExpiresAt: number }
  | { outcome: "stale" }
  | { outcome: "reuse" }
  | { outcome: "invalid" };

/** Which generation of the family a presented secret is. */
export type PresentOutcome = "current" | "previous" | "retired" | "unknown";

/** The object's RPC methods as the worker calls them; the class implements this interface. */
export interface SessionFamilyRpc {
  start(input: { secretHash: string; refreshExpiresAt: number; now: number }): Promise<void>;
  rotate(input: { presentedHash: string; nextHash: string; now: number; graceMs: number; refreshExpiresAt: number }): Promise<RotateOutcome>;
  identify(presentedHash: string): Promise<PresentOutcome>;
}
