import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { createdAt, deletedAt, id, tenantRef, updatedAt } from "../columns";

export const MEDIA_KINDS = ["video", "image", "pdf", "document"] as const;
export type MediaKind = (typeof MEDIA_KINDS)[number];

/**
 * Uploaded files of a school. The object lives in R2 under `object_key` (`tenant/<school>/<id>`,
 * never the filename). `size_bytes` and `mime` hold the declared values while `pending` and the
 * inspected ones once `confirmed`; only confirmed, live rows count towards the school's quota.
 */
export const mediaAssets = sqliteTable(
  "media_assets",
  {
    id: id(),
    tenantId: tenantRef(),
    kind: text("kind", { enum: MEDIA_KINDS }).notNull(),
    /** Display only (download file name); never part of the storage key. */
    filename: text("filename").notNull(),
    declaredSize: integer("declared_size").notNull(),
    declaredMime: text("declared_mime").notNull(),
    sizeBytes: integer("size_bytes").notNull(),
    mime: text("mime").notNull(),
    status: text("status", { enum: ["pending", "confirmed", "failed"] }).notNull().default("pending"),
    objectKey: text("object_key").notNull(),
    /** The R2 etag seen at confirm: reads ask R2 for exactly that version, so bytes swapped in later are never served. */
    etag: text("etag"),
    durationSeconds: integer("duration_seconds"),
    totalPages: integer("total_pages"),
    /** Who presigned it; cleared when that account is deleted permanently (the file may be shared content). */
    uploadedByUserId: text("uploaded_by_user_id"),
    confirmedAt: integer("confirmed_at"),
    /** When the R2 object of a failed or deleted asset was removed; null while it may still exist. */
    objectPurgedAt: integer("object_purged_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    deletedAt: deletedAt(),
  },
  (t) => [
    // The quota sum (confirmed, live sizes of one school) reads this index alone.
    index("media_assets_tenant_usage").on(t.tenantId, t.status, t.deletedAt, t.sizeBytes),
    // The cron: pending assets past their deadline, oldest first, across schools.
    index("media_assets_pending").on(t.status, t.createdAt).where(sql`status = 'pending'`),
    // The cron: objects still to remove (failed or deleted assets).
    index("media_assets_purge").on(t.createdAt).where(sql`object_purged_at IS NULL AND (status = 'failed' OR deleted_at IS NOT NULL)`),
  ],
);
