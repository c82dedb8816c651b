import { sql, type SQL } from "drizzle-orm";
import { batchable, rowsOf, runBatch } from "../../core/db/batch";
import { formatHundredthsOrNull, percent } from "../../core/db/decimal";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { BUCKET_TOTALS, bucketsOfTotals, countedAttemptsSql as countedSql, meanPct } from "../common/analytics";
import type { ExamAnalytics, ExamAnalyticsQuery } from "./analytics-schemas";
import { examsErrors } from "./errors";
import { inSchool, liveInSchool } from "../../core/db/conditions";

interface TotalsRow {
  attempt_count: number;
  submitted_count: number;
  passed_count: number;
  pct_sum: number | null;
  pct_max: number | null;
  pct_min: number | null;
}

interface SectionRow {
  section_id: string;
  title: string;
  weight: number;
  pct_sum: number;
}

/** The figures kept per member of the exam's attempts (alias `f`; src/content/exams/figures.ts), by the shared rule of whose attempts count. */
function figuresSql(ctx: SchoolCtx, table: "exam_figures" | "exam_section_figures", examId: string, query: ExamAnalyticsQuery): SQL {
  return countedSql(ctx, { table, alias: "f", of: sql`f.exam_id = ${examId}`, includeStaff: query.include_admin_attempts });
}

/**
 * A section's percent in one attempt as the attempt shows it, from its quiz attempt `qa`: score /
 * max × 100 in hundredths, half-up, a score above the max counting as the max; 0 when the max is 0
 * or when the section was never opened (no `qa` row).
 */
export const SECTION_PCT = sql`CASE WHEN qa.max_score_hundredths > 0
    THEN min(10000, (20000 * max(coalesce(qa.score_hundredths, 0), 0) + qa.max_score_hundredths) / (2 * qa.max_score_hundredths))
    ELSE 0 END`;

/**
 * GET /exams/:id/analytics (view_analytics). The exam, the totals with the score buckets and the
 * per-section sums are three SELECTs in one batch over the figures kept per member
 * (docs/decisions/heavy-reads.md, "Analytics aggregates"): with the guard's read, two round trips.
 *
 * A submitted attempt that never opened a section counts 0 % in that section's mean, so every
 * section's mean is over the same submitted attempts as `avg_score_pct`.
 */
export async function examAnalytics(ctx: SchoolCtx, input: { examId: string; query: ExamAnalyticsQuery }): Promise<ExamAnalytics> {
  const t = ctx.tenantId;
  const { examId, query } = input;
  const [exam, totals, sections] = await runBatch(ctx, [
    batchable(ctx, sql`SELECT e.passing_score FROM exams e WHERE e.id = ${examId} AND ${liveInSchool("e", t)}`),
    batchable(
      ctx,
      sql`SELECT coalesce(sum(f.attempt_count), 0) AS attempt_count,
          coalesce(sum(f.submitted_count), 0) AS submitted_count,
          coalesce(sum(f.passed_count), 0) AS passed_count,
          sum(f.pct_sum) AS pct_sum, max(f.pct_max) AS pct_max, min(f.pct_min) AS pct_min, ${BUCKET_TOTALS}
        ${figuresSql(ctx, "exam_figures", examId, query)}`,
    ),
    batchable(
      ctx,
      sql`SELECT s.id AS section_id, s.title, s.weight, coalesce(x.pct_sum, 0) AS pct_sum
        FROM exam_sections s
          LEFT JOIN (SELECT f.section_id, sum(f.pct_sum) AS pct_sum ${figuresSql(ctx, "exam_section_figures", examId, query)} GROUP BY f.section_id) x
            ON x.section_id = s.id
        WHERE ${inSchool("s", t)} AND s.exam_id = ${examId} AND s.deleted_at IS NULL
        ORDER BY s.position, s.id`,
    ),
  ]);
  const examRow = rowsOf<{ passing_score: number | null }>(exam)[0];
  if (!examRow) throw new ApiError(examsErrors.EXAM_NOT_FOUND);
  const sums = rowsOf<TotalsRow & Record<string, unknown>>(totals)[0]!;
  const submitted = sums.submitted_count;
  return {
    exam_id: examId,
    attempt_count: sums.attempt_count,
    submitted_count: submitted,
    passed_count: sums.passed_count,
    pass_rate: examRow.passing_score === null ? null : percent(sums.passed_count, submitted),
    avg_score_pct: meanPct(sums.pct_sum, submitted),
    max_score_pct: formatHundredthsOrNull(sums.pct_max),
    min_score_pct: formatHundredthsOrNull(sums.pct_min),
    per_section: rowsOf<SectionRow>(sections).map((row) => ({
      section_id: row.section_id,
      title: row.title,
      weight: row.weight,
      avg_score_pct: meanPct(row.pct_sum, submitted),
    })),
    score_distribution: bucketsOfTotals(sums),
  };
}
