import { and, asc, inArray, isNotNull, isNull, lt, or, sql } from "drizzle-orm";
import { runBatch } from "../../core/db/batch";
import type { ServiceContext } from "../../core/http/context";
import { log } from "../../core/lib/log";
import { mediaAssets } from "../../db/schema";
import { PENDING_DEADLINE_MS } from "./policy";

/**
 * Rows per chunk: their ids travel as bound parameters, and D1 takes at most 100 per statement.
 * Chunks per run bound the cron's work; the rest waits for the next run.
 */
const CHUNK = 50;
const MAX_CHUNKS = 20;

/**
 * Cron, every run. (1) Assets still pending 24 hours after presign become `failed`: the state is
 * written first and conditionally, so an asset confirmed at the last moment is never touched.
 * (2) Objects of failed and deleted assets are removed from R2, then deleted rows go and failed
 * rows are marked purged. A run that stops half-way leaves marks the next run picks up, so every
 * step is safe to repeat and no object is left behind.
 */
export async function sweepMedia(ctx: ServiceContext): Promise<{ failed: number; purged: number }> {
  const now = ctx.clock.now();
  let failed = 0;
  for (let chunk = 0; chunk < MAX_CHUNKS; chunk++) {
    const stale = ctx.db
      .select({ id: mediaAssets.id })
      .from(mediaAssets)
      .where(and(sql`${mediaAssets.status} = 'pending'`, lt(mediaAssets.createdAt, now - PENDING_DEADLINE_MS)))
      .orderBy(asc(mediaAssets.createdAt))
      .limit(CHUNK);
    const marked = await ctx.db
      .update(mediaAssets)
      .set({ status: "failed", updatedAt: now })
      .where(and(inArray(mediaAssets.id, stale), sql`${mediaAssets.status} = 'pending'`))
      .returning({ id: mediaAssets.id });
    failed += marked.length;
    if (marked.length < CHUNK) break;
  }
  let purged = 0;
  for (let chunk = 0; chunk < MAX_CHUNKS; chunk++) {
    const rows = await ctx.db
      .select({ id: mediaAssets.id, objectKey: mediaAssets.objectKey, deletedAt: mediaAssets.deletedAt })
      .from(mediaAssets)
      .where(and(isNull(mediaAssets.objectPurgedAt), or(sql`${mediaAssets.status} = 'failed'`, isNotNull(mediaAssets.deletedAt))))
      .orderBy(asc(mediaAssets.createdAt))
      .limit(CHUNK);
    if (rows.length === 0) break;
    await ctx.env.MEDIA.delete(rows.map((row) => row.objectKey));
    const deleted = rows.filter((row) => row.deletedAt !== null).map((row) => row.id);
    const failedRows = rows.filter((row) => row.deletedAt === null).map((row) => row.id);
    await runBatch(ctx, [
      ...(deleted.length > 0 ? [ctx.db.delete(mediaAssets).where(inArray(mediaAssets.id, deleted))] : []),
      ...(failedRows.length > 0 ? [ctx.db.update(mediaAssets).set({ objectPurgedAt: now }).where(inArray(mediaAssets.id, failedRows))] : []),
    ]);
    purged += rows.length;
    if (rows.length < CHUNK) break;
  }
  if (failed > 0 || purged > 0) log.info("media sweep", { failed, purged });
  return { failed, purged };
}
