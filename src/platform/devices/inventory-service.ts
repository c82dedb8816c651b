import { and, count, desc, eq, sql } from "drizzle-orm";
import { authDevices, deviceEvents, sessions } from "../../db/schema";
import type { ServiceContext, SchoolCtx } from "../../core/http/context";
import { pageOffset } from "../../core/http/pagination";
import { iso, isoOrNull, MINUTE_MS } from "../../core/lib/clock";
import { visibleIp, type DeviceEventType } from "./events";
import { devicePolicyQuery, effectiveDeviceLimit, effectivePolicy, inactiveCutoff, inactiveCutoffSql, liveOverrideQuery, type DevicePolicy } from "./policy";
import { overrideJson } from "./policy-service";
import { activeDeviceSql, liveSessionSql } from "./sql";
import { devicesErrors } from "./errors";
import { found, ofSchool, ownSchool, studentTargetQuery } from "./targets";

/** A device seen this recently (login, refresh, session activity) with a live session is `online`. */
const ONLINE_WINDOW_MS = 5 * MINUTE_MS;
const INVENTORY_LIMIT = 200;

function devicesQuery(ctx: ServiceContext, tenantId: string | null, userId: string, now: number) {
  return ctx.db
    .select({
      id: authDevices.id,
      installationId: authDevices.installationId,
      platform: authDevices.platform,
      name: authDevices.name,
      osName: authDevices.osName,
      osVersion: authDevices.osVersion,
      browserName: authDevices.browserName,
      browserVersion: authDevices.browserVersion,
      appVersion: authDevices.appVersion,
      lastSeenAt: authDevices.lastSeenAt,
      blockedAt: authDevices.blockedAt,
      blockReason: authDevices.blockReason,
      createdAt: authDevices.createdAt,
      // Spelled out: drizzle renders selected columns unqualified, which a subquery would resolve to its own table.
      activeSessions: sql<number>`(SELECT count(*) FROM sessions s WHERE s.auth_device_id = auth_devices.id AND ${liveSessionSql(now)})`,
      // The limit's own rule, so the inventory cannot disagree with the login about what counts.
      countsTowardLimit: sql<number>`${activeDeviceSql({ now, inactiveCutoff: inactiveCutoffSql(tenantId, now) }, "auth_devices")}`,
      lastIp: sql<string | null>`(SELECT s.ip FROM sessions s WHERE s.auth_device_id = auth_devices.id ORDER BY s.created_at DESC LIMIT 1)`,
    })
    .from(authDevices)
    .where(and(eq(authDevices.userId, userId), ofSchool(authDevices.tenantId, tenantId)))
    .orderBy(desc(authDevices.lastSeenAt), desc(authDevices.id))
    .limit(INVENTORY_LIMIT);
}

type DeviceRow = Awaited<ReturnType<typeof devicesQuery>>[number];

function deviceStatus(row: DeviceRow, policy: DevicePolicy, now: number) {
  if (row.countsTowardLimit) return row.lastSeenAt > now - ONLINE_WINDOW_MS ? ("online" as const) : ("active" as const);
  // Not active: why, in the order of `activeDeviceSql`'s conditions.
  if (row.blockedAt !== null) return "blocked" as const;
  if (row.lastSeenAt <= inactiveCutoff(policy, now)) return "inactive" as const;
  return "signed_out" as const;
}

/** The inventory summary: a device counts toward the limit while it is online or active. */
function inventory(rows: DeviceRow[], policy: DevicePolicy, now: number, limit: number | null, currentDeviceId: string | null) {
  const devices = rows.map((row) => ({
    id: row.id,
    name: row.name,
    platform: row.platform,
    status: deviceStatus(row, policy, now),
    last_seen_at: iso(row.lastSeenAt),
    active_sessions: row.activeSessions,
    is_current: row.id === currentDeviceId,
    installation_id: row.installationId,
    os_name: row.osName,
    os_version: row.osVersion,
    browser_name: row.browserName,
    browser_version: row.browserVersion,
    app_version: row.appVersion,
    last_ip: visibleIp(row.lastIp, policy.ipVisibility),
    blocked_at: isoOrNull(row.blockedAt),
    block_reason: row.blockReason,
    created_at: iso(row.createdAt),
  }));
  const counted = devices.filter((device) => device.status === "online" || device.status === "active");
  return {
    active_devices: counted.length,
    max_active_devices: limit,
    online_now: devices.filter((device) => device.status === "online").length,
    active_sessions: counted.reduce((sum, device) => sum + device.active_sessions, 0),
    devices,
  };
}

/** GET /t/me/devices. The caller's own school (none for the superadmin) scopes the devices. */
export async function myDevices(ctx: SchoolCtx) {
  const { actor } = ctx;
  const now = ctx.clock.now();
  const tenantId = ownSchool(ctx);
  const [policyRows, overrides, rows, current] = await ctx.db.batch([
    devicePolicyQuery(ctx, tenantId),
    liveOverrideQuery(ctx, tenantId, actor.userId, now),
    devicesQuery(ctx, tenantId, actor.userId, now),
    ctx.db
      .select({ authDeviceId: sessions.authDeviceId })
      .from(sessions)
      .where(and(eq(sessions.id, actor.sessionId ?? ""), ofSchool(sessions.tenantId, tenantId))),
  ]);
  const policy = effectivePolicy(policyRows[0]);
  const limit = effectiveDeviceLimit(actor.role, policy, overrides[0]);
  return inventory(rows, policy, now, limit.limit, current[0]?.authDeviceId ?? null);
}

/** GET /t/users/:id/devices: a student's inventory with the effective limit and where it comes from. */
export async function studentDevices(ctx: SchoolCtx, { userId }: { userId: string }) {
  const now = ctx.clock.now();
  const { tenantId } = ctx;
  const [target, policyRows, overrides, rows] = await ctx.db.batch([
    studentTargetQuery(ctx, userId),
    devicePolicyQuery(ctx, tenantId),
    liveOverrideQuery(ctx, tenantId, userId, now),
    devicesQuery(ctx, tenantId, userId, now),
  ]);
  found(target, devicesErrors.STUDENT_NOT_FOUND);
  const policy = effectivePolicy(policyRows[0]);
  const limit = effectiveDeviceLimit("student", policy, overrides[0]);
  return {
    ...inventory(rows, policy, now, limit.limit, null),
    limit_source: limit.source,
    mode: policy.mode,
    override: overrides[0] ? overrideJson(overrides[0]) : null,
  };
}

function eventsQueries(ctx: ServiceContext, tenantId: string | null, userId: string, page: number, limit: number) {
  const where = and(eq(deviceEvents.userId, userId), ofSchool(deviceEvents.tenantId, tenantId));
  return [
    ctx.db.select({ total: count() }).from(deviceEvents).where(where),
    ctx.db
      .select({
        id: deviceEvents.id,
        type: deviceEvents.type,
        authDeviceId: deviceEvents.authDeviceId,
        deviceName: authDevices.name,
        platform: authDevices.platform,
        sessionId: deviceEvents.sessionId,
        ip: deviceEvents.ip,
        userAgent: deviceEvents.userAgent,
        actorUserId: deviceEvents.actorUserId,
        detail: deviceEvents.detail,
        createdAt: deviceEvents.createdAt,
      })
      .from(deviceEvents)
      .leftJoin(authDevices, eq(authDevices.id, deviceEvents.authDeviceId))
      .where(where)
      .orderBy(desc(deviceEvents.createdAt), desc(deviceEvents.id))
      .limit(limit)
      .offset(pageOffset(page, limit)),
  ] as const;
}

type EventRow = Awaited<ReturnType<typeof eventsQueries>[1]>[number];

function eventPage(rows: EventRow[], total: number, page: number, limit: number, policy: DevicePolicy) {
  return {
    events: rows.map((row) => ({
      id: row.id,
      type: row.type as DeviceEventType,
      auth_device_id: row.authDeviceId,
      device_name: row.deviceName,
      platform: row.platform,
      session_id: row.sessionId,
      ip: visibleIp(row.ip, policy.ipVisibility),
      user_agent: row.userAgent,
      actor_user_id: row.actorUserId,
      detail: row.detail,
      created_at: iso(row.createdAt),
    })),
    total,
    page,
    limit,
  };
}

/** GET /t/me/device-events, newest first. */
export async function myDeviceEvents(ctx: SchoolCtx, { query }: { query: { page: number; limit: number } }) {
  const tenantId = ownSchool(ctx);
  const [totalQuery, rowsQuery] = eventsQueries(ctx, tenantId, ctx.actor.userId, query.page, query.limit);
  const [policyRows, totals, rows] = await ctx.db.batch([devicePolicyQuery(ctx, tenantId), totalQuery, rowsQuery]);
  return eventPage(rows, totals[0]?.total ?? 0, query.page, query.limit, effectivePolicy(policyRows[0]));
}

/** GET /t/users/:id/device-events, newest first. */
export async function studentDeviceEvents(ctx: SchoolCtx, { userId, query }: { userId: string; query: { page: number; limit: number } }) {
  const [totalQuery, rowsQuery] = eventsQueries(ctx, ctx.tenantId, userId, query.page, query.limit);
  const [target, policyRows, totals, rows] = await ctx.db.batch([
    studentTargetQuery(ctx, userId),
    devicePolicyQuery(ctx, ctx.tenantId),
    totalQuery,
    rowsQuery,
  ]);
  found(target, devicesErrors.STUDENT_NOT_FOUND);
  return eventPage(rows, totals[0]?.total ?? 0, query.page, query.limit, effectivePolicy(policyRows[0]));
}
