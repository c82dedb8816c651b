import { and, eq, gt, isNull, or, sql, type SQL, type SQLWrapper } from "drizzle-orm";
import { deviceLimitOverrides, devicePolicies } from "../../db/schema";
import type { Role, ServiceContext } from "../../core/http/context";
import { DAY_MS, MINUTE_MS } from "../../core/lib/clock";
import { inSchool } from "../../core/db/conditions";

export type DevicePolicy = Omit<typeof devicePolicies.$inferSelect, "tenantId" | "updatedAt">;
export type DeviceLimitOverride = typeof deviceLimitOverrides.$inferSelect;

/** What a school gets until its admin saves a policy (docs/decisions/architecture.md, "Data"). */
export const DEFAULT_DEVICE_POLICY: DevicePolicy = {
  mode: "monitor_only",
  maxActiveDevices: null,
  inactiveDeviceDays: 30,
  allowSelfManagement: true,
  allowSelfReplacement: true,
  notifyOnNewDevice: true,
  revokeOnPasswordChange: true,
  revokeOnPasswordReset: true,
  sessionIdleTimeoutMinutes: 14 * 24 * 60,
  sessionAbsoluteLifetimeDays: 90,
  eventRetentionDays: 180,
  ipVisibility: "masked",
};

/** The platform (superadmin) has no school policy; its sessions use the defaults. */
export function devicePolicyQuery(ctx: ServiceContext, tenantId: string | null) {
  return ctx.db
    .select()
    .from(devicePolicies)
    .where(inSchool(devicePolicies, tenantId ?? ""))
    .limit(1);
}

export function effectivePolicy(row: typeof devicePolicies.$inferSelect | undefined): DevicePolicy {
  if (!row) return DEFAULT_DEVICE_POLICY;
  const { tenantId: _tenant, updatedAt: _updated, ...policy } = row;
  return policy;
}

/** A student's override while it is in force (an expired one is as good as absent). */
export function liveOverrideQuery(ctx: ServiceContext, tenantId: string | null, userId: string, now: number) {
  return ctx.db
    .select()
    .from(deviceLimitOverrides)
    .where(
      and(
        inSchool(deviceLimitOverrides, tenantId ?? ""),
        eq(deviceLimitOverrides.userId, userId),
        or(isNull(deviceLimitOverrides.expiresAt), gt(deviceLimitOverrides.expiresAt, now)),
      ),
    )
    .limit(1);
}

export interface EffectiveLimit {
  /** null: no limit. */
  limit: number | null;
  /** Where the limit comes from: staff roles are never limited; a live override beats the school. */
  source: "role" | "school" | "override";
}

/**
 * Only students are limited (spec, Authentication 3). An override with `unlimited_devices` lifts
 * the limit; one with a number replaces it; one with neither keeps the school's number.
 */
export function effectiveDeviceLimit(role: Role, policy: DevicePolicy, override: DeviceLimitOverride | undefined): EffectiveLimit {
  if (role !== "student") return { limit: null, source: "role" };
  if (override?.unlimitedDevices) return { limit: null, source: "override" };
  if (override && override.maxActiveDevices !== null) return { limit: override.maxActiveDevices, source: "override" };
  return { limit: policy.maxActiveDevices, source: "school" };
}

/**
 * A device unseen for `inactive_device_days` is inactive and stops counting toward the limit, so
 * its sessions must not outlive that either (else the limit could be sidestepped by letting
 * devices go quiet): the sliding idle window is the shorter of the two.
 */
export function idleWindowMs(policy: Pick<DevicePolicy, "sessionIdleTimeoutMinutes" | "inactiveDeviceDays">): number {
  return Math.min(policy.sessionIdleTimeoutMinutes * MINUTE_MS, policy.inactiveDeviceDays * DAY_MS);
}

export function inactiveCutoff(policy: Pick<DevicePolicy, "inactiveDeviceDays">, now: number): number {
  return now - policy.inactiveDeviceDays * DAY_MS;
}

const SQL_DEFAULTS = {
  session_idle_timeout_minutes: DEFAULT_DEVICE_POLICY.sessionIdleTimeoutMinutes,
  inactive_device_days: DEFAULT_DEVICE_POLICY.inactiveDeviceDays,
  session_absolute_lifetime_days: DEFAULT_DEVICE_POLICY.sessionAbsoluteLifetimeDays,
} as const;

/**
 * A policy setting read by D1 inside a query (for writes that must use the policy in force when
 * they run): the school's saved value, else the default. `tenantId` is a value or a column.
 */
function policyValueSql(column: keyof typeof SQL_DEFAULTS, tenantId: string | SQLWrapper): SQL<number> {
  return sql<number>`COALESCE((SELECT ${sql.raw(column)} FROM device_policies WHERE ${inSchool(tenantId)}), ${SQL_DEFAULTS[column]})`;
}

/** `idleWindowMs` in SQL. */
export function idleWindowSql(tenantId: string | SQLWrapper): SQL<number> {
  return sql<number>`min(${policyValueSql("session_idle_timeout_minutes", tenantId)} * ${MINUTE_MS}, ${policyValueSql("inactive_device_days", tenantId)} * ${DAY_MS})`;
}

/** When a session created at `createdAt` ends under the school's current absolute lifetime (lowering it shortens live sessions). */
export function lifetimeEndSql(createdAt: SQLWrapper, tenantId: string | SQLWrapper): SQL<number> {
  return sql<number>`(${createdAt} + ${policyValueSql("session_absolute_lifetime_days", tenantId)} * ${DAY_MS})`;
}

/** `inactiveCutoff` in SQL. */
export function inactiveCutoffSql(tenantId: string | null, now: number): SQL {
  return sql`(${now} - ${policyValueSql("inactive_device_days", tenantId ?? "")} * ${DAY_MS})`;
}
