import { and, asc, eq, getTableColumns, gt, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { runBatch, type BatchItem } from "../../core/db/batch";
import { inSchool } from "../../core/db/conditions";
import type { SchoolActor, SchoolCtx } from "../../core/http/context";
import { iso } from "../../core/lib/clock";
import { log } from "../../core/lib/log";
import { dataExports, users } from "../../db/schema";
import { dispatchQueued } from "../notifications/enqueue";
import { toUserObject, userColumns } from "../users/read";
import { presentRow } from "./present";
import { exportReadyPush } from "./push";
import { R2ObjectWriter } from "./r2-writer";
import { EXPORT_TTL_MS } from "./service";
import { EXPORT_SOURCES, exportedTables, type ExportSource } from "./sources";

/** Rows per statement: a student with 10,000 answers costs 40 reads of that table, each a bounded page. */
export const EXPORT_CHUNK = 250;

export const exportObjectKey = (tenantId: string, exportId: string) => `data-exports/${tenantId}/${exportId}.json`;

type Row = Record<string, unknown>;

/** One page of a source, in rowid order after `after` (keyset paging: each page is one bounded statement). */
function pageQuery(ctx: SchoolCtx<SchoolActor>, source: ExportSource, userId: string, after: number) {
  const columns = getTableColumns(source.table);
  return ctx.db
    .select({ ...columns, exportRowid: sql<number>`rowid`.as("export_rowid") })
    .from(source.table)
    .where(and(source.where(ctx.tenantId, userId), gt(sql`rowid`, after)))
    .orderBy(asc(sql`rowid`))
    .limit(EXPORT_CHUNK);
}

/**
 * The queue's work for one export (05 section 7): reads the person's rows table by table, in
 * pages, and streams one JSON document into R2, then marks the export ready with its push in one
 * batch. The first page of every table comes in one batch; only tables with more rows than a
 * page are read on, page by page, so the statements grow with the person's data in steps of a page
 * and the memory with one page per table. A failure marks the export failed (a new one may be
 * asked for at once: failed exports do not count for the rate limit).
 */
export async function buildExport(ctx: SchoolCtx<SchoolActor>, input: { exportId: string }): Promise<"ready" | "failed" | "skipped"> {
  const [row] = await ctx.db
    .select()
    .from(dataExports)
    .where(and(eq(dataExports.id, input.exportId), inSchool(dataExports, ctx.tenantId), eq(dataExports.status, "pending")))
    .limit(1);
  if (!row || row.userId === null) return "skipped";
  const userId = row.userId;
  const key = exportObjectKey(ctx.tenantId, row.id);
  const writer = new R2ObjectWriter(ctx.env.MEDIA, key, "application/json; charset=utf-8");
  try {
    await writeDocument(ctx, writer, { exportId: row.id, userId });
    const size = await writer.close();
    const now = ctx.clock.now();
    const pending = and(eq(dataExports.id, row.id), inSchool(dataExports, ctx.tenantId), eq(dataExports.status, "pending"));
    const statements: BatchItem[] = [
      ctx.db.update(dataExports).set({ status: "ready", objectKey: key, sizeBytes: size, readyAt: now, expiresAt: now + EXPORT_TTL_MS }).where(pending),
    ];
    if (row.requestedBy) statements.push(await exportReadyPush(ctx, { exportId: row.id, requestedBy: row.requestedBy }));
    await runBatch(ctx, statements);
    await dispatchQueued(ctx);
    return "ready";
  } catch (err) {
    log.error("data export failed", { export_id: row.id, error: String(err) });
    await writer.abort();
    await ctx.db
      .update(dataExports)
      .set({ status: "failed", failedAt: ctx.clock.now() })
      .where(and(eq(dataExports.id, row.id), inSchool(dataExports, ctx.tenantId), eq(dataExports.status, "pending")));
    return "failed";
  }
}

async function writeDocument(ctx: SchoolCtx<SchoolActor>, writer: R2ObjectWriter, input: { exportId: string; userId: string }): Promise<void> {
  const profileQuery = ctx.db
    .select(userColumns)
    .from(users)
    .where(and(eq(users.id, input.userId), inSchool(users, ctx.tenantId)))
    .limit(1);
  const [profileRows, ...firstPages] = (await ctx.db.batch([profileQuery, ...EXPORT_SOURCES.map((source) => pageQuery(ctx, source, input.userId, 0))] as never)) as Row[][];
  const profile = profileRows![0] as Parameters<typeof toUserObject>[1] | undefined;
  if (!profile) throw new Error("the person of the export is gone");
  const head = {
    format: "lms-personal-data-export/1",
    export_id: input.exportId,
    generated_at: iso(ctx.clock.now()),
    school: { id: ctx.tenantId, title: ctx.tenant.title },
    user_id: input.userId,
    sources: exportedTables(),
    profile: await toUserObject(ctx, profile),
  };
  // The head without its closing brace, then the tables one by one.
  await writer.write(`${JSON.stringify(head).slice(0, -1)},"tables":{`);
  for (const [index, source] of EXPORT_SOURCES.entries()) {
    await writer.write(`${index === 0 ? "" : ","}${JSON.stringify(source.name)}:[`);
    const columns = getTableColumns(source.table) as Record<string, SQLiteColumn>;
    let page = firstPages[index]!;
    let first = true;
    for (;;) {
      if (page.length > 0) {
        await writer.write(`${first ? "" : ","}${page.map((row) => JSON.stringify(presentRow(source.name, columns, row))).join(",")}`);
        first = false;
      }
      if (page.length < EXPORT_CHUNK) break;
      page = (await pageQuery(ctx, source, input.userId, page.at(-1)!.exportRowid as number)) as Row[];
    }
    await writer.write("]");
  }
  await writer.write("}}");
}

