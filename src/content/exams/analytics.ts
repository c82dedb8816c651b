import { sql, type SQL } from "drizzle-orm";
import { batchable, rowsOf, runBatch } from "../../core/db/batch";
import { formatHundredthsOrNull, percent } from "../../core/db/decimal";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { bucketCountsSql, countedAttemptsSql as countedSql, meanPct, scoreDistribution } from "../common/analytics";
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

/** The exam's attempts the figures count (alias `ea`); `extra` narrows them. */
function countedAttemptsSql(ctx: SchoolCtx, examId: string, query: ExamAnalyticsQuery, extra?: SQL): SQL {
  return countedSql(ctx, { table: "exam_attempts", alias: "ea", of: sql`ea.exam_id = ${examId}`, includeStaff: query.include_admin_attempts }, extra);
}

const SUBMITTED = sql`ea.status = 'submitted'`;

/**
 * A section's percent in one attempt as the attempt shows it, from its quiz attempt `qa`: score /
 * max × 100 in hundredths, half-up, a score above the max counting as the max; 0 when the max is 0
 * or when the section was never opened (no `qa` row).
 */
const SECTION_PCT = sql`CASE WHEN qa.max_score_hundredths > 0
    THEN min(10000, (20000 * max(coalesce(qa.score_hundredths, 0), 0) + qa.max_score_hundredths) / (2 * qa.max_score_hundredths))
    ELSE 0 END`;

/**
 * GET /exams/:id/analytics (view_analytics). The exam, the totals, the per-section sums and the
 * score buckets are four set-based SELECTs in one batch: with the guard's read, two round trips.
 *
 * A submitted attempt that never opened a section counts 0 % in that section's mean, so every
 * section's mean is over the same submitted attempts as `avg_score_pct`.
 */
export async function examAnalytics(ctx: SchoolCtx, input: { examId: string; query: ExamAnalyticsQuery }): Promise<ExamAnalytics> {
  const t = ctx.tenantId;
  const { examId, query } = input;
  const pct = sql`coalesce(ea.final_score_pct_hundredths, 0)`;
  const [exam, totals, sections, buckets] = await runBatch(ctx, [
    batchable(ctx, sql`SELECT e.passing_score FROM exams e WHERE e.id = ${examId} AND ${liveInSchool("e", t)}`),
    batchable(
      ctx,
      sql`SELECT count(*) AS attempt_count,
          coalesce(sum(${SUBMITTED}), 0) AS submitted_count,
          coalesce(sum(${SUBMITTED} AND ea.passed = 1), 0) AS passed_count,
          sum(CASE WHEN ${SUBMITTED} THEN ${pct} END) AS pct_sum,
          max(CASE WHEN ${SUBMITTED} THEN ${pct} END) AS pct_max,
          min(CASE WHEN ${SUBMITTED} THEN ${pct} END) AS pct_min
        ${countedAttemptsSql(ctx, examId, query)}`,
    ),
    batchable(
      ctx,
      sql`SELECT s.id AS section_id, s.title, s.weight,
          coalesce(sum(${SECTION_PCT}), 0) AS pct_sum
        FROM exam_sections s
          LEFT JOIN exam_section_attempts esa ON ${inSchool("esa", t)} AND esa.exam_section_id = s.id
            AND esa.exam_attempt_id IN (SELECT ea.id ${countedAttemptsSql(ctx, examId, query, SUBMITTED)})
          LEFT JOIN quiz_attempts qa ON ${inSchool("qa", t)} AND qa.id = esa.quiz_attempt_id AND qa.exam_attempt_id = esa.exam_attempt_id
        WHERE ${inSchool("s", t)} AND s.exam_id = ${examId} AND s.deleted_at IS NULL
        GROUP BY s.id
        ORDER BY s.position, s.id`,
    ),
    batchable(ctx, bucketCountsSql(pct, countedAttemptsSql(ctx, examId, query, SUBMITTED))),
  ]);
  const examRow = rowsOf<{ passing_score: number | null }>(exam)[0];
  if (!examRow) throw new ApiError(examsErrors.EXAM_NOT_FOUND);
  const sums = rowsOf<TotalsRow>(totals)[0]!;
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
    score_distribution: scoreDistribution(rowsOf<{ bucket: number; count: number }>(buckets)),
  };
}
