import { sql } from "drizzle-orm";
import { batchable, changedRows, runBatch } from "../../core/db/batch";
import type { SchoolCtx } from "../../core/http/context";
import { isoOrNull, MINUTE_MS } from "../../core/lib/clock";
import { idleWindowSql, lifetimeEndSql } from "./policy";
import { ownSchool } from "./targets";

/** Activity pings closer together than this do not write (the spec asks the server to rate-limit). */
const ACTIVITY_WRITE_INTERVAL_MS = MINUTE_MS;

/**
 * POST /t/me/session/activity: slides the current session's idle expiry forward and marks its
 * device seen. The UPDATE is conditional on the last write being at least a minute old, so a
 * chatty client costs one D1 write a minute; repeating is safe and answers the current state.
 * The idle window is read from the school's policy inside the UPDATE (the shorter of the idle
 * timeout and `inactive_device_days`, as at login), and so is the absolute lifetime, which caps
 * `expires_at` at `created_at` + `session_absolute_lifetime_days`.
 */
export async function touchSession(ctx: SchoolCtx) {
  const { actor } = ctx;
  if (!actor.sessionId) return { session_id: null, extended: false, last_activity_at: null, idle_expires_at: null, expires_at: null };
  const now = ctx.clock.now();
  const due = now - ACTIVITY_WRITE_INTERVAL_MS;
  const window = idleWindowSql(sql`sessions.tenant_id`);
  const lifetimeEnd = lifetimeEndSql(sql`sessions.created_at`, sql`sessions.tenant_id`);
  const school = ownSchool(ctx);
  const results = await runBatch(ctx, [
    batchable(
      ctx,
      sql`UPDATE sessions SET last_activity_at = ${now}, idle_expires_at = ${now} + ${window}, expires_at = min(expires_at, ${lifetimeEnd})
          WHERE id = ${actor.sessionId} AND tenant_id IS ${school} AND revoked_at IS NULL AND idle_expires_at > ${now} AND expires_at > ${now}
            AND last_activity_at < ${due}`,
    ),
    batchable(
      ctx,
      sql`UPDATE auth_devices SET last_seen_at = ${now}
          WHERE id = (SELECT auth_device_id FROM sessions WHERE id = ${actor.sessionId} AND tenant_id IS ${school}) AND last_seen_at < ${due}`,
    ),
    batchable(ctx, sql`SELECT last_activity_at, idle_expires_at, expires_at FROM sessions WHERE id = ${actor.sessionId} AND tenant_id IS ${school}`),
  ]);
  const changed = changedRows(results[0]);
  const row = (results[2] as { results?: { last_activity_at: number; idle_expires_at: number; expires_at: number }[] }).results?.[0];
  return {
    session_id: actor.sessionId,
    // A write that applied a lifetime already over ended the session rather than extending it.
    extended: changed > 0 && (row?.expires_at ?? 0) > now,
    last_activity_at: isoOrNull(row?.last_activity_at),
    idle_expires_at: isoOrNull(row?.idle_expires_at),
    expires_at: isoOrNull(row?.expires_at),
  };
}
