import { stringify } from "csv-stringify/sync";
import { sql } from "drizzle-orm";
import { batchable, rowsOf, runBatch } from "../../core/db/batch";
import { inSchool } from "../../core/db/conditions";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError, coreErrors } from "../../core/http/errors";
import { DAY_MS } from "../../core/lib/clock";
import { toHex } from "../../core/lib/crypto";
import { uuidv7 } from "../../core/lib/ids";
import { contentDisposition } from "../../platform/media/download-service";
import { importsErrors as e } from "./errors";
import { decodeFile, parseFile, type ImportKind } from "./parse";
import type { RowsQuery } from "./schemas";
import { CHUNK_ROWS, planHash, presentImport, readImport, shown, visibleImportSql, type ImportView, type StoredRow } from "./store";
import { checkRows, type PlanRow } from "./validate";

/**
 * Roster imports (05 section 3, docs/decisions/imports.md). The upload is the dry run: the file is
 * parsed, checked against the school's data in one batch of lookups, and stored as a plan; nothing
 * is written to users, groups or enrollments until the plan is applied (./apply.ts).
 */

const TTL_MS = DAY_MS;

/** kind=group_members changes groups: it needs can_manage_groups besides the route's can_manage_students. */
function checkKindPermission(ctx: SchoolCtx, kind: ImportKind): void {
  if (kind !== "group_members" || ctx.actor.role !== "curator") return;
  if (ctx.actor.permissions?.can_manage_groups !== true) throw new ApiError(coreErrors.FORBIDDEN);
}

/** POST /t/imports?kind=: validates the file into a stored plan (the auth check, one lookup batch, one write batch). */
export async function createImport(ctx: SchoolCtx, input: { kind: ImportKind; contentType: string | undefined; body: ArrayBuffer }): Promise<ImportView> {
  checkKindPermission(ctx, input.kind);
  if (!/^text\/csv\s*(;|$)/i.test(input.contentType ?? "")) throw new ApiError(e.UNSUPPORTED_MEDIA_TYPE);
  const text = decodeFile(input.body);
  const file = parseFile(input.kind, text);
  const checked = await checkRows(ctx, input.kind, file.rows.map((row) => row.values));
  const rows: StoredRow[] = checked.map((row, index) => ({ ...shown(row), values: file.rows[index]!.values, raw: file.rows[index]!.raw }));
  const counts = { rows: rows.length, create: 0, update: 0, unchanged: 0, error: 0 };
  for (const row of rows) counts[row.action] += 1;
  const now = ctx.clock.now();
  const id = uuidv7(now);
  const record = {
    id,
    kind: input.kind,
    status: counts.error === counts.rows ? ("invalid" as const) : ("ready" as const),
    created_by: ctx.actor.userId,
    created_at: now,
    expires_at: now + TTL_MS,
    applied_at: null,
    file_sha256: toHex(await crypto.subtle.digest("SHA-256", input.body)),
    plan_hash: await planHash(rows),
    counts: JSON.stringify(counts),
    columns: JSON.stringify(file.header),
    delimiter: file.delimiter,
    progress: 0,
    result: null,
  };
  const chunks = [];
  for (let start = 0; start < rows.length; start += CHUNK_ROWS) {
    chunks.push(
      batchable(
        ctx,
        sql`INSERT INTO import_chunks (tenant_id, import_id, chunk, rows) VALUES (${ctx.tenantId}, ${id}, ${start / CHUNK_ROWS}, ${JSON.stringify(rows.slice(start, start + CHUNK_ROWS))})`,
      ),
    );
  }
  await runBatch(ctx, [
    batchable(
      ctx,
      sql`INSERT INTO imports (id, tenant_id, kind, status, created_by, created_at, expires_at, applied_at, file_sha256, plan_hash, counts, columns, delimiter, progress, result)
        VALUES (${id}, ${ctx.tenantId}, ${record.kind}, ${record.status}, ${record.created_by}, ${now}, ${record.expires_at}, NULL, ${record.file_sha256},
          ${record.plan_hash}, ${record.counts}, ${record.columns}, ${record.delimiter}, 0, NULL)`,
    ),
    ...chunks,
  ]);
  return presentImport(record, rows);
}

/** GET /t/imports/:id: the import with its preview. */
export async function getImport(ctx: SchoolCtx, input: { id: string }): Promise<ImportView> {
  const { record, rows } = await readImport(ctx, input.id);
  return presentImport(record, rows);
}

/** GET /t/imports/:id/rows: a page of the plan's rows, filtered by action in SQL over the stored chunks. */
export async function listImportRows(ctx: SchoolCtx, input: { id: string; query: RowsQuery }) {
  const { id, query } = input;
  const filter = query.action ? sql`AND json_extract(j.value, '$.action') = ${query.action}` : sql``;
  const from = sql`FROM import_chunks c, json_each(c.rows) j
    WHERE ${inSchool("c", ctx.tenantId)} AND c.import_id = ${id} AND EXISTS (${visibleImportSql(ctx, id)}) ${filter}`;
  const results = await runBatch(ctx, [
    batchable(ctx, sql`SELECT i.id FROM (${visibleImportSql(ctx, id)}) i`),
    batchable(
      ctx,
      sql`SELECT json_extract(j.value, '$.row') AS row, json_extract(j.value, '$.action') AS action, json_extract(j.value, '$.key') AS key,
          json_extract(j.value, '$.changes') AS changes, json_extract(j.value, '$.errors') AS errors
        ${from} ORDER BY c.chunk, j.key LIMIT ${query.limit} OFFSET ${(query.page - 1) * query.limit}`,
    ),
    batchable(ctx, sql`SELECT count(*) AS total ${from}`),
  ]);
  if (rowsOf(results[0]).length === 0) throw new ApiError(e.IMPORT_NOT_FOUND);
  const rows = rowsOf<{ row: number; action: PlanRow["action"]; key: string; changes: string; errors: string }>(results[1]).map((row) => ({
    row: row.row,
    action: row.action,
    key: row.key,
    changes: JSON.parse(row.changes) as PlanRow["changes"],
    errors: JSON.parse(row.errors) as PlanRow["errors"],
  }));
  return { rows, total: rowsOf<{ total: number }>(results[2])[0]?.total ?? 0, page: query.page, limit: query.limit };
}

/** Formula-looking cells get an apostrophe, as the enrollments export does (a name cannot run in a spreadsheet). */
const CSV_OPTIONS = { record_delimiter: "windows", escape_formulas: true } as const;

/** GET /t/imports/:id/errors.csv: the error rows as written, plus `error` (`column: code; …`), UTF-8 with a BOM. */
export async function importErrorsCsv(ctx: SchoolCtx, input: { id: string }): Promise<Response> {
  const { record, rows } = await readImport(ctx, input.id, { allChunks: true });
  const header = JSON.parse(record.columns) as string[];
  const lines = rows
    .filter((row) => row.action === "error")
    .map((row) => [...header.map((_, index) => row.raw[index] ?? ""), row.errors.map((error) => `${error.column}: ${error.code}`).join("; ")]);
  const text = "\uFEFF" + stringify([[...header, "error"], ...lines], CSV_OPTIONS);
  return new Response(text, {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": contentDisposition("attachment", `import-${record.id}-errors.csv`),
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
