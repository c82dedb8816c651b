import { and, eq, inArray, isNull, lt, or, sql } from "drizzle-orm";
import { loginFailures } from "../../db/schema";
import type { ServiceContext } from "../../core/http/context";
import { MINUTE_MS } from "../../core/lib/clock";

/** 5 failures of one (school, email) in 15 minutes lock it for 15; 50 per IP lock the IP (docs/decisions/auth.md, "Login protection"). */
const LOGIN_WINDOW_MS = 15 * MINUTE_MS;
const LOGIN_LOCK_MS = 15 * MINUTE_MS;
const PAIR_FAILURE_LIMIT = 5;
const IP_FAILURE_LIMIT = 50;

interface LoginGuardKeys {
  pair: string;
  ip: string | null;
}

export function loginGuardKeys(subdomain: string, email: string, ip: string | null): LoginGuardKeys {
  return { pair: `pair:${subdomain || "_platform"}:${email}`, ip: ip ? `ip:${ip}` : null };
}

function keyList(keys: LoginGuardKeys): string[] {
  return keys.ip ? [keys.pair, keys.ip] : [keys.pair];
}

/** Read of the current locks, to be batched with the user lookup. */
export function lockQuery(ctx: ServiceContext, keys: LoginGuardKeys) {
  return ctx.db
    .select({ key: loginFailures.key, lockedUntil: loginFailures.lockedUntil })
    .from(loginFailures)
    .where(inArray(loginFailures.key, keyList(keys)));
}

export function isLocked(rows: { lockedUntil: number | null }[], now: number): boolean {
  return rows.some((row) => row.lockedUntil !== null && row.lockedUntil > now);
}

/**
 * Counts one failure on every key with an atomic upsert and reports whether this attempt is past
 * a limit. Each attempt gets a distinct count, so of 100 simultaneous wrong passwords exactly
 * those numbered 6 and up answer 423, and attempts refused by an active lock are counted too.
 */
export async function recordFailure(ctx: ServiceContext, keys: LoginGuardKeys): Promise<{ locked: boolean }> {
  const now = ctx.clock.now();
  const windowStart = now - LOGIN_WINDOW_MS;
  const lockedUntil = now + LOGIN_LOCK_MS;
  const upsert = (key: string, limit: number) =>
    ctx.db
      .insert(loginFailures)
      .values({ key, failures: 1, windowStartedAt: now, lockedUntil: limit <= 1 ? lockedUntil : null })
      .onConflictDoUpdate({
        target: loginFailures.key,
        set: {
          failures: sql`CASE WHEN ${loginFailures.windowStartedAt} <= ${windowStart} THEN 1 ELSE ${loginFailures.failures} + 1 END`,
          // An active lock is not extended by attempts made during it: it ends 15 minutes after it began.
          lockedUntil: sql`CASE
            WHEN ${loginFailures.lockedUntil} > ${now} THEN ${loginFailures.lockedUntil}
            WHEN (CASE WHEN ${loginFailures.windowStartedAt} <= ${windowStart} THEN 1 ELSE ${loginFailures.failures} + 1 END) >= ${limit}
              THEN ${lockedUntil}
            ELSE ${loginFailures.lockedUntil} END`,
          windowStartedAt: sql`CASE WHEN ${loginFailures.windowStartedAt} <= ${windowStart} THEN ${now} ELSE ${loginFailures.windowStartedAt} END`,
        },
      })
      .returning({ failures: loginFailures.failures });

  const pairWrite = upsert(keys.pair, PAIR_FAILURE_LIMIT);
  if (!keys.ip) {
    const [pair] = await pairWrite;
    return { locked: (pair?.failures ?? 0) > PAIR_FAILURE_LIMIT };
  }
  const [[pair], [ip]] = await ctx.db.batch([pairWrite, upsert(keys.ip, IP_FAILURE_LIMIT)]);
  return { locked: (pair?.failures ?? 0) > PAIR_FAILURE_LIMIT || (ip?.failures ?? 0) > IP_FAILURE_LIMIT };
}

/** A successful sign-in clears the pair's counter (never the IP's). */
export function clearPairStatement(ctx: ServiceContext, keys: LoginGuardKeys) {
  return ctx.db.delete(loginFailures).where(inArray(loginFailures.key, [keys.pair]));
}

/** Drops a school member's pair counter (its key holds the email): permanent deletion forgets it. */
export function forgetPairStatement(ctx: ServiceContext, member: { tenantId: string; email: string }) {
  return ctx.db
    .delete(loginFailures)
    .where(eq(loginFailures.key, sql`'pair:' || (SELECT subdomain FROM tenants WHERE id = ${member.tenantId}) || ':' || ${member.email}`));
}

/** Counters whose window and lock are both over carry no information: the cron deletes them. */
export async function purgeStaleLoginFailures(ctx: ServiceContext): Promise<number> {
  const now = ctx.clock.now();
  const deleted = await ctx.db
    .delete(loginFailures)
    .where(and(lt(loginFailures.windowStartedAt, now - LOGIN_WINDOW_MS), or(isNull(loginFailures.lockedUntil), lt(loginFailures.lockedUntil, now))))
    .returning({ key: loginFailures.key });
  return deleted.length;
}
