import { and, asc, inArray, isNotNull, isNull, lt, or, sql } from "drizzle-orm";
import { runBatch } from "../../core/db/batch";
import type { SchoolCtx, ServiceContext, SystemActor } from "../../core/http/context";
import { log } from "../../core/lib/log";
import { mediaAssets } from "../../db/schema";
import { schoolChunks } from "../schools/school-chunks";
import { PENDING_DEADLINE_MS } from "./policy";
import { inSchool } from "../../core/db/conditions";

/**
 * Rows per school and statement: their ids travel as bound parameters, and D1 takes at most 100
 * per statement. `MAX_ROWS` bounds a run's work over all schools; the rest waits for the next run.
 */
const CHUNK = 50;
const MAX_ROWS = 1000;

type School = SchoolCtx<SystemActor>;

/**
 * Cron, every run, shard by shard and school by school (`schoolChunks`). (1) Assets still pending
 * 24 hours after presign become `failed`: the state is written first and conditionally, so an
 * asset confirmed at the last moment is never touched. (2) Objects of failed and deleted assets
 * are removed from R2, then deleted rows go and failed rows are marked purged. A run that stops
 * half-way leaves marks the next run picks up, so every step is safe to repeat and no object is
 * left behind.
 */
export async function sweepMedia(ctx: ServiceContext): Promise<{ failed: number; purged: number }> {
  const now = ctx.clock.now();
  let failed = 0;
  let purged = 0;
  // Deleted schools too: their members' files are marked deleted with the school and purged here.
  for await (const { schools } of schoolChunks(ctx, "media_sweep", undefined, { deleted: true })) {
    // A school that filled its statement may have more; it gets another round while the run's budget lasts.
    for (let round = schools; round.length > 0 && failed < MAX_ROWS; ) {
      const marked = (await runBatch(round[0]!, round.map((school) => failStale(school, now)))) as { id: string }[][];
      failed += marked.reduce((sum, rows) => sum + rows.length, 0);
      round = round.filter((_, i) => marked[i]!.length === CHUNK);
    }
    for (let round = schools; round.length > 0 && purged < MAX_ROWS; ) {
      const found = await purgeRound(round, now);
      purged += found.reduce((sum, rows) => sum + rows, 0);
      round = round.filter((_, i) => found[i] === CHUNK);
    }
    if (failed >= MAX_ROWS && purged >= MAX_ROWS) break;
  }
  if (failed > 0 || purged > 0) log.info("media sweep", { failed, purged });
  return { failed, purged };
}

function failStale(school: School, now: number) {
  const stale = school.db
    .select({ id: mediaAssets.id })
    .from(mediaAssets)
    .where(and(inSchool(mediaAssets, school.tenantId), sql`${mediaAssets.status} = 'pending'`, lt(mediaAssets.createdAt, now - PENDING_DEADLINE_MS)))
    .orderBy(asc(mediaAssets.createdAt))
    .limit(CHUNK);
  return school.db
    .update(mediaAssets)
    .set({ status: "failed", updatedAt: now })
    .where(and(inSchool(mediaAssets, school.tenantId), inArray(mediaAssets.id, stale), sql`${mediaAssets.status} = 'pending'`))
    .returning({ id: mediaAssets.id });
}

/** One page of purgeable assets per school (one batch on their shard), their objects, then their rows; answers each school's count. */
async function purgeRound(schools: School[], now: number): Promise<number[]> {
  const pages = (await runBatch(
    schools[0]!,
    schools.map((school) =>
      school.db
        .select({ id: mediaAssets.id, objectKey: mediaAssets.objectKey, deletedAt: mediaAssets.deletedAt })
        .from(mediaAssets)
        .where(and(inSchool(mediaAssets, school.tenantId), isNull(mediaAssets.objectPurgedAt), or(sql`${mediaAssets.status} = 'failed'`, isNotNull(mediaAssets.deletedAt))))
        .orderBy(asc(mediaAssets.createdAt))
        .limit(CHUNK),
    ),
  )) as { id: string; objectKey: string; deletedAt: number | null }[][];
  const rows = pages.flat();
  if (rows.length === 0) return pages.map(() => 0);
  // R2 deletes at most 1000 keys per call.
  for (let i = 0; i < rows.length; i += 1000) await schools[0]!.env.MEDIA.delete(rows.slice(i, i + 1000).map((row) => row.objectKey));
  await runBatch(
    schools[0]!,
    schools.flatMap((school, i) => {
      const deleted = pages[i]!.filter((row) => row.deletedAt !== null).map((row) => row.id);
      const failedRows = pages[i]!.filter((row) => row.deletedAt === null).map((row) => row.id);
      const mine = inSchool(mediaAssets, school.tenantId);
      return [
        ...(deleted.length > 0 ? [school.db.delete(mediaAssets).where(and(mine, inArray(mediaAssets.id, deleted)))] : []),
        ...(failedRows.length > 0 ? [school.db.update(mediaAssets).set({ objectPurgedAt: now }).where(and(mine, inArray(mediaAssets.id, failedRows)))] : []),
      ];
    }),
  );
  return pages.map((page) => page.length);
}
