import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { createdAt, id, tenantRef } from "../columns";

/**
 * A roster import (05 section 3): the file validated into a plan, kept 24 hours
 * (docs/decisions/imports.md, "The stored plan"). `progress` is how many data rows an apply has
 * finished, so a retried apply continues after them.
 */
export const imports = sqliteTable(
  "imports",
  {
    id: id(),
    tenantId: tenantRef(),
    kind: text("kind", { enum: ["users", "enrollments", "group_members"] }).notNull(),
    status: text("status", { enum: ["ready", "invalid", "applying", "applied"] }).notNull(),
    createdBy: text("created_by").notNull(),
    createdAt: createdAt(),
    expiresAt: integer("expires_at").notNull(),
    appliedAt: integer("applied_at"),
    fileSha256: text("file_sha256").notNull(),
    planHash: text("plan_hash").notNull(),
    /** `{rows, create, update, unchanged, error}`. */
    counts: text("counts", { mode: "json" }).$type<Record<string, number>>().notNull(),
    /** The file's header cells as written, for errors.csv. */
    columns: text("columns", { mode: "json" }).$type<string[]>().notNull(),
    delimiter: text("delimiter").notNull(),
    progress: integer("progress").notNull().default(0),
    /** `{created, updated, unchanged, skipped}` once applied. */
    result: text("result", { mode: "json" }).$type<Record<string, number>>(),
  },
  (t) => [index("imports_tenant_created").on(t.tenantId, t.createdAt), index("imports_tenant_expires").on(t.tenantId, t.expiresAt)],
);

/** The plan's rows, 500 per chunk as JSON, so a 5,000-row plan stays far below D1's row size limit. */
export const importChunks = sqliteTable(
  "import_chunks",
  {
    tenantId: tenantRef(),
    importId: text("import_id").notNull(),
    chunk: integer("chunk").notNull(),
    rows: text("rows").notNull(),
  },
  (t) => [primaryKey({ columns: [t.importId, t.chunk] }), index("import_chunks_tenant_import").on(t.tenantId, t.importId)],
);
