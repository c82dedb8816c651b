import { exists, sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "../../core/db/batch";
import { inSchool } from "../../core/db/conditions";
import type { SchoolCtx } from "../../core/http/context";
import { auditFromRows, jsonBool, jsonIso, jsonValue, type RowChange } from "../audit/from-row";
import { DEFAULT_DEVICE_POLICY } from "./policy";
import { liveSessionSql } from "./sql";
import { studentTargetQuery } from "./targets";

/**
 * The audit entries of device management (docs/decisions/audit.md), each an INSERT … SELECT to put
 * just ahead of the change in its batch: it reads the before-values and the change's condition
 * there, so a refused or repeated request writes none.
 */

/** device.blocked / device.unblocked: the device row while it is in the state the change leaves. */
export function deviceBlockEntry(ctx: SchoolCtx, input: { userId: string; deviceId: string; blocked: boolean; reason: string | null }): BatchItem {
  return auditFromRows(ctx, {
    action: input.blocked ? "device.blocked" : "device.unblocked",
    targetType: "device",
    rows: sql`auth_devices d WHERE d.id = ${input.deviceId} AND d.user_id = ${input.userId} AND ${inSchool("d", ctx.tenantId)}
      AND d.blocked_at IS ${input.blocked ? sql`NULL` : sql`NOT NULL`}`,
    targetId: sql`d.id`,
    summary: input.blocked ? "Device blocked" : "Device unblocked",
    changes: { blocked: [jsonBool(sql`d.blocked_at IS NOT NULL`), input.blocked], block_reason: [jsonValue(sql`d.block_reason`), input.reason] },
  });
}

/** session.revoked: one entry per live session of the student the revocation (`scope`, alias `s`) ends. */
export function sessionsRevokedEntry(ctx: SchoolCtx, input: { userId: string; scope: SQL }): BatchItem {
  const now = ctx.clock.now();
  return auditFromRows(ctx, {
    action: "session.revoked",
    targetType: "session",
    rows: sql`sessions s WHERE s.user_id = ${input.userId} AND ${inSchool("s", ctx.tenantId)} AND ${liveSessionSql(now)} AND (${input.scope})`,
    targetId: sql`s.id`,
    summary: "Session revoked",
    changes: { revoked: [jsonBool(sql`s.revoked_at IS NOT NULL`), true] },
  });
}

const POLICY_FIELDS = {
  mode: ["mode", "text"],
  max_active_devices: ["max_active_devices", "text"],
  inactive_device_days: ["inactive_device_days", "text"],
  allow_self_management: ["allow_self_management", "bool"],
  allow_self_replacement: ["allow_self_replacement", "bool"],
  notify_on_new_device: ["notify_on_new_device", "bool"],
  revoke_on_password_change: ["revoke_on_password_change", "bool"],
  revoke_on_password_reset: ["revoke_on_password_reset", "bool"],
  session_idle_timeout_minutes: ["session_idle_timeout_minutes", "text"],
  session_absolute_lifetime_days: ["session_absolute_lifetime_days", "text"],
  event_retention_days: ["event_retention_days", "text"],
  ip_visibility: ["ip_visibility", "text"],
} as const;

const DEFAULTS: Record<keyof typeof POLICY_FIELDS, unknown> = {
  mode: DEFAULT_DEVICE_POLICY.mode,
  max_active_devices: DEFAULT_DEVICE_POLICY.maxActiveDevices,
  inactive_device_days: DEFAULT_DEVICE_POLICY.inactiveDeviceDays,
  allow_self_management: DEFAULT_DEVICE_POLICY.allowSelfManagement,
  allow_self_replacement: DEFAULT_DEVICE_POLICY.allowSelfReplacement,
  notify_on_new_device: DEFAULT_DEVICE_POLICY.notifyOnNewDevice,
  revoke_on_password_change: DEFAULT_DEVICE_POLICY.revokeOnPasswordChange,
  revoke_on_password_reset: DEFAULT_DEVICE_POLICY.revokeOnPasswordReset,
  session_idle_timeout_minutes: DEFAULT_DEVICE_POLICY.sessionIdleTimeoutMinutes,
  session_absolute_lifetime_days: DEFAULT_DEVICE_POLICY.sessionAbsoluteLifetimeDays,
  event_retention_days: DEFAULT_DEVICE_POLICY.eventRetentionDays,
  ip_visibility: DEFAULT_DEVICE_POLICY.ipVisibility,
};

/** device_policy.updated: the fields sent, before from the saved policy (the defaults before the first save). */
export function devicePolicyEntry(ctx: SchoolCtx, patch: Partial<Record<keyof typeof POLICY_FIELDS, unknown>>): BatchItem {
  const changes: Record<string, RowChange> = {};
  for (const [field, [column, kind]] of Object.entries(POLICY_FIELDS) as [keyof typeof POLICY_FIELDS, (typeof POLICY_FIELDS)[keyof typeof POLICY_FIELDS]][]) {
    if (patch[field] === undefined) continue;
    const fallback = DEFAULTS[field];
    const saved = sql`CASE WHEN p.tenant_id IS NULL THEN ${typeof fallback === "boolean" ? (fallback ? 1 : 0) : fallback} ELSE p.${sql.raw(column)} END`;
    changes[field] = [kind === "bool" ? jsonBool(saved) : jsonValue(saved), patch[field]];
  }
  return auditFromRows(ctx, {
    action: "device_policy.updated",
    targetType: "device_policy",
    rows: sql`(SELECT 1) LEFT JOIN device_policies p ON ${inSchool("p", ctx.tenantId)}`,
    targetId: sql`${ctx.tenantId}`,
    summary: "Device policy updated",
    changes,
  });
}

function overrideChanges(after: { unlimited_devices: boolean | null; max_active_devices: number | null; expires_at: string | null; reason: string | null }): Record<string, RowChange> {
  return {
    unlimited_devices: [jsonBool(sql`o.unlimited_devices`), after.unlimited_devices],
    max_active_devices: [jsonValue(sql`o.max_active_devices`), after.max_active_devices],
    expires_at: [jsonIso(sql`o.expires_at`), after.expires_at],
    reason: [jsonValue(sql`o.reason`), after.reason],
  };
}

/** device_override.set: before from the student's current override (null fields when there is none). */
export function overrideSetEntry(ctx: SchoolCtx, input: { userId: string; after: Parameters<typeof overrideChanges>[0] }): BatchItem {
  return auditFromRows(ctx, {
    action: "device_override.set",
    targetType: "device_override",
    rows: sql`(SELECT 1) LEFT JOIN device_limit_overrides o ON ${inSchool("o", ctx.tenantId)} AND o.user_id = ${input.userId}
      WHERE ${exists(studentTargetQuery(ctx, input.userId))}`,
    targetId: sql`${input.userId}`,
    summary: "Device limit override set",
    changes: overrideChanges(input.after),
  });
}

/** device_override.removed: only when there is an override of a live student to remove. */
export function overrideRemovedEntry(ctx: SchoolCtx, input: { userId: string }): BatchItem {
  return auditFromRows(ctx, {
    action: "device_override.removed",
    targetType: "device_override",
    rows: sql`device_limit_overrides o WHERE ${inSchool("o", ctx.tenantId)} AND o.user_id = ${input.userId} AND ${exists(studentTargetQuery(ctx, input.userId))}`,
    targetId: sql`o.user_id`,
    summary: "Device limit override removed",
    changes: overrideChanges({ unlimited_devices: null, max_active_devices: null, expires_at: null, reason: null }),
  });
}
