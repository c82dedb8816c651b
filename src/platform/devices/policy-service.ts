import type { z } from "@hono/zod-openapi";
import { and, eq, exists } from "drizzle-orm";
import { deviceLimitOverrides, devicePolicies } from "../../db/schema";
import type { Actor, ServiceContext } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { iso, isoOrNull } from "../../core/lib/clock";
import { devicePolicyQuery, effectivePolicy, liveOverrideQuery, type DeviceLimitOverride } from "./policy";
import type { DevicePolicyPatch, OverrideBody } from "./schemas";
import { actingTenantId, assertFound, studentTargetQuery, userNotFound } from "./targets";

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
export async function getDevicePolicy(ctx: ServiceContext, { actor }: { actor: Actor }) {
  const rows = await devicePolicyQuery(ctx, actingTenantId(actor));
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
export async function updateDevicePolicy(ctx: ServiceContext, { actor, patch }: { actor: Actor; patch: z.infer<typeof DevicePolicyPatch> }) {
  const tenantId = actingTenantId(actor);
  const now = ctx.clock.now();
  const changes: Partial<PolicyRow> = {};
  for (const [field, column] of Object.entries(PATCH_COLUMNS) as [keyof typeof PATCH_COLUMNS, keyof PolicyRow][]) {
    if (patch[field] !== undefined) (changes as Record<string, unknown>)[column] = patch[field];
  }
  if (Object.keys(changes).length === 0) return getDevicePolicy(ctx, { actor });

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

const overrideNotFound = () =>
  new ApiError(404, "device_policy_override_not_found", "This student has no override in force; the school's device policy applies.");

/** GET /t/users/:id/device-policy-override: 404 while the school defaults apply (none, or expired). */
export async function getOverride(ctx: ServiceContext, { actor, userId }: { actor: Actor; userId: string }) {
  const tenantId = actingTenantId(actor);
  const [target, overrides] = await ctx.db.batch([
    studentTargetQuery(ctx, tenantId, userId),
    liveOverrideQuery(ctx, tenantId, userId, ctx.clock.now()),
  ]);
  assertFound(target, userNotFound);
  return overrideJson(assertFound(overrides, overrideNotFound));
}

/** PUT /t/users/:id/device-policy-override: creates or replaces the whole override. */
export async function putOverride(ctx: ServiceContext, { actor, userId, body }: { actor: Actor; userId: string; body: z.infer<typeof OverrideBody> }) {
  const tenantId = actingTenantId(actor);
  const now = ctx.clock.now();
  const expiresAt = body.expires_at ? Date.parse(body.expires_at) : null;
  if (expiresAt !== null && expiresAt <= now) {
    throw new ApiError(400, "invalid_request_body", "expires_at: must be in the future", {
      details: [{ path: "expires_at", message: "must be in the future" }],
    });
  }
  assertFound(await studentTargetQuery(ctx, tenantId, userId), userNotFound);
  const values = {
    unlimitedDevices: body.unlimited_devices,
    maxActiveDevices: body.unlimited_devices ? null : (body.max_active_devices ?? null),
    expiresAt,
    reason: body.reason ?? null,
    createdByUserId: actor.userId,
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
export async function deleteOverride(ctx: ServiceContext, { actor, userId }: { actor: Actor; userId: string }) {
  const tenantId = actingTenantId(actor);
  const [target, deleted] = await ctx.db.batch([
    studentTargetQuery(ctx, tenantId, userId),
    ctx.db
      .delete(deviceLimitOverrides)
      .where(
        and(
          eq(deviceLimitOverrides.tenantId, tenantId),
          eq(deviceLimitOverrides.userId, userId),
          exists(studentTargetQuery(ctx, tenantId, userId)),
        ),
      )
      .returning({ userId: deviceLimitOverrides.userId }),
  ]);
  assertFound(target, userNotFound);
  assertFound(deleted, overrideNotFound);
  return { deleted: true as const };
}
