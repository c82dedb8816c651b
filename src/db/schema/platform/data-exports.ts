import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { createdAt, id, tenantRef } from "../columns";

/**
 * A personal-data export (05 section 7): one JSON document in R2 with everything the school holds
 * about a person, built by the `lms-data-export` queue. `user_id` is whose data it is (cleared by
 * a permanent deletion, after which the cron removes the file at once), `requested_by` who asked
 * (the person, or an admin on their behalf). The file lives until `expires_at` (ready + 7 days).
 */
export const dataExports = sqliteTable(
  "data_exports",
  {
    id: id(),
    tenantId: tenantRef(),
    userId: text("user_id"),
    requestedBy: text("requested_by"),
    status: text("status", { enum: ["pending", "ready", "failed"] }).notNull(),
    objectKey: text("object_key"),
    sizeBytes: integer("size_bytes"),
    createdAt: createdAt(),
    readyAt: integer("ready_at"),
    expiresAt: integer("expires_at"),
    failedAt: integer("failed_at"),
  },
  (t) => [
    // The rate limit's lookup: the person's newest export.
    index("data_exports_tenant_user_created").on(t.tenantId, t.userId, t.createdAt),
    // The cron's expiry walk.
    index("data_exports_tenant_expires").on(t.tenantId, t.expiresAt),
  ],
);
