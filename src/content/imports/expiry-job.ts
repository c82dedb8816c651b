import { sql } from "drizzle-orm";
import { batchable, changedRows, runBatch } from "../../core/db/batch";
import { inSchool } from "../../core/db/conditions";
import type { ServiceContext } from "../../core/http/context";
import { DAY_MS } from "../../core/lib/clock";
import { schoolChunks } from "../../platform/schools/school-chunks";

/** How long an expired import's summary (counts, hash, no personal data) is kept after its plan goes. */
const SUMMARY_KEPT_DAYS = 30;

/**
 * The cron's sweep of roster imports (05 section 3, docs/decisions/imports.md, "Expiry"): a plan
 * older than 24 hours loses its rows (the file's names and addresses), applied or not; the import
 * row itself, which holds only counts, goes 30 days later, and with it any chunk left without one.
 * One batch per chunk of schools, three bounded statements per school.
 */
export async function sweepImports(ctx: ServiceContext): Promise<number> {
  const now = ctx.clock.now();
  let removed = 0;
  for await (const { schools } of schoolChunks(ctx, "imports_sweep")) {
    const statements = schools.flatMap((school) => [
      batchable(
        school,
        sql`DELETE FROM import_chunks WHERE ${inSchool(school.tenantId)} AND import_id IN (
            SELECT i.id FROM imports i WHERE ${inSchool("i", school.tenantId)} AND i.expires_at <= ${now})`,
      ),
      batchable(school, sql`DELETE FROM imports WHERE ${inSchool(school.tenantId)} AND expires_at <= ${now - SUMMARY_KEPT_DAYS * DAY_MS}`),
      batchable(
        school,
        sql`DELETE FROM import_chunks WHERE ${inSchool(school.tenantId)} AND import_id NOT IN (SELECT i.id FROM imports i WHERE ${inSchool("i", school.tenantId)})`,
      ),
    ]);
    if (statements.length === 0) continue;
    const results = await runBatch(schools[0]!, statements);
    removed += results.reduce<number>((sum, result) => sum + changedRows(result), 0);
  }
  return removed;
}
