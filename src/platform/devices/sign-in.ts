import { inSchoolCtx } from "../../core/school";
import { log } from "../../core/lib/log";
import { and, desc, eq, sql } from "drizzle-orm";
import { runBatch, type BatchItem } from "../../core/db/batch";
import { authDevices, deviceReplacementTokens } from "../../db/schema";
import {
  startSession,
  type ClientInfo,
  type DeviceDescription,
  type IssuedSession,
  type SessionAdmission,
  type StartedSessionRefs,
} from "./session-service";
import type { Role, ServiceContext } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { iso, MINUTE_MS } from "../../core/lib/clock";
import { randomSecret, sha256Hex } from "../../core/lib/crypto";
import { markedSecret } from "./account-db";
import { uuidv7 } from "../../core/lib/ids";
import type { SealedPushToken } from "../notifications/push-token-crypto";
import { deviceEventInsert, revokeSessionsWithEvents } from "./events";
import { dispatchQueued } from "../notifications/enqueue";
import { newDeviceNotificationStatement } from "./new-device-notification";
import {
  devicePolicyQuery,
  effectiveDeviceLimit,
  effectivePolicy,
  inactiveCutoff,
  liveOverrideQuery,
  type DevicePolicy,
  type EffectiveLimit,
} from "./policy";
import { devicesErrors } from "./errors";
import { pushInstallationId, pushRegistrationStatements } from "./push-registration";
import { activeDeviceSql } from "./sql";
import { ofSchool } from "./targets";
import { auditEntry } from "../audit/write";

const REPLACEMENT_TOKEN_TTL_MS = 10 * MINUTE_MS;

/** What a refused login stores so the replacement can finish it without the password. */
export interface PendingSignIn {
  device: DeviceDescription;
  push: SealedPushToken | null;
}

interface SignInInput {
  /** `shard`: the database of the account (null: the control database, the superadmin's). */
  user: { id: string; tenantId: string | null; role: Role; shard: string | null };
  device: DeviceDescription;
  client: ClientInfo;
  /** A login's `device_token`, already sealed (tenant users only). */
  push: SealedPushToken | null;
  /** Unconditional writes of the caller (login guard reset, password rehash). */
  statements?: BatchItem[];
  /** Continuing a refused login: the unused token and the device the user gives up. */
  replacement?: { tokenId: string; revokeDeviceId: string; audit: DeviceReplacedAudit };
}

/** The student replacing their own device: the audit entry's actor (the sign-in runs as a system job). */
export interface DeviceReplacedAudit {
  actor: { userId: string; role: string; name: string };
}

/**
 * Signs a verified user in on a device under the school's device policy: blocked installations,
 * the installation-id rollout switch, the device limit (enforced or monitored), the push
 * registration and the new-device warning. The limit is held by the conditional session insert
 * of `startSession`; this function only reads configuration and explains refusals.
 */
export async function signInDevice(ctx: ServiceContext, input: SignInInput): Promise<IssuedSession> {
  const now = ctx.clock.now();
  const { user, device, client } = input;
  const installationId = device.installationId ?? null;
  const [policyRows, overrideRows, knownDevices] = await ctx.db.batch([
    devicePolicyQuery(ctx, user.tenantId),
    liveOverrideQuery(ctx, user.tenantId, user.id, now),
    ctx.db
      .select({ id: authDevices.id, blockedAt: authDevices.blockedAt })
      .from(authDevices)
      .where(and(eq(authDevices.userId, user.id), ofSchool(authDevices.tenantId, user.tenantId), eq(authDevices.installationId, installationId ?? ""))),
  ]);
  const policy = effectivePolicy(policyRows[0]);
  const refusal = (reason: string, authDeviceId: string | null = null) => deviceEventInsert(ctx, refusalEvent(input, reason, authDeviceId));

  const blocked = knownDevices[0]?.blockedAt != null ? knownDevices[0] : undefined;
  if (blocked) {
    await runBatch(ctx, [refusal("device_blocked", blocked.id), ...(input.statements ?? [])]);
    throw new ApiError(devicesErrors.DEVICE_BLOCKED);
  }
  if (!input.replacement && user.role === "student" && !installationId && ctx.config.installationIdRequired) {
    await runBatch(ctx, [refusal("installation_id_required"), ...(input.statements ?? [])]);
    throw new ApiError(devicesErrors.INSTALLATION_ID_REQUIRED);
  }
  if (input.replacement && !policy.allowSelfReplacement) {
    throw new ApiError(devicesErrors.SELF_REPLACEMENT_DISABLED);
  }

  const limit = effectiveDeviceLimit(user.role, policy, overrideRows[0]);
  const enforced = policy.mode === "enforce" && limit.limit !== null;
  const admission: SessionAdmission = {
    enforceLimit: enforced ? limit.limit : null,
    monitorLimit: enforced ? null : limit.limit,
    inactiveCutoff: inactiveCutoff(policy, now),
    excludeDeviceId: input.replacement?.revokeDeviceId,
    conditions: input.replacement
      ? [sql`EXISTS (SELECT 1 FROM device_replacement_tokens WHERE id = ${input.replacement.tokenId} AND used_at IS NULL AND expires_at > ${now})`]
      : [],
  };

  let session: IssuedSession | null;
  try {
    session = await startSession(ctx, {
      user,
      policy,
      device,
      client,
      statements: input.statements,
      admission,
      via: input.replacement ? "device_replacement" : "password",
      followUps: (refs) => followUps(ctx, input, policy, refs),
    });
  } catch (err) {
    if (!input.push) throw err;
    log.error("login with device_token failed to commit", { request_id: ctx.requestId, error: String(err) });
    throw new ApiError(devicesErrors.DEVICE_REGISTRATION_FAILED);
  }
  if (session) {
    await dispatchQueued(ctx);
    return session;
  }
  return explainRefusal(ctx, input, policy, limit);
}

async function followUps(ctx: ServiceContext, input: SignInInput, policy: DevicePolicy, refs: StartedSessionRefs): Promise<BatchItem[]> {
  const { user, device } = input;
  const statements: BatchItem[] = [];
  if (input.replacement) {
    const { tokenId, revokeDeviceId } = input.replacement;
    const scope = sql`s.auth_device_id = ${revokeDeviceId} AND ${refs.started}`;
    statements.push(
      auditEntry(inSchoolCtx(ctx), {
        action: "device.replaced",
        targetType: "device",
        targetId: revokeDeviceId,
        summary: "Device replaced by its owner at sign-in",
        actor: input.replacement.audit.actor,
        when: refs.started,
      }),
      ctx.db
        .update(deviceReplacementTokens)
        .set({ usedAt: ctx.clock.now() })
        .where(and(eq(deviceReplacementTokens.id, tokenId), sql`used_at IS NULL`, refs.started)),
      ...revokeSessionsWithEvents(ctx, {
        tenantId: user.tenantId,
        userIds: [user.id],
        reason: "device_replaced",
        scope,
        ip: input.client.ip,
        userAgent: input.client.userAgent,
      }),
    );
  }
  if (user.tenantId === null) return statements;
  const pushInstallation = pushInstallationId(device.installationId ?? null, refs.newDeviceId);
  if (input.push) {
    statements.push(
      ...pushRegistrationStatements(ctx, {
        tenantId: user.tenantId,
        userId: user.id,
        installationId: device.installationId ?? null,
        platform: device.platform,
        appVersion: device.appVersion ?? null,
        sealed: input.push,
        refs,
      }),
    );
  }
  if (policy.notifyOnNewDevice && user.tenantId !== null) {
    statements.push(await newDeviceNotificationStatement(inSchoolCtx(ctx), { userId: user.id, device, pushInstallationId: pushInstallation, refs }));
  }
  return statements;
}

/** The conditional insert did not land: a used token, a block that raced the login, or the limit. */
async function explainRefusal(ctx: ServiceContext, input: SignInInput, policy: DevicePolicy, limit: EffectiveLimit): Promise<never> {
  const now = ctx.clock.now();
  const { user } = input;
  const installationId = input.device.installationId ?? null;
  const cutoff = inactiveCutoff(policy, now);
  const [tokenRows, blockedRows, activeDevices] = await ctx.db.batch([
    ctx.db
      .select({ usedAt: deviceReplacementTokens.usedAt, expiresAt: deviceReplacementTokens.expiresAt })
      .from(deviceReplacementTokens)
      .where(and(eq(deviceReplacementTokens.id, input.replacement?.tokenId ?? ""), ofSchool(deviceReplacementTokens.tenantId, user.tenantId))),
    ctx.db
      .select({ id: authDevices.id })
      .from(authDevices)
      .where(
        and(
          eq(authDevices.userId, user.id),
          ofSchool(authDevices.tenantId, user.tenantId),
          eq(authDevices.installationId, installationId ?? ""),
          sql`blocked_at IS NOT NULL`,
        ),
      ),
    activeDevicesQuery(ctx, user, now, cutoff, installationId),
  ]);
  if (input.replacement) {
    const token = tokenRows[0];
    if (!token || token.usedAt !== null || token.expiresAt <= now) throw new ApiError(devicesErrors.INVALID_REPLACEMENT_TOKEN);
  }
  if (blockedRows[0]) {
    await ctx.db.batch([deviceEventInsert(ctx, refusalEvent(input, "device_blocked", blockedRows[0].id))]);
    throw new ApiError(devicesErrors.DEVICE_BLOCKED);
  }

  const statements: BatchItem[] = [deviceEventInsert(ctx, refusalEvent(input, "device_limit_reached", null, { limit: limit.limit, active_devices: activeDevices.length }))];
  let replacement: { token: string; expiresAt: number } | null = null;
  if (!input.replacement && policy.allowSelfReplacement && user.tenantId !== null) {
    replacement = { token: markedSecret(user.shard, randomSecret(32)), expiresAt: now + REPLACEMENT_TOKEN_TTL_MS };
    const pending: PendingSignIn = { device: input.device, push: input.push };
    statements.push(
      ctx.db.insert(deviceReplacementTokens).values({
        id: uuidv7(now),
        tenantId: user.tenantId,
        userId: user.id,
        tokenHash: await sha256Hex(replacement.token),
        pendingDevice: pending as unknown as Record<string, unknown>,
        expiresAt: replacement.expiresAt,
        createdAt: now,
      }),
    );
  }
  await runBatch(ctx, statements);
  throw new ApiError(devicesErrors.DEVICE_LIMIT_REACHED, {
    data: {
      max_active_devices: limit.limit,
      active_devices: activeDevices.length,
      devices: activeDevices.map(safeDevice),
      ...(replacement ? { replacement_token: replacement.token, replacement_expires_at: iso(replacement.expiresAt) } : {}),
    },
  });
}

function refusalEvent(input: SignInInput, reason: string, authDeviceId: string | null, extra: Record<string, unknown> = {}) {
  return {
    type: "login_refused" as const,
    tenantId: input.user.tenantId,
    userId: input.user.id,
    authDeviceId,
    ip: input.client.ip,
    userAgent: input.client.userAgent,
    detail: { reason, ...extra },
  };
}

/** The user's devices that count toward the limit, most recently seen first. */
function activeDevicesQuery(ctx: ServiceContext, user: SignInInput["user"], now: number, cutoff: number, excludeInstallationId: string | null) {
  return ctx.db
    .select({
      id: authDevices.id,
      name: authDevices.name,
      platform: authDevices.platform,
      osName: authDevices.osName,
      osVersion: authDevices.osVersion,
      browserName: authDevices.browserName,
      browserVersion: authDevices.browserVersion,
      appVersion: authDevices.appVersion,
      lastSeenAt: authDevices.lastSeenAt,
      createdAt: authDevices.createdAt,
    })
    .from(authDevices)
    .where(
      and(
        eq(authDevices.userId, user.id),
        ofSchool(authDevices.tenantId, user.tenantId),
        activeDeviceSql({ now, inactiveCutoff: cutoff, excludeInstallationId }, "auth_devices"),
      ),
    )
    .orderBy(desc(authDevices.lastSeenAt));
}

/** What a refused login may learn about the account's devices: no installation ids, no addresses. */
function safeDevice(row: Awaited<ReturnType<typeof activeDevicesQuery>>[number]) {
  return {
    id: row.id,
    name: row.name,
    platform: row.platform,
    os_name: row.osName,
    os_version: row.osVersion,
    browser_name: row.browserName,
    browser_version: row.browserVersion,
    app_version: row.appVersion,
    last_seen_at: iso(row.lastSeenAt),
    created_at: iso(row.createdAt),
  };
}
