import type { z } from "@hono/zod-openapi";
import { and, eq, exists } from "drizzle-orm";
import { deviceLimitOverrides, devicePolicies } from "../../db/schema";
import type { TenantCtx } from "../../core/http/context";
import { ApiError, coreErrors } from "../../core/http/errors";
import { iso, isoOrNull } from "../../core/lib/clock";
import { devicePolicyQuery, effectivePolicy, liveOverrideQuery, type DeviceLimitOverride } from "./policy";
import type { DevicePolicyPatch, OverrideBody } from "./schemas";
import { devicesErrors } from "./errors";
import { found, studentTargetQuery } from "./targets";

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
export async function getDevicePolicy(ctx: TenantCtx) {
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
export async function updateDevicePolicy(ctx: TenantCtx, { patch }: { patch: z.infer<typeof DevicePolicyPatch> }) {
  const { tenantId } = ctx;
  const now = ctx.clock.now();
  const changes: Partial<PolicyRow> = {};
  for (const [field, column] of Object.entries(PATCH_COLUMNS) as [keyof typeof PATCH_COLUMNS, keyof PolicyRow][]) {
    if (patch[field] !== undefined) (changes as Record<string, unknown>)[column] = patch[field];
  }
  if (Object.keys(changes).length === 0) return getDevicePolicy(ctx);

  const [, rows] = await ctx.db.batch([
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
export async function getOverride(ctx: TenantCtx, { userId }: { userId: string }) {
  const [target, overrides] = await ctx.db.batch([
    studentTargetQuery(ctx, userId),
    liveOverrideQuery(ctx, ctx.tenantId, userId, ctx.clock.now()),
  ]);
  found(target, devicesErrors.STUDENT_NOT_FOUND);
  return overrideJson(found(overrides, devicesErrors.OVERRIDE_NOT_FOUND));
}

/** PUT /t/users/:id/device-policy-override: creates or replaces the whole override. */
export async function putOverride(ctx: TenantCtx, { userId, body }: { userId: string; body: z.infer<typeof OverrideBody> }) {
  const { tenantId } = ctx;
  const now = ctx.clock.now();
  const expiresAt = body.expires_at ? Date.parse(body.expires_at) : null;
  if (expiresAt !== null && expiresAt <= now) {
    throw new ApiError(coreErrors.INVALID_REQUEST_BODY, {
      message: "expires_at: must be in the future",
      details: [{ path: "expires_at", message: "must be in the future" }],
    });
  }
  found(await studentTargetQuery(ctx, userId), devicesErrors.STUDENT_NOT_FOUND);
  const values = {
    unlimitedDevices: body.unlimited_devices,
    maxActiveDevices: body.unlimited_devices ? null : (body.max_active_devices ?? null),
    expiresAt,
    reason: body.reason ?? null,
    createdByUserId: ctx.actor.userId,
    updatedAt: now,
  };
  const [, rows] = await ctx.db.batch([
    ctx.db
      .insert(deviceLimitOverrides)
      .values({ tenantId, userId, ...values, createdAt: now })
      .onConflictDoUpdate({ target: [deviceLimitOverrides.tenantId, deviceLimitOverrides.userId], set: values }),
    ctx.db
      .select()
      .from(deviceLimitOverrides)
      .where(and(eq(deviceLimitOverrides.tenantId, tenantId), eq(deviceLimitOverrides.userId, userId))),
  ]);
  return overrideJson(rows[0]!);
}

/**
 * DELETE /t/users/:id/device-policy-override: back to the school's policy; 404 when there is nothing
 * to remove. The delete is conditional on the target being a live student, so a 404
 * `user_not_found` never removes anything.
 */
export async function deleteOverride(ctx: TenantCtx, { userId }: { userId: string }) {
  const { tenantId } = ctx;
  const [target, deleted] = await ctx.db.batch([
    studentTargetQuery(ctx, userId),
    ctx.db
      .delete(deviceLimitOverrides)
      .where(
        and(
          eq(deviceLimitOverrides.tenantId, tenantId),
          eq(deviceLimitOverrides.userId, userId),
          exists(studentTargetQuery(ctx, userId)),
        ),
      )
      .returning({ userId: deviceLimitOverrides.userId }),
  ]);
  found(target, devicesErrors.STUDENT_NOT_FOUND);
  found(deleted, devicesErrors.OVERRIDE_NOT_FOUND);
  return { deleted: true as const };
}
