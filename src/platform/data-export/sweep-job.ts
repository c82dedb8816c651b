import { and, eq, inArray, isNull, lt, lte, or } from "drizzle-orm";
import { runBatch, type BatchItem } from "../../core/db/batch";
import { inSchool } from "../../core/db/conditions";
import type { SchoolCtx, ServiceContext, SystemActor } from "../../core/http/context";
import { MINUTE_MS, HOUR_MS } from "../../core/lib/clock";
import { log } from "../../core/lib/log";
import { dataExports } from "../../db/schema";
import { schoolChunks } from "../schools/school-chunks";
import { EXPORT_TTL_MS } from "./service";

/** Rows per school and run for each step; the rest waits for the next run (every 5 minutes). */
const CHUNK = 50;
/** A pending export older than this lost its message: it is sent again. */
const RESEND_AFTER_MS = 10 * MINUTE_MS;
/** A pending export older than this will not be built: it is marked failed (a new one may be asked for). */
const GIVE_UP_AFTER_MS = HOUR_MS;

type School = SchoolCtx<SystemActor>;
type Found = { id: string; objectKey: string | null }[];

/** Exports whose file must go: past their expiry, of a permanently deleted person (user_id cleared), or failed a week ago. */
function goneQuery(school: School, now: number) {
  return school.db
    .select({ id: dataExports.id, objectKey: dataExports.objectKey })
    .from(dataExports)
    .where(
      and(
        inSchool(dataExports, school.tenantId),
        or(lte(dataExports.expiresAt, now), isNull(dataExports.userId), and(eq(dataExports.status, "failed"), lt(dataExports.createdAt, now - EXPORT_TTL_MS))),
      ),
    )
    .limit(CHUNK);
}

function stalePendingQuery(school: School, now: number) {
  return school.db
    .select({ id: dataExports.id, createdAt: dataExports.createdAt })
    .from(dataExports)
    .where(and(inSchool(dataExports, school.tenantId), eq(dataExports.status, "pending"), lt(dataExports.createdAt, now - RESEND_AFTER_MS)))
    .limit(CHUNK);
}

/**
 * Cron, every run (docs/decisions/data-export.md, "Expiry"): school by school in chunks, deletes
 * the files of expired exports (and of people deleted since) from R2 and then their rows, so no
 * file outlives its row; sends the message again for exports left pending, and gives up on those
 * pending for an hour. Every step is safe to repeat.
 */
export async function sweepDataExports(ctx: ServiceContext): Promise<{ deleted: number; resent: number; failed: number }> {
  const now = ctx.clock.now();
  let deleted = 0;
  let resent = 0;
  let failed = 0;
  // Deleted schools too: their files go all the same.
  for await (const { schools } of schoolChunks(ctx, "data_export_sweep", undefined, { deleted: true })) {
    const results = (await runBatch(
      schools[0]!,
      schools.flatMap((school) => [goneQuery(school, now), stalePendingQuery(school, now)]),
    )) as unknown[][];
    const writes: BatchItem[] = [];
    const messages: { body: { kind: "data_export"; tenant_id: string; export_id: string } }[] = [];
    const keys: string[] = [];
    schools.forEach((school, i) => {
      const gone = results[2 * i] as Found;
      const stale = results[2 * i + 1] as { id: string; createdAt: number }[];
      if (gone.length > 0) {
        keys.push(...gone.flatMap((row) => (row.objectKey ? [row.objectKey] : [])));
        writes.push(school.db.delete(dataExports).where(and(inSchool(dataExports, school.tenantId), inArray(dataExports.id, gone.map((row) => row.id)))));
        deleted += gone.length;
      }
      const late = stale.filter((row) => row.createdAt < now - GIVE_UP_AFTER_MS).map((row) => row.id);
      if (late.length > 0) {
        writes.push(
          school.db
            .update(dataExports)
            .set({ status: "failed", failedAt: now })
            .where(and(inSchool(dataExports, school.tenantId), inArray(dataExports.id, late), eq(dataExports.status, "pending"))),
        );
        failed += late.length;
      }
      for (const row of stale) {
        if (row.createdAt >= now - GIVE_UP_AFTER_MS) messages.push({ body: { kind: "data_export", tenant_id: school.tenantId, export_id: row.id } });
      }
    });
    // The files first: a run that stops here leaves rows the next run finds again.
    if (keys.length > 0) await ctx.env.MEDIA.delete(keys);
    await runBatch(schools[0]!, writes);
    if (messages.length > 0) await ctx.env.DATA_EXPORT.sendBatch(messages);
    resent += messages.length;
  }
  if (deleted > 0 || resent > 0 || failed > 0) log.info("data export sweep", { deleted, resent, failed });
  return { deleted, resent, failed };
}
