import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { sql } from "drizzle-orm";
import { createdAt, id, updatedAt } from "../columns";

/**
 * Push notifications, one row per (event, recipient). `dedupe_key` is unique, so a producer that
 * runs twice (a cron re-run, a retried request) records each notification once. The row is the
 * source of truth of its delivery: queue messages only say "a school has rows due".
 * `sent_at` is set when the first device was reached (history lists exactly those rows);
 * `status` settles once every device has an outcome. `lease_until` doubles as "not before" while
 * a retry is scheduled.
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
    /** Set on `campaign.message` rows: the campaign whose counters the row settles into. */
    campaignId: text("campaign_id"),
    leaseUntil: integer("lease_until"),
    lastError: text("last_error"),
    settledAt: integer("settled_at"),
  },
  (t) => [
    uniqueIndex("notification_outbox_dedupe").on(t.dedupeKey),
    index("notification_outbox_user").on(t.userId, t.createdAt),
    index("notification_outbox_tenant").on(t.tenantId, t.createdAt),
    index("notification_outbox_due").on(t.tenantId, t.status, t.createdAt),
    index("notification_outbox_pending").on(t.status, t.createdAt),
    index("notification_outbox_campaign").on(t.campaignId, t.status),
  ],
);

/**
 * Native push registrations. The registration token is write-only: stored encrypted (AES-GCM under
 * PUSH_TOKEN_KEY, bound to the school and installation) plus a keyed hash for lookups; neither is
 * ever returned.
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

/** A member's push switch in a school; no row means the default, on. */
export const pushPreferences = sqliteTable(
  "push_preferences",
  {
    tenantId: text("tenant_id").notNull(),
    userId: text("user_id").notNull(),
    pushEnabled: integer("push_enabled", { mode: "boolean" }).notNull(),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.userId] }), index("push_preferences_user").on(t.userId)],
);

/** A school's override of one catalog event; a null column keeps the catalog default. */
export const notificationEventSettings = sqliteTable(
  "notification_event_settings",
  {
    tenantId: text("tenant_id").notNull(),
    code: text("code").notNull(),
    enabled: integer("enabled", { mode: "boolean" }),
    config: text("config", { mode: "json" }).$type<Record<string, unknown>>(),
    titleTemplate: text("title_template"),
    bodyTemplate: text("body_template"),
    updatedByUserId: text("updated_by_user_id"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.code] })],
);

/**
 * One row per (notification, device) that a delivery attempted: the unique pair is what makes a
 * redelivered queue message unable to push twice to a device. `sending` marks a call in flight;
 * `retry` a call that may be repeated after its backoff.
 */
export const notificationDeliveries = sqliteTable(
  "notification_deliveries",
  {
    id: id(),
    tenantId: text("tenant_id").notNull(),
    outboxId: text("outbox_id").notNull(),
    pushDeviceId: text("push_device_id").notNull(),
    userId: text("user_id").notNull(),
    provider: text("provider").notNull(),
    status: text("status", { enum: ["sending", "retry", "sent", "failed"] }).notNull(),
    attempts: integer("attempts").notNull().default(1),
    providerMessageId: text("provider_message_id"),
    lastError: text("last_error"),
    deliveredAt: integer("delivered_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("notification_deliveries_pair").on(t.outboxId, t.pushDeviceId),
    index("notification_deliveries_tenant_user").on(t.tenantId, t.userId, t.deliveredAt),
    index("notification_deliveries_user").on(t.userId),
  ],
);

/** A manual push to a frozen audience (`notification_campaign_recipients`). */
export const notificationCampaigns = sqliteTable(
  "notification_campaigns",
  {
    id: id(),
    tenantId: text("tenant_id").notNull(),
    createdByUserId: text("created_by_user_id"),
    status: text("status", { enum: ["scheduled", "processing", "completed", "failed", "cancelled"] }).notNull(),
    title: text("title").notNull(),
    body: text("body").notNull(),
    deepLink: text("deep_link"),
    audienceFilter: text("audience_filter", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    audienceCount: integer("audience_count").notNull().default(0),
    outboxCreatedCount: integer("outbox_created_count").notNull().default(0),
    sentCount: integer("sent_count").notNull().default(0),
    failedCount: integer("failed_count").notNull().default(0),
    /** When the fan-out has turned every recipient into an outbox row or a suppression. */
    fannedOutAt: integer("fanned_out_at"),
    scheduledAt: integer("scheduled_at").notNull(),
    startedAt: integer("started_at"),
    completedAt: integer("completed_at"),
    cancelledAt: integer("cancelled_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("notification_campaigns_tenant").on(t.tenantId, t.createdAt),
    index("notification_campaigns_due").on(t.status, t.scheduledAt),
  ],
);

/** The audience snapshot of a campaign, written once by one INSERT … SELECT at creation. */
export const notificationCampaignRecipients = sqliteTable(
  "notification_campaign_recipients",
  {
    tenantId: text("tenant_id").notNull(),
    campaignId: text("campaign_id").notNull(),
    userId: text("user_id").notNull(),
    status: text("status", { enum: ["pending", "queued", "suppressed"] }).notNull().default("pending"),
  },
  (t) => [
    primaryKey({ columns: [t.campaignId, t.userId] }),
    index("notification_campaign_recipients_tenant").on(t.tenantId, t.campaignId, t.status),
    index("notification_campaign_recipients_user").on(t.userId),
  ],
);
