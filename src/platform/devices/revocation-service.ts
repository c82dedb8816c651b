import { sql, type SQL } from "drizzle-orm";
import type { ClientInfo } from "./session-service";
import type { ServiceContext, SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { isoOrNull } from "../../core/lib/clock";
import { uuidv7 } from "../../core/lib/ids";
import { revokeSessionsWithEvents, type RevokeReason } from "./events";
import { devicePolicyQuery, effectivePolicy } from "./policy";
import { batchable, changedRows, runBatch, type BatchItem } from "../../core/db/batch";
import { dispatchQueued, enqueue } from "../notifications/enqueue";
import { deviceLabelSql, devicePushInstallationSql } from "./new-device-notification";
import { liveSessionSql } from "./sql";
import { devicesErrors } from "./errors";
import { found, ownSchool, studentTargetQuery, userDeviceQuery } from "./targets";
import { inSchool } from "../../core/db/conditions";
import { deviceBlockEntry, sessionsRevokedEntry } from "./audit";

/**
 * Ends live sessions with one `session_revoked` event per affected device, in one batch. The
 * events go first and see exactly the sessions the UPDATE is about to end.
 */
async function revoke(
  ctx: ServiceContext,
  input: { tenantId: string | null; userId: string; reason: RevokeReason; scope: SQL; actorUserId: string | null; client: ClientInfo | null },
  notify: BatchItem[] = [],
  audit: BatchItem[] = [],
) {
  // The audit entry reads the sessions the revocation is about to end, so it goes first.
  const results = await runBatch(ctx, [
    ...audit,
    ...revokeSessionsWithEvents(ctx, {
      tenantId: input.tenantId,
      userIds: [input.userId],
      reason: input.reason,
      scope: input.scope,
      actorUserId: input.actorUserId,
      ip: input.client?.ip,
      userAgent: input.client?.userAgent,
    }),
    ...notify,
  ]);
  if (notify.length > 0) await dispatchQueued(ctx);
  return changedRows(results[audit.length + 1]);
}

/**
 * Self-service is a student matter (spec, Authentication 6); staff always manage their own devices.
 * Takes the rows of `devicePolicyQuery`, so a caller can batch that read with its own.
 */
function assertSelfManagement(ctx: SchoolCtx, policyRows: Awaited<ReturnType<typeof devicePolicyQuery>>) {
  if (ctx.actor.role === "student" && !effectivePolicy(policyRows[0]).allowSelfManagement) throw new ApiError(devicesErrors.SELF_MANAGEMENT_DISABLED);
}

/** POST /t/me/devices/:deviceId/revoke: signs one of the caller's devices out (the current one too). */
export async function revokeOwnDevice(ctx: SchoolCtx, { deviceId, client }: { deviceId: string; client: ClientInfo }) {
  const tenantId = ownSchool(ctx);
  const [policyRows, device] = await ctx.db.batch([
    devicePolicyQuery(ctx, tenantId),
    userDeviceQuery(ctx, tenantId, ctx.actor.userId, deviceId),
  ]);
  assertSelfManagement(ctx, policyRows);
  found(device, devicesErrors.DEVICE_NOT_FOUND);
  const revoked = await revoke(ctx, {
    tenantId,
    userId: ctx.actor.userId,
    reason: "self_revoke",
    scope: sql`s.auth_device_id = ${deviceId}`,
    actorUserId: null,
    client,
  });
  return { device_id: deviceId, revoked_sessions: revoked };
}

/** POST /t/me/sessions/revoke-others: every managed session of the caller except this one. */
export async function revokeOtherSessions(ctx: SchoolCtx, { client }: { client: ClientInfo }) {
  const tenantId = ownSchool(ctx);
  assertSelfManagement(ctx, await devicePolicyQuery(ctx, tenantId));
  const revoked = await revoke(ctx, {
    tenantId,
    userId: ctx.actor.userId,
    reason: "revoke_others",
    scope: sql`s.id <> ${ctx.actor.sessionId ?? ""}`,
    actorUserId: null,
    client,
  });
  return { device_id: null, revoked_sessions: revoked };
}

async function studentDevice(ctx: SchoolCtx, userId: string, deviceId: string) {
  const [target, device] = await ctx.db.batch([studentTargetQuery(ctx, userId), userDeviceQuery(ctx, ctx.tenantId, userId, deviceId)]);
  found(target, devicesErrors.STUDENT_NOT_FOUND);
  return found(device, devicesErrors.DEVICE_NOT_FOUND);
}

/** POST /t/users/:id/devices/:deviceId/revoke (admin). */
export async function adminRevokeDevice(ctx: SchoolCtx, { userId, deviceId }: { userId: string; deviceId: string }) {
  await studentDevice(ctx, userId, deviceId);
  const before = ctx.clock.now();
  // The session_revoked event this request writes (none when nothing was live): the push's `v`.
  const eventId = sql`(SELECT e.id FROM device_events e WHERE ${inSchool("e", ctx.tenantId)} AND e.auth_device_id = ${deviceId} AND e.type = 'session_revoked'
    AND e.created_at >= ${before} AND json_extract(e.detail, '$.reason') = 'admin_revoke' ORDER BY e.created_at DESC, e.id DESC LIMIT 1)`;
  const notice = await enqueue(
    ctx,
    "security.device_signed_out",
    { token: "user_other_devices", userId, excludeInstallationId: devicePushInstallationSql(deviceId) },
    { device_name: deviceLabelSql(deviceId) },
    { id: deviceId },
    sql`${`security.device_signed_out:${deviceId}:`} || ${eventId}`,
    { when: sql`${eventId} IS NOT NULL` },
  );
  const revoked = await revoke(
    ctx,
    { tenantId: ctx.tenantId, userId, reason: "admin_revoke", scope: sql`s.auth_device_id = ${deviceId}`, actorUserId: ctx.actor.userId, client: null },
    [notice],
    [sessionsRevokedEntry(ctx, { userId, scope: sql`s.auth_device_id = ${deviceId}` })],
  );
  return { device_id: deviceId, revoked_sessions: revoked };
}

/** POST /t/users/:id/sessions/revoke-all (admin): every managed session of the student. */
export async function adminRevokeAll(ctx: SchoolCtx, { userId }: { userId: string }) {
  found(await studentTargetQuery(ctx, userId), devicesErrors.STUDENT_NOT_FOUND);
  const before = ctx.clock.now();
  // When this request ended sessions (none when nothing was live): the push's `v`.
  const revokedAt = sql`(SELECT max(s.revoked_at) FROM sessions s WHERE ${inSchool("s", ctx.tenantId)} AND s.user_id = ${userId}
    AND s.revoke_reason = 'admin_revoke_all' AND s.revoked_at >= ${before})`;
  const notice = await enqueue(
    ctx,
    "security.all_sessions_revoked",
    { token: "user", userId },
    {
      sessions_count: sql`(SELECT count(*) FROM sessions s WHERE ${inSchool("s", ctx.tenantId)} AND s.user_id = ${userId}
        AND s.revoke_reason = 'admin_revoke_all' AND s.revoked_at = ${revokedAt})`,
    },
    { id: userId },
    sql`${`security.all_sessions_revoked:${userId}:`} || ${revokedAt}`,
    { when: sql`${revokedAt} IS NOT NULL` },
  );
  const revoked = await revoke(
    ctx,
    { tenantId: ctx.tenantId, userId, reason: "admin_revoke_all", scope: sql`1 = 1`, actorUserId: ctx.actor.userId, client: null },
    [notice],
    [sessionsRevokedEntry(ctx, { userId, scope: sql`1 = 1` })],
  );
  return { device_id: null, revoked_sessions: revoked };
}

function blockState(deviceId: string, row: { blockedAt: number | null; blockReason: string | null } | undefined, revoked: number) {
  return {
    device_id: deviceId,
    blocked: row?.blockedAt != null,
    blocked_at: isoOrNull(row?.blockedAt),
    block_reason: row?.blockReason ?? null,
    revoked_sessions: revoked,
  };
}

/**
 * POST /t/users/:id/devices/:deviceId/block: bans the installation from future logins and ends its
 * sessions in one batch. The event is conditional on the device not being blocked yet, so a
 * repeated block changes nothing and records nothing.
 */
export async function blockDevice(ctx: SchoolCtx, { userId, deviceId, reason }: { userId: string; deviceId: string; reason: string | null }) {
  const { tenantId, actor } = ctx;
  await studentDevice(ctx, userId, deviceId);
  const now = ctx.clock.now();
  const eventId = uuidv7(now);
  const results = await runBatch(ctx, [
    await enqueue(
      ctx,
      "security.device_blocked",
      { token: "user_other_devices", userId, excludeInstallationId: devicePushInstallationSql(deviceId) },
      { device_name: deviceLabelSql(deviceId) },
      { id: deviceId },
      `security.device_blocked:${deviceId}:${eventId}`,
      // Ahead of the event so the condition reads the state before this block.
      { when: sql`EXISTS (SELECT 1 FROM auth_devices d WHERE d.id = ${deviceId} AND d.user_id = ${userId} AND ${inSchool("d", tenantId)} AND d.blocked_at IS NULL)` },
    ),
    batchable(
      ctx,
      sql`
      INSERT INTO device_events (id, tenant_id, user_id, auth_device_id, type, actor_user_id, detail, created_at)
      SELECT ${eventId}, d.tenant_id, d.user_id, d.id, 'device_blocked', ${actor.userId},
             json_object('reason', ${reason}, 'sessions', (SELECT count(*) FROM sessions s WHERE s.auth_device_id = d.id AND ${inSchool("s", tenantId)} AND ${liveSessionSql(now)})), ${now}
      FROM auth_devices d WHERE d.id = ${deviceId} AND d.user_id = ${userId} AND ${inSchool("d", tenantId)} AND d.blocked_at IS NULL`,
    ),
    deviceBlockEntry(ctx, { userId, deviceId, blocked: true, reason }),
    batchable(
      ctx,
      sql`UPDATE auth_devices SET blocked_at = ${now}, block_reason = ${reason}, updated_at = ${now}
          WHERE id = ${deviceId} AND user_id = ${userId} AND ${inSchool(tenantId)} AND blocked_at IS NULL`,
    ),
    batchable(
      ctx,
      sql`UPDATE sessions AS s SET revoked_at = ${now}, revoke_reason = 'device_blocked'
          WHERE s.user_id = ${userId} AND ${inSchool("s", tenantId)} AND s.auth_device_id = ${deviceId} AND ${liveSessionSql(now)}`,
    ),
    userDeviceQuery(ctx, tenantId, userId, deviceId),
  ]);
  await dispatchQueued(ctx);
  return blockState(deviceId, (results[5] as Awaited<ReturnType<typeof userDeviceQuery>>)[0], changedRows(results[4]));
}

/** POST /t/users/:id/devices/:deviceId/unblock: lifts the ban; revoked sessions stay revoked. */
export async function unblockDevice(ctx: SchoolCtx, { userId, deviceId }: { userId: string; deviceId: string }) {
  const { tenantId, actor } = ctx;
  await studentDevice(ctx, userId, deviceId);
  const now = ctx.clock.now();
  const eventId = uuidv7(now);
  const results = await runBatch(ctx, [
    batchable(
      ctx,
      sql`
      INSERT INTO device_events (id, tenant_id, user_id, auth_device_id, type, actor_user_id, created_at)
      SELECT ${eventId}, d.tenant_id, d.user_id, d.id, 'device_unblocked', ${actor.userId}, ${now}
      FROM auth_devices d WHERE d.id = ${deviceId} AND d.user_id = ${userId} AND ${inSchool("d", tenantId)} AND d.blocked_at IS NOT NULL`,
    ),
    deviceBlockEntry(ctx, { userId, deviceId, blocked: false, reason: null }),
    batchable(
      ctx,
      sql`UPDATE auth_devices SET blocked_at = NULL, block_reason = NULL, updated_at = ${now}
          WHERE id = ${deviceId} AND user_id = ${userId} AND ${inSchool(tenantId)} AND blocked_at IS NOT NULL`,
    ),
    await enqueue(
      ctx,
      "security.device_unblocked",
      { token: "user", userId },
      { device_name: deviceLabelSql(deviceId) },
      { id: deviceId },
      `security.device_unblocked:${deviceId}:${eventId}`,
      { when: sql`EXISTS (SELECT 1 FROM device_events e WHERE e.id = ${eventId})` },
    ),
    userDeviceQuery(ctx, tenantId, userId, deviceId),
  ]);
  await dispatchQueued(ctx);
  return blockState(deviceId, (results[4] as Awaited<ReturnType<typeof userDeviceQuery>>)[0], 0);
}
