import { and, desc, eq, isNotNull, isNull, sql } from "drizzle-orm";
import { notificationOutbox, pushDevices, pushPreferences } from "../../db/schema";
import { batchable, runBatch } from "../../core/db/batch";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { iso, isoOrNull } from "../../core/lib/clock";
import { uuidv7 } from "../../core/lib/ids";
import { log } from "../../core/lib/log";
import { pageOffset } from "../../core/http/pagination";
import { PUSH_PROVIDER_ID } from "./delivery";
import { pushTokenBinding, pushTokenKeys, sealPushToken, type SealedPushToken } from "./push-token-crypto";
import { notificationsErrors as e } from "./errors";
import { inSchool } from "../../core/db/conditions";

/** The caller as a member of the school: the superadmin has no push registry anywhere. */
function member(ctx: SchoolCtx): { tenantId: string; userId: string } {
  if (ctx.actor.homeTenantId !== ctx.tenantId) throw new ApiError(e.NO_SCHOOL_MEMBERSHIP);
  return { tenantId: ctx.tenantId, userId: ctx.actor.userId };
}

// ---------------------------------------------------------------------------------------------
// Preferences

export async function getPreferences(ctx: SchoolCtx) {
  const me = member(ctx);
  const [row] = await ctx.db
    .select({ pushEnabled: pushPreferences.pushEnabled, updatedAt: pushPreferences.updatedAt })
    .from(pushPreferences)
    .where(and(inSchool(pushPreferences, me.tenantId), eq(pushPreferences.userId, me.userId)));
  return { preference: { push_enabled: row?.pushEnabled ?? true, updated_at: isoOrNull(row?.updatedAt) } };
}

/** Disabling keeps the devices: new deliveries are suppressed until it is switched back on. */
export async function updatePreferences(ctx: SchoolCtx, input: { pushEnabled: boolean }) {
  const me = member(ctx);
  const now = ctx.clock.now();
  const [row] = await ctx.db
    .insert(pushPreferences)
    .values({ tenantId: me.tenantId, userId: me.userId, pushEnabled: input.pushEnabled, updatedAt: now })
    .onConflictDoUpdate({ target: [pushPreferences.tenantId, pushPreferences.userId], set: { pushEnabled: input.pushEnabled, updatedAt: now } })
    .returning();
  return { preference: { push_enabled: row!.pushEnabled, updated_at: iso(row!.updatedAt) } };
}

// ---------------------------------------------------------------------------------------------
// History

/**
 * Notifications that reached at least one of the caller's devices in this school, one row each
 * however many devices got it, newest first. Suppressed and finally undelivered ones never have
 * `sent_at`, so they never show.
 */
export async function myNotifications(ctx: SchoolCtx, input: { page: number; limit: number }) {
  const me = member(ctx);
  const where = and(inSchool(notificationOutbox, me.tenantId), eq(notificationOutbox.userId, me.userId), isNotNull(notificationOutbox.sentAt));
  const rows = await ctx.db
    .select({
      id: notificationOutbox.id,
      eventCode: notificationOutbox.eventCode,
      category: notificationOutbox.category,
      title: notificationOutbox.title,
      body: notificationOutbox.body,
      deepLink: notificationOutbox.deepLink,
      data: notificationOutbox.data,
      aggregateType: notificationOutbox.aggregateType,
      aggregateId: notificationOutbox.aggregateId,
      sentAt: notificationOutbox.sentAt,
      createdAt: notificationOutbox.createdAt,
      total: sql<number>`count(*) OVER ()`,
    })
    .from(notificationOutbox)
    .where(where)
    .orderBy(desc(notificationOutbox.createdAt), desc(notificationOutbox.id))
    .limit(input.limit)
    .offset(pageOffset(input.page, input.limit));
  // A page past the end carries no row to read the window count from.
  const total = rows[0]?.total ?? (input.page > 1 ? ((await ctx.db.select({ n: sql<number>`count(*)` }).from(notificationOutbox).where(where))[0]?.n ?? 0) : 0);
  return {
    notifications: rows.map((row) => ({
      id: row.id,
      event_code: row.eventCode,
      category: row.category,
      title: row.title,
      body: row.body,
      deep_link: row.deepLink,
      data: row.data,
      aggregate_type: row.aggregateType,
      aggregate_id: row.aggregateId,
      sent_at: isoOrNull(row.sentAt),
      created_at: iso(row.createdAt),
    })),
    total,
    page: input.page,
    limit: input.limit,
  };
}

// ---------------------------------------------------------------------------------------------
// Push devices

type PushDeviceRow = typeof pushDevices.$inferSelect;

export function presentPushDevice(row: PushDeviceRow) {
  return {
    id: row.id,
    installation_id: row.installationId,
    provider: row.provider,
    platform: row.platform,
    enabled: row.enabled,
    app_version: row.appVersion,
    last_seen_at: iso(row.lastSeenAt),
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  };
}

const devicesOf = (me: { tenantId: string; userId: string }) =>
  and(inSchool(pushDevices, me.tenantId), eq(pushDevices.userId, me.userId), isNull(pushDevices.deletedAt));

export async function myPushDevices(ctx: SchoolCtx) {
  const me = member(ctx);
  const rows = await ctx.db.select().from(pushDevices).where(devicesOf(me)).orderBy(desc(pushDevices.lastSeenAt), desc(pushDevices.id));
  return { devices: rows.map(presentPushDevice) };
}

async function seal(ctx: SchoolCtx, token: string, installationId: string): Promise<SealedPushToken> {
  const keys = await pushTokenKeys(ctx.env.PUSH_TOKEN_KEY);
  if (!keys) {
    log.error("PUSH_TOKEN_KEY missing or not 32 bytes; push device registration refused", { request_id: ctx.requestId });
    throw new ApiError(e.PUSH_NOT_CONFIGURED);
  }
  return sealPushToken(keys, token, pushTokenBinding(ctx.tenantId, installationId));
}

/** Any other live binding of the token (another installation, user or school) loses it: one device, one owner. */
function releaseTokenElsewhere(ctx: SchoolCtx, hash: string, keep: { deviceId?: string; tenantId: string; userId: string; installationId: string }, now: number) {
  return batchable(ctx, sql`
    UPDATE push_devices SET token_ciphertext = NULL, token_hash = NULL, enabled = 0, updated_at = ${now}
    WHERE token_hash = ${hash} AND deleted_at IS NULL
      AND NOT (${inSchool(keep.tenantId)} AND user_id = ${keep.userId} AND provider = ${PUSH_PROVIDER_ID} AND installation_id = ${keep.installationId})`);
}

/**
 * Idempotent upsert by (school, user, provider, installation): a repeat updates a rotated token,
 * the platform and app version and re-enables the binding.
 */
export async function registerPushDevice(
  ctx: SchoolCtx,
  input: { installationId: string; token: string; platform: "web" | "ios" | "android"; appVersion?: string | null },
) {
  const me = member(ctx);
  const sealed = await seal(ctx, input.token, input.installationId);
  const now = ctx.clock.now();
  const appVersion = input.appVersion === undefined ? sql`push_devices.app_version` : sql`${input.appVersion}`;
  const [, , rows] = (await runBatch(ctx, [
    releaseTokenElsewhere(ctx, sealed.hash, { ...me, installationId: input.installationId }, now),
    batchable(ctx, sql`
      INSERT INTO push_devices (id, tenant_id, user_id, installation_id, provider, platform, token_ciphertext, token_hash, enabled, app_version, last_seen_at, created_at, updated_at)
      VALUES (${uuidv7(now)}, ${me.tenantId}, ${me.userId}, ${input.installationId}, ${PUSH_PROVIDER_ID}, ${input.platform},
              ${sealed.ciphertext}, ${sealed.hash}, 1, ${input.appVersion ?? null}, ${now}, ${now}, ${now})
      ON CONFLICT (tenant_id, user_id, provider, installation_id) WHERE deleted_at IS NULL DO UPDATE SET
        platform = excluded.platform,
        token_ciphertext = excluded.token_ciphertext,
        token_hash = excluded.token_hash,
        enabled = 1,
        app_version = ${appVersion},
        last_seen_at = excluded.last_seen_at,
        updated_at = excluded.updated_at`),
    ctx.db
      .select()
      .from(pushDevices)
      .where(and(devicesOf(me), eq(pushDevices.provider, PUSH_PROVIDER_ID), eq(pushDevices.installationId, input.installationId))),
  ])) as [unknown, unknown, PushDeviceRow[]];
  return { device: presentPushDevice(rows[0]!) };
}

export async function updatePushDevice(
  ctx: SchoolCtx,
  input: { id: string; token?: string; platform?: "web" | "ios" | "android"; enabled?: boolean; appVersion?: string | null },
) {
  const me = member(ctx);
  const [device] = await ctx.db.select().from(pushDevices).where(and(devicesOf(me), eq(pushDevices.id, input.id)));
  if (!device) throw new ApiError(e.PUSH_DEVICE_NOT_FOUND);
  const sealed = input.token === undefined ? null : await seal(ctx, input.token, device.installationId);
  const now = ctx.clock.now();
  const update = ctx.db
    .update(pushDevices)
    .set({
      ...(sealed ? { tokenCiphertext: sealed.ciphertext, tokenHash: sealed.hash } : {}),
      ...(input.platform !== undefined ? { platform: input.platform } : {}),
      ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
      ...(input.appVersion !== undefined ? { appVersion: input.appVersion } : {}),
      lastSeenAt: now,
      updatedAt: now,
    })
    .where(and(devicesOf(me), eq(pushDevices.id, input.id)))
    .returning();
  const results = await runBatch(ctx, sealed ? [releaseTokenElsewhere(ctx, sealed.hash, { ...me, installationId: device.installationId }, now), update] : [update]);
  const [row] = results[results.length - 1] as PushDeviceRow[];
  // Deleted between the read and the write.
  if (!row) throw new ApiError(e.PUSH_DEVICE_NOT_FOUND);
  return { device: presentPushDevice(row) };
}

/** Soft delete that also wipes the sealed token and its hash for good. */
export async function deletePushDevice(ctx: SchoolCtx, input: { id: string }) {
  const me = member(ctx);
  const now = ctx.clock.now();
  const rows = await ctx.db
    .update(pushDevices)
    .set({ deletedAt: now, tokenCiphertext: null, tokenHash: null, enabled: false, updatedAt: now })
    .where(and(devicesOf(me), eq(pushDevices.id, input.id)))
    .returning({ id: pushDevices.id });
  if (rows.length === 0) throw new ApiError(e.PUSH_DEVICE_NOT_FOUND);
  return { deleted: true as const };
}
