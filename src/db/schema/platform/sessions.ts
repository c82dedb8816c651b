import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, flag, id, updatedAt } from "../columns";

/** One row per signed-in installation (or per browser sign-in when no installation id is sent). */
export const authDevices = sqliteTable(
  "auth_devices",
  {
    id: id(),
    tenantId: text("tenant_id"),
    userId: text("user_id").notNull(),
    installationId: text("installation_id"),
    platform: text("platform", { enum: ["web", "ios", "android"] }).notNull(),
    name: text("name"),
    osName: text("os_name"),
    osVersion: text("os_version"),
    browserName: text("browser_name"),
    browserVersion: text("browser_version"),
    appVersion: text("app_version"),
    lastSeenAt: integer("last_seen_at").notNull(),
    blockedAt: integer("blocked_at"),
    blockReason: text("block_reason"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("auth_devices_installation").on(t.userId, t.installationId).where(sql`installation_id IS NOT NULL`),
    index("auth_devices_user").on(t.userId),
    index("auth_devices_tenant_user").on(t.tenantId, t.userId),
  ],
);

/**
 * A managed server session (the JWT's `sid`). The refresh secret's rotation state lives in the
 * session's SessionFamily Durable Object; this row decides whether access tokens still work.
 */
export const sessions = sqliteTable(
  "sessions",
  {
    id: id(),
    tenantId: text("tenant_id"),
    userId: text("user_id").notNull(),
    authDeviceId: text("auth_device_id").notNull(),
    isBrowser: flag("is_browser"),
    ip: text("ip"),
    userAgent: text("user_agent"),
    lastActivityAt: integer("last_activity_at").notNull(),
    idleExpiresAt: integer("idle_expires_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
    revokedAt: integer("revoked_at"),
    revokeReason: text("revoke_reason"),
    createdAt: createdAt(),
  },
  (t) => [index("sessions_user").on(t.userId), index("sessions_device").on(t.authDeviceId), index("sessions_tenant_user").on(t.tenantId, t.userId)],
);
