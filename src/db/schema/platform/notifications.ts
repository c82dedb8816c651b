import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { sql } from "drizzle-orm";
import { createdAt, id, updatedAt } from "../columns";

/**
 * Push notifications waiting for delivery, one row per (event, recipient). `dedupe_key` is unique,
 * so a producer that runs twice (a cron re-run, a retried request) records each notification once.
 * Delivery itself belongs to the notifications area.
 */
export const notificationOutbox = sqliteTable(
  "notification_outbox",
  {
    id: id(),
    tenantId: text("tenant_id").notNull(),
    userId: text("user_id").notNull(),
    eventCode: text("event_code").notNull(),
    category: text("category").notNull(),
    title: text("title").notNull(),
    body: text("body").notNull(),
    deepLink: text("deep_link"),
    data: text("data", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    aggregateType: text("aggregate_type"),
    aggregateId: text("aggregate_id"),
    dedupeKey: text("dedupe_key").notNull(),
    status: text("status", { enum: ["pending", "sent", "suppressed", "failed"] }).notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    sentAt: integer("sent_at"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("notification_outbox_dedupe").on(t.dedupeKey),
    index("notification_outbox_user").on(t.userId, t.createdAt),
    index("notification_outbox_tenant").on(t.tenantId, t.createdAt),
  ],
);

/**
 * Native push registrations. The registration token is write-only: stored encrypted (AES-GCM under
 * PUSH_TOKEN_KEY) plus a keyed hash for lookups; neither is ever returned.
 */
export const pushDevices = sqliteTable(
  "push_devices",
  {
    id: id(),
    tenantId: text("tenant_id").notNull(),
    userId: text("user_id").notNull(),
    installationId: text("installation_id").notNull(),
    provider: text("provider").notNull(),
    platform: text("platform", { enum: ["web", "ios", "android"] }).notNull(),
    tokenCiphertext: text("token_ciphertext"),
    tokenHash: text("token_hash"),
    enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
    appVersion: text("app_version"),
    lastSeenAt: integer("last_seen_at").notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    deletedAt: integer("deleted_at"),
  },
  (t) => [
    uniqueIndex("push_devices_installation_live")
      .on(t.tenantId, t.userId, t.provider, t.installationId)
      .where(sql`deleted_at IS NULL`),
    index("push_devices_token_hash").on(t.tokenHash),
    index("push_devices_user").on(t.userId),
  ],
);
