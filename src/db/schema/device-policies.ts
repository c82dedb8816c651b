import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { flag, updatedAt } from "./columns";

/** A school's device policy; a school without a row uses DEFAULT_DEVICE_POLICY (src/devices/policy.ts). */
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
