import { sql } from "drizzle-orm";
import { batchable, changedRows, runBatch, type BatchItem } from "../../core/db/batch";
import { inSchool } from "../../core/db/conditions";
import type { SchoolCtx, ServiceContext, SystemActor } from "../../core/http/context";
import { DAY_MS } from "../../core/lib/clock";
import { schoolChunks } from "../schools/school-chunks";

/** How long a school's log keeps an entry (05 section 6). */
export const AUDIT_RETENTION_DAYS = 400;
const PURGE_CHUNK = 2000;
/** Rows a run deletes at most, over all schools; whatever is left goes in the next run. */
const MAX_PURGED = 10 * 2 * PURGE_CHUNK;

/** One school's entries past retention, oldest first through the (tenant, at, id) index, at most a chunk. */
function schoolEntries(school: SchoolCtx<SystemActor>, cutoff: number): BatchItem {
  return batchable(
    school,
    sql`DELETE FROM audit_entries WHERE ${inSchool(school.tenantId)} AND id IN (
          SELECT a.id FROM audit_entries a WHERE ${inSchool("a", school.tenantId)} AND a.at < ${cutoff} LIMIT ${PURGE_CHUNK})`,
  );
}

/**
 * The cron's removal of audit entries older than 400 days, the only delete the append-only log
 * knows: school by school in chunks (one batch per chunk of schools, a bounded statement per
 * school), again for a school that filled its chunk while the run's budget lasts.
 */
export async function purgeAuditEntries(ctx: ServiceContext): Promise<number> {
  const cutoff = ctx.clock.now() - AUDIT_RETENTION_DAYS * DAY_MS;
  let purged = 0;
  for await (const { schools } of schoolChunks(ctx, "audit_retention")) {
    if (purged >= MAX_PURGED) break;
    for (let round = schools; round.length > 0 && purged < MAX_PURGED; ) {
      const results = await runBatch(round[0]!, round.map((school) => schoolEntries(school, cutoff)));
      purged += results.reduce<number>((sum, result) => sum + changedRows(result), 0);
      round = round.filter((_, i) => changedRows(results[i]) === PURGE_CHUNK);
    }
  }
  return purged;
}
