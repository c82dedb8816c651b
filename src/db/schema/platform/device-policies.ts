import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { createdAt, flag, id, updatedAt } from "../columns";

/** A school's device policy; a school without a row uses DEFAULT_DEVICE_POLICY (src/platform/devices/policy.ts). */
export const devicePolicies = sqliteTable("device_policies", {
  tenantId: text("tenant_id").primaryKey(),
  mode: text("mode", { enum: ["monitor_only", "enforce"] }).notNull(),
  maxActiveDevices: integer("max_active_devices"),
  inactiveDeviceDays: integer("inactive_device_days").notNull(),
  allowSelfManagement: flag("allow_self_management"),
  allowSelfReplacement: flag("allow_self_replacement"),
  notifyOnNewDevice: flag("notify_on_new_device"),
  revokeOnPasswordChange: flag("revoke_on_password_change"),
  revokeOnPasswordReset: flag("revoke_on_password_reset"),
  sessionIdleTimeoutMinutes: integer("session_idle_timeout_minutes").notNull(),
  sessionAbsoluteLifetimeDays: integer("session_absolute_lifetime_days").notNull(),
  eventRetentionDays: integer("event_retention_days").notNull(),
  ipVisibility: text("ip_visibility", { enum: ["none", "masked", "full"] }).notNull(),
  updatedAt: updatedAt(),
});

/** Per-student override of the device limit; absent means the school policy applies. */
export const deviceLimitOverrides = sqliteTable(
  "device_limit_overrides",
  {
    tenantId: text("tenant_id").notNull(),
    userId: text("user_id").notNull(),
    unlimitedDevices: integer("unlimited_devices", { mode: "boolean" }).notNull(),
    maxActiveDevices: integer("max_active_devices"),
    expiresAt: integer("expires_at"),
    reason: text("reason"),
    createdByUserId: text("created_by_user_id"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.userId] })],
);

/** Security history: logins, logouts, refusals, revocations, blocks and unblocks. */
export const deviceEvents = sqliteTable(
  "device_events",
  {
    id: id(),
    tenantId: text("tenant_id"),
    userId: text("user_id").notNull(),
    authDeviceId: text("auth_device_id"),
    sessionId: text("session_id"),
    type: text("type").notNull(),
    ip: text("ip"),
    userAgent: text("user_agent"),
    actorUserId: text("actor_user_id"),
    detail: text("detail", { mode: "json" }).$type<Record<string, unknown>>(),
    createdAt: createdAt(),
  },
  (t) => [index("device_events_user").on(t.userId, t.createdAt), index("device_events_tenant_time").on(t.tenantId, t.createdAt)],
);

/** Single-use tokens continuing a login refused by the device limit; only the hash is stored. */
export const deviceReplacementTokens = sqliteTable(
  "device_replacement_tokens",
  {
    id: id(),
    tenantId: text("tenant_id").notNull(),
    userId: text("user_id").notNull(),
    tokenHash: text("token_hash").notNull().unique(),
    /** The refused login's device description, to sign the new installation in without the password. */
    pendingDevice: text("pending_device", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    expiresAt: integer("expires_at").notNull(),
    usedAt: integer("used_at"),
    createdAt: createdAt(),
  },
  (t) => [index("device_replacement_user").on(t.userId), index("device_replacement_tenant_user").on(t.tenantId, t.userId)],
);
