import { sql, type SQL } from "drizzle-orm";
import { deviceEvents } from "../../db/schema";
import type { ServiceContext } from "../../core/http/context";
import { uuidv7 } from "../../core/lib/ids";
import type { DevicePolicy } from "./policy";
import { batchable } from "../../core/db/batch";
import { idIn } from "../../core/db/conditions";
import { liveSessionSql, uuidv7Sql } from "./sql";

/** The security history's event types (docs/decisions/devices.md, "Devices, device limits and device policy", lists them with their `detail`). */
export const DEVICE_EVENT_TYPES = [
  "login",
  "login_refused",
  "device_limit_exceeded",
  "logout",
  "session_revoked",
  "device_blocked",
  "device_unblocked",
] as const;
export type DeviceEventType = (typeof DEVICE_EVENT_TYPES)[number];

/** Why sessions ended, as `detail.reason` of `session_revoked`. */
export type RevokeReason =
  | "self_revoke"
  | "revoke_others"
  | "admin_revoke"
  | "admin_revoke_all"
  | "device_replaced"
  | "password_reset"
  | "password_change"
  | "refresh_token_reuse"
  | "user_deactivated"
  | "user_deleted";

interface DeviceEventInput {
  type: DeviceEventType;
  tenantId: string | null;
  userId: string;
  authDeviceId?: string | null;
  sessionId?: string | null;
  ip?: string | null;
  userAgent?: string | null;
  actorUserId?: string | null;
  detail?: Record<string, unknown> | null;
}

/** A plain event insert, for a batch whose other writes are unconditional. */
export function deviceEventInsert(ctx: ServiceContext, event: DeviceEventInput) {
  const now = ctx.clock.now();
  return ctx.db.insert(deviceEvents).values({
    id: uuidv7(now),
    tenantId: event.tenantId,
    userId: event.userId,
    authDeviceId: event.authDeviceId ?? null,
    sessionId: event.sessionId ?? null,
    type: event.type,
    ip: event.ip ?? null,
    userAgent: event.userAgent ?? null,
    actorUserId: event.actorUserId ?? null,
    detail: event.detail ?? null,
    createdAt: now,
  });
}

/** The sessions of these users of one school (alias `s`; `IS` so the platform's null school matches too). */
function sessionsOf(tenantId: string | null, userIds: readonly string[]): SQL {
  return sql`s.tenant_id IS ${tenantId} AND ${idIn(sql`s.user_id`, userIds)}`;
}

interface RevocationInput {
  tenantId: string | null;
  userIds: readonly string[];
  reason: RevokeReason;
  /** Narrows which of their live sessions end (alias `s` is the sessions row); default all. */
  scope?: SQL;
  actorUserId?: string | null;
  ip?: string | null;
  userAgent?: string | null;
}

/**
 * One `session_revoked` event per (user, device) with live sessions matching the scope, written
 * BEFORE the revoking UPDATE in the same batch: it sees the state the UPDATE is about to change,
 * so an event exists exactly when sessions were ended (a concurrent repeat finds nothing live).
 */
function revocationEventsStatement(ctx: ServiceContext, input: RevocationInput) {
  const now = ctx.clock.now();
  return batchable(ctx, sql`
    INSERT INTO device_events (id, tenant_id, user_id, auth_device_id, session_id, type, ip, user_agent, actor_user_id, detail, created_at)
    SELECT ${uuidv7Sql(now)}, s.tenant_id, s.user_id, s.auth_device_id,
           CASE WHEN count(*) = 1 THEN max(s.id) END, 'session_revoked', ${input.ip ?? null}, ${input.userAgent ?? null},
           ${input.actorUserId ?? null}, json_object('reason', ${input.reason}, 'sessions', count(*)), ${now}
    FROM sessions s
    WHERE ${sessionsOf(input.tenantId, input.userIds)} AND ${liveSessionSql(now)} AND (${input.scope ?? sql`1 = 1`})
    GROUP BY s.user_id, s.auth_device_id`);
}

/** Ends the users' live sessions matching the scope. Its D1 result's `meta.changes` counts them. */
function revokeSessionsStatement(ctx: ServiceContext, input: RevocationInput) {
  const now = ctx.clock.now();
  return batchable(ctx, sql`
    UPDATE sessions AS s SET revoked_at = ${now}, revoke_reason = ${input.reason}
    WHERE ${sessionsOf(input.tenantId, input.userIds)} AND ${liveSessionSql(now)} AND (${input.scope ?? sql`1 = 1`})`);
}

/**
 * The two statements that end sessions with their history, in the order that keeps them honest:
 * a `session_revoked` event per device. Revocations, password change and reset, deactivation and
 * deletion put these into their own batch. Two paths record differently on purpose: a logout or a
 * refresh-token reuse (`revokeSession`, ./session-service.ts) ends one session with a
 * `logout` / `session_revoked` event of its own, and a device block records one `device_blocked`
 * event carrying the number of sessions it ended.
 */
export function revokeSessionsWithEvents(ctx: ServiceContext, input: RevocationInput) {
  return [revocationEventsStatement(ctx, input), revokeSessionsStatement(ctx, input)] as const;
}

/** An IP address as the school's `ip_visibility` allows: hidden, masked to its network, or whole. */
export function visibleIp(ip: string | null, visibility: DevicePolicy["ipVisibility"]): string | null {
  if (ip === null || visibility === "none") return null;
  if (visibility === "full") return ip;
  if (ip.includes(":")) return `${ipv6Groups(ip).slice(0, 3).join(":")}::/48`;
  const octets = ip.split(".");
  return octets.length === 4 ? `${octets.slice(0, 3).join(".")}.0/24` : null;
}

/** The eight groups of an IPv6 address, `::` expanded, leading zeros dropped. */
function ipv6Groups(ip: string): string[] {
  const [head, tail] = ip.toLowerCase().split("::", 2);
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = tail === undefined ? left : [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right];
  return groups.map((group) => group.replace(/^0+(?=.)/, ""));
}
