import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, id, updatedAt } from "../columns";

/**
 * A school's webhook endpoints (05 section 5, docs/decisions/webhooks.md). The signing secret is
 * write-only: stored AES-GCM sealed (never returned after creation or rotation); the previous one
 * keeps signing until `previous_secret_expires_at` (rotation's 24 hours).
 */
export const webhooks = sqliteTable(
  "webhooks",
  {
    id: id(),
    tenantId: text("tenant_id").notNull(),
    url: text("url").notNull(),
    /** JSON array of event names, or `["*"]`. */
    events: text("events", { mode: "json" }).$type<string[]>().notNull(),
    description: text("description"),
    status: text("status", { enum: ["active", "disabled"] }).notNull(),
    secretCiphertext: text("secret_ciphertext").notNull(),
    previousSecretCiphertext: text("previous_secret_ciphertext"),
    previousSecretExpiresAt: integer("previous_secret_expires_at"),
    /** Failed tries in a row; the 20th disables the webhook, a 2xx or a re-enable resets it. */
    consecutiveFailures: integer("consecutive_failures").notNull().default(0),
    disabledAt: integer("disabled_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("webhooks_tenant").on(t.tenantId, t.createdAt)],
);

/** The outbox: one row per event occurrence, written in the batch of the state change. */
export const webhookEvents = sqliteTable(
  "webhook_events",
  {
    id: id(),
    tenantId: text("tenant_id").notNull(),
    type: text("type").notNull(),
    /** The payload's `data`: the resource as the API shows it to an admin. */
    data: text("data").notNull(),
    occurredAt: integer("occurred_at").notNull(),
    /**
     * What makes this occurrence one (`quiz_attempt:<id>`, `submission:<id>:<submitted_at>`), for a
     * source whose repeat cannot be told from SQL alone: a second event with the key is not written.
     */
    occurrence: text("occurrence"),
    /**
     * The person `data` is about (the user of `user.created`/`updated`, the student of the content
     * events), so a permanent deletion removes the copies of their data waiting here
     * (docs/decisions/webhooks.md, "Personal data in events"). NULL when `data` holds no one's.
     */
    subjectUserId: text("subject_user_id"),
  },
  (t) => [
    index("webhook_events_tenant").on(t.tenantId, t.occurredAt),
    uniqueIndex("webhook_events_occurrence").on(t.tenantId, t.type, t.occurrence).where(sql`occurrence IS NOT NULL`),
    index("webhook_events_subject").on(t.subjectUserId).where(sql`subject_user_id IS NOT NULL`),
  ],
);

/** One row per (event, webhook): its tries, the last answer and when the next try is due. */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: id(),
    tenantId: text("tenant_id").notNull(),
    webhookId: text("webhook_id").notNull(),
    eventId: text("event_id").notNull(),
    type: text("type").notNull(),
    status: text("status", { enum: ["pending", "delivered", "failed"] }).notNull(),
    attempts: integer("attempts").notNull().default(0),
    responseStatus: integer("response_status"),
    durationMs: integer("duration_ms"),
    responseExcerpt: text("response_excerpt"),
    nextAttemptAt: integer("next_attempt_at"),
    /** A try in flight until then: another consumer leaves the row alone. */
    leaseUntil: integer("lease_until"),
    createdAt: createdAt(),
    deliveredAt: integer("delivered_at"),
  },
  (t) => [
    index("webhook_deliveries_webhook").on(t.tenantId, t.webhookId, t.createdAt),
    index("webhook_deliveries_due").on(t.tenantId, t.status, t.nextAttemptAt),
    index("webhook_deliveries_created").on(t.tenantId, t.createdAt),
    // A permanent deletion removes the deliveries of the person's events by event.
    index("webhook_deliveries_event").on(t.eventId),
  ],
);
