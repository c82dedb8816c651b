import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { createdAt, id } from "../columns";

/**
 * Every email is a row here first (written in the same batch as the change that causes it), then a
 * queue message carries its id to the consumer. Bodies are wiped after delivery unless DEV_MAILBOX.
 */
export const emailOutbox = sqliteTable(
  "email_outbox",
  {
    id: id(),
    tenantId: text("tenant_id"),
    toEmail: text("to_email").notNull(),
    kind: text("kind", { enum: ["verification", "password_reset", "welcome", "account_invite"] }).notNull(),
    locale: text("locale", { enum: ["ru", "en"] }).notNull(),
    subject: text("subject").notNull(),
    textBody: text("text_body"),
    htmlBody: text("html_body"),
    meta: text("meta", { mode: "json" }).$type<Record<string, unknown>>(),
    status: text("status", { enum: ["pending", "sent", "failed"] }).notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    leaseUntil: integer("lease_until"),
    lastError: text("last_error"),
    providerMessageId: text("provider_message_id"),
    sentAt: integer("sent_at"),
    createdAt: createdAt(),
  },
  (t) => [
    index("email_outbox_to").on(t.toEmail, t.createdAt),
    index("email_outbox_status").on(t.status, t.createdAt),
    index("email_outbox_tenant").on(t.tenantId, t.createdAt),
  ],
);
