import { and, eq, isNull, lt, or } from "drizzle-orm";
import type { Actor, ServiceContext } from "../../core/http/context";
import { MINUTE_MS } from "../../core/lib/clock";
import { log } from "../../core/lib/log";
import { users } from "../../db/schema";
import { actorAccountDb } from "../devices/account-db";

/** `last_active_at` is kept to this precision: at most one write per user per window. */
export const LAST_ACTIVE_RESOLUTION_MS = 5 * MINUTE_MS;

/**
 * Records that an authenticated user was active, when the stored time is older than the window.
 * The decision uses the value the auth query already read (no extra read); the write is
 * conditional, so concurrent requests of one user land at most one change, and it runs after the
 * response. A failure only loses a timestamp, so it is logged, not raised.
 */
export function recordLastActive(ctx: ServiceContext, actor: Actor): Promise<unknown> | null {
  const now = ctx.clock.now();
  const due = now - LAST_ACTIVE_RESOLUTION_MS;
  if (actor.lastActiveAt !== null && actor.lastActiveAt > due) return null;
  return actorAccountDb(ctx.env, actor)
    .update(users)
    .set({ lastActiveAt: now })
    .where(and(eq(users.id, actor.userId), or(isNull(users.lastActiveAt), lt(users.lastActiveAt, due))))
    .run()
    .catch((err: unknown) => log.warn("last_active_at not recorded", { user_id: actor.userId, error: String(err) }));
}
