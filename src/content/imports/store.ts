import { sql } from "drizzle-orm";
import { batchable, rowsOf, runBatch } from "../../core/db/batch";
import { inSchool } from "../../core/db/conditions";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { iso, isoOrNull } from "../../core/lib/clock";
import { sha256Hex } from "../../core/lib/crypto";
import { importsErrors as e } from "./errors";
import type { ImportKind } from "./parse";
import type { PlanRow, Values } from "./validate";

/** Rows per stored chunk and per apply batch (05 section 3: batches of at most 500 rows). */
export const CHUNK_ROWS = 500;
export const PREVIEW_ROWS = 50;

/** A plan row as stored: what the API shows, the values the re-validation checks, the cells as written. */
export interface StoredRow extends PlanRow {
  values: Values;
  raw: string[];
}

export interface ImportRecord {
  id: string;
  kind: ImportKind;
  status: "ready" | "invalid" | "applying" | "applied";
  created_by: string;
  created_at: number;
  expires_at: number;
  applied_at: number | null;
  file_sha256: string;
  plan_hash: string;
  counts: string;
  columns: string;
  delimiter: string;
  progress: number;
  result: string | null;
}

/** The plan's fingerprint: what each row will do, in order (the client sends it back to apply). */
export function planHash(rows: readonly PlanRow[]): Promise<string> {
  return sha256Hex(JSON.stringify(rows.map((row) => [row.row, row.action, row.key, row.changes, row.errors])));
}

export const shown = (row: PlanRow): PlanRow => ({ row: row.row, action: row.action, key: row.key, changes: row.changes, errors: row.errors });

/** The import when the caller may see it: its creator, or an admin (docs/decisions/imports.md, "Who sees an import"). */
export function visibleImportSql(ctx: SchoolCtx, id: string) {
  const admin = ctx.actor.role === "admin" || ctx.actor.role === "superadmin";
  return sql`SELECT i.* FROM imports i WHERE i.id = ${id} AND ${inSchool("i", ctx.tenantId)} ${admin ? sql`` : sql`AND i.created_by = ${ctx.actor.userId}`}`;
}

/** The import and the first chunk of its plan (the preview), in one batch. */
export async function readImport(ctx: SchoolCtx, id: string, options: { allChunks?: boolean } = {}) {
  const results = await runBatch(ctx, [
    batchable(ctx, visibleImportSql(ctx, id)),
    batchable(
      ctx,
      sql`SELECT c.rows FROM import_chunks c WHERE ${inSchool("c", ctx.tenantId)} AND c.import_id = ${id}
        AND EXISTS (${visibleImportSql(ctx, id)}) ${options.allChunks ? sql`` : sql`AND c.chunk = 0`} ORDER BY c.chunk`,
    ),
  ]);
  const record = rowsOf<ImportRecord>(results[0])[0];
  if (!record) throw new ApiError(e.IMPORT_NOT_FOUND);
  const rows = rowsOf<{ rows: string }>(results[1]).flatMap((chunk) => JSON.parse(chunk.rows) as StoredRow[]);
  return { record, rows };
}

export function presentImport(record: ImportRecord, preview: readonly PlanRow[]) {
  return {
    id: record.id,
    kind: record.kind,
    status: record.status,
    created_at: iso(record.created_at),
    expires_at: iso(record.expires_at),
    applied_at: isoOrNull(record.applied_at),
    counts: JSON.parse(record.counts) as Record<"rows" | "create" | "update" | "unchanged" | "error", number>,
    plan_hash: record.plan_hash,
    preview: preview.slice(0, PREVIEW_ROWS).map(shown),
    result: record.result === null ? null : (JSON.parse(record.result) as Record<"created" | "updated" | "unchanged" | "skipped", number>),
  };
}

export type ImportView = ReturnType<typeof presentImport>;
