import type { z } from "@hono/zod-openapi";
import { and, eq, exists, sql } from "drizzle-orm";
import { deviceLimitOverrides, devicePolicies } from "../../db/schema";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError, coreErrors } from "../../core/http/errors";
import { iso, isoOrNull } from "../../core/lib/clock";
import { devicePolicyQuery, effectivePolicy, liveOverrideQuery, type DeviceLimitOverride } from "./policy";
import type { DevicePolicyPatch, OverrideBody } from "./schemas";
import { dispatchQueued, enqueue } from "../notifications/enqueue";
import { devicesErrors } from "./errors";
import { found, studentTargetQuery } from "./targets";
import { inSchool } from "../../core/db/conditions";
import { devicePolicyEntry, overrideRemovedEntry, overrideSetEntry } from "./audit";

type PolicyRow = typeof devicePolicies.$inferSelect;

function policyJson(row: PolicyRow | undefined) {
  const policy = effectivePolicy(row);
  return {
    mode: policy.mode,
    max_active_devices: policy.maxActiveDevices,
    inactive_device_days: policy.inactiveDeviceDays,
    allow_self_management: policy.allowSelfManagement,
    allow_self_replacement: policy.allowSelfReplacement,
    notify_on_new_device: policy.notifyOnNewDevice,
    revoke_on_password_change: policy.revokeOnPasswordChange,
    revoke_on_password_reset: policy.revokeOnPasswordReset,
    session_idle_timeout_minutes: policy.sessionIdleTimeoutMinutes,
    session_absolute_lifetime_days: policy.sessionAbsoluteLifetimeDays,
    event_retention_days: policy.eventRetentionDays,
    ip_visibility: policy.ipVisibility,
    updated_at: isoOrNull(row?.updatedAt),
  };
}

/** GET /t/tenant/device-policy: the saved policy, or the defaults with `updated_at: null`. */
export async function getDevicePolicy(ctx: SchoolCtx) {
  const rows = await devicePolicyQuery(ctx, ctx.tenantId);
  return policyJson(rows[0]);
}

const PATCH_COLUMNS = {
  mode: "mode",
  max_active_devices: "maxActiveDevices",
  inactive_device_days: "inactiveDeviceDays",
  allow_self_management: "allowSelfManagement",
  allow_self_replacement: "allowSelfReplacement",
  notify_on_new_device: "notifyOnNewDevice",
  revoke_on_password_change: "revokeOnPasswordChange",
  revoke_on_password_reset: "revokeOnPasswordReset",
  session_idle_timeout_minutes: "sessionIdleTimeoutMinutes",
  session_absolute_lifetime_days: "sessionAbsoluteLifetimeDays",
  event_retention_days: "eventRetentionDays",
  ip_visibility: "ipVisibility",
} as const satisfies Record<keyof z.infer<typeof DevicePolicyPatch>, keyof PolicyRow>;

/**
 * PATCH /t/tenant/device-policy: an upsert that sets only the fields sent, so two admins changing
 * different fields at once both keep their change. The first save starts from the defaults.
 */
export async function updateDevicePolicy(ctx: SchoolCtx, { patch }: { patch: z.infer<typeof DevicePolicyPatch> }) {
  const { tenantId } = ctx;
  const now = ctx.clock.now();
  const changes: Partial<PolicyRow> = {};
  for (const [field, column] of Object.entries(PATCH_COLUMNS) as [keyof typeof PATCH_COLUMNS, keyof PolicyRow][]) {
    if (patch[field] !== undefined) (changes as Record<string, unknown>)[column] = patch[field];
  }
  if (Object.keys(changes).length === 0) return getDevicePolicy(ctx);

  const [, , rows] = await ctx.db.batch([
    devicePolicyEntry(ctx, patch),
    ctx.db
      .insert(devicePolicies)
      .values({ ...effectivePolicy(undefined), ...changes, tenantId, updatedAt: now })
      .onConflictDoUpdate({ target: devicePolicies.tenantId, set: { ...changes, updatedAt: now } }),
    devicePolicyQuery(ctx, tenantId),
  ]);
  return policyJson(rows[0]);
}

// ---------------------------------------------------------------------------------------------
// Per-student override

export function overrideJson(row: DeviceLimitOverride) {
  return {
    user_id: row.userId,
    unlimited_devices: row.unlimitedDevices,
    max_active_devices: row.maxActiveDevices,
    expires_at: isoOrNull(row.expiresAt),
    reason: row.reason,
    created_by_user_id: row.createdByUserId,
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  };
}

/** GET /t/users/:id/device-policy-override: 404 while the school defaults apply (none, or expired). */
export async function getOverride(ctx: SchoolCtx, { userId }: { userId: string }) {
  const [target, overrides] = await ctx.db.batch([
    studentTargetQuery(ctx, userId),
    liveOverrideQuery(ctx, ctx.tenantId, userId, ctx.clock.now()),
  ]);
  found(target, devicesErrors.STUDENT_NOT_FOUND);
  return overrideJson(found(overrides, devicesErrors.OVERRIDE_NOT_FOUND));
}

/** PUT /t/users/:id/device-policy-override: creates or replaces the whole override. */
export async function putOverride(ctx: SchoolCtx, { userId, body }: { userId: string; body: z.infer<typeof OverrideBody> }) {
  const { tenantId } = ctx;
  const now = ctx.clock.now();
  const expiresAt = body.expires_at ? Date.parse(body.expires_at) : null;
  if (expiresAt !== null && expiresAt <= now) {
    throw new ApiError(coreErrors.INVALID_REQUEST_BODY, {
      message: "expires_at: must be in the future",
      details: [{ path: "expires_at", message: "must be in the future" }],
    });
  }
  const [target, policyRows] = await ctx.db.batch([studentTargetQuery(ctx, userId), devicePolicyQuery(ctx, tenantId)]);
  found(target, devicesErrors.STUDENT_NOT_FOUND);
  const values = {
    unlimitedDevices: body.unlimited_devices,
    maxActiveDevices: body.unlimited_devices ? null : (body.max_active_devices ?? null),
    expiresAt,
    reason: body.reason ?? null,
    createdByUserId: ctx.actor.userId,
    updatedAt: now,
  };
  const schoolLimit = effectivePolicy(policyRows[0]).maxActiveDevices;
  const newLimit = values.unlimitedDevices ? null : (values.maxActiveDevices ?? schoolLimit);
  const [, , , rows] = await ctx.db.batch([
    await deviceLimitChangedPush(ctx, { userId, newLimit, schoolLimit, now }),
    overrideSetEntry(ctx, {
      userId,
      after: { unlimited_devices: values.unlimitedDevices, max_active_devices: values.maxActiveDevices, expires_at: isoOrNull(expiresAt), reason: values.reason },
    }),
    ctx.db
      .insert(deviceLimitOverrides)
      .values({ tenantId, userId, ...values, createdAt: now })
      .onConflictDoUpdate({ target: [deviceLimitOverrides.tenantId, deviceLimitOverrides.userId], set: values }),
    ctx.db
      .select()
      .from(deviceLimitOverrides)
      .where(and(inSchool(deviceLimitOverrides, tenantId), eq(deviceLimitOverrides.userId, userId))),
  ]);
  await dispatchQueued(ctx);
  return overrideJson(rows[0]!);
}

/**
 * DELETE /t/users/:id/device-policy-override: back to the school's policy; 404 when there is nothing
 * to remove. The delete is conditional on the target being a live student, so a 404
 * `user_not_found` never removes anything.
 */
export async function deleteOverride(ctx: SchoolCtx, { userId }: { userId: string }) {
  const { tenantId } = ctx;
  const now = ctx.clock.now();
  const schoolLimit = effectivePolicy((await devicePolicyQuery(ctx, tenantId))[0]).maxActiveDevices;
  const [, target, , deleted] = await ctx.db.batch([
    await deviceLimitChangedPush(ctx, { userId, newLimit: schoolLimit, schoolLimit, now }),
    studentTargetQuery(ctx, userId),
    overrideRemovedEntry(ctx, { userId }),
    ctx.db
      .delete(deviceLimitOverrides)
      .where(
        and(
          inSchool(deviceLimitOverrides, tenantId),
          eq(deviceLimitOverrides.userId, userId),
          exists(studentTargetQuery(ctx, userId)),
        ),
      )
      .returning({ userId: deviceLimitOverrides.userId }),
  ]);
  found(target, devicesErrors.STUDENT_NOT_FOUND);
  found(deleted, devicesErrors.OVERRIDE_NOT_FOUND);
  await dispatchQueued(ctx);
  return { deleted: true as const };
}

/**
 * `account.device_limit_changed`, to place ahead of the override write: it compares the
 * student's effective limit before the write (a live override, else the school's) with the one
 * the write leaves, so only a real change is announced. Null means no limit.
 */
function deviceLimitChangedPush(ctx: SchoolCtx, input: { userId: string; newLimit: number | null; schoolLimit: number | null; now: number }) {
  const { userId, now } = input;
  const current = sql`(SELECT CASE WHEN o.unlimited_devices = 1 THEN NULL WHEN o.max_active_devices IS NOT NULL THEN o.max_active_devices ELSE ${input.schoolLimit} END
    FROM (SELECT 1) LEFT JOIN device_limit_overrides o ON ${inSchool("o", ctx.tenantId)} AND o.user_id = ${userId} AND (o.expires_at IS NULL OR o.expires_at > ${now}))`;
  return enqueue(
    ctx,
    "account.device_limit_changed",
    { token: "student", studentId: userId },
    { device_limit: input.newLimit },
    { id: userId },
    `account.device_limit_changed:${userId}:${now}`,
    { when: sql`${current} IS NOT ${input.newLimit}` },
  );
}
