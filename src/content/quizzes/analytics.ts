import { sql, type SQL } from "drizzle-orm";
import { batchable, rowsOf, runBatch } from "../../core/db/batch";
import { formatHundredthsOrNull, percent } from "../../core/db/decimal";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { BUCKET_TOTALS, bucketsOfTotals, countedAttemptsSql, meanPct } from "../common/analytics";
import type { QuizAnalytics, QuizAnalyticsQuery } from "./analytics-schemas";
import { quizzesErrors } from "./errors";
import { inSchool, liveInSchool } from "../../core/db/conditions";

interface TotalsRow {
  attempt_count: number;
  submitted_count: number;
  settled_count: number;
  passed_count: number;
  pct_sum: number | null;
  pct_max: number | null;
  pct_min: number | null;
}

interface QuestionRow {
  question_id: string;
  answered: number;
  correct: number;
}

/**
 * The figures kept per member of the quiz's attempts outside exam sections (alias `f`;
 * src/content/quizzes/figures.ts), by the shared rule of whose attempts count. A result counts once
 * it is final: submitted with no answer waiting for a review; a pending attempt's score counts its
 * pending answers as 0 and its `passed` is null, so it would pull the figures down until graded
 * (the quiz list's `avg_score_pct` leaves it out the same way).
 */
function figuresSql(ctx: SchoolCtx, table: "quiz_figures" | "quiz_question_figures", quizId: string, query: QuizAnalyticsQuery): SQL {
  return countedAttemptsSql(ctx, { table, alias: "f", of: sql`f.quiz_id = ${quizId}`, includeStaff: query.include_admin_attempts });
}

/**
 * GET /quizzes/:id/analytics (view_analytics). The quiz, the totals with the score buckets and the
 * per-question counts are three SELECTs in one batch over the figures kept per member
 * (docs/decisions/heavy-reads.md, "Analytics aggregates"): with the guard's read, two round trips,
 * and rows read grow with the members who attempted the quiz, not with their attempts or answers.
 */
export async function quizAnalytics(ctx: SchoolCtx, input: { quizId: string; query: QuizAnalyticsQuery }): Promise<QuizAnalytics> {
  const t = ctx.tenantId;
  const { quizId, query } = input;
  const [quiz, totals, questions] = await runBatch(ctx, [
    batchable(ctx, sql`SELECT q.passing_score FROM quizzes q WHERE q.id = ${quizId} AND ${liveInSchool("q", t)}`),
    batchable(
      ctx,
      sql`SELECT coalesce(sum(f.attempt_count), 0) AS attempt_count,
          coalesce(sum(f.submitted_count), 0) AS submitted_count,
          coalesce(sum(f.settled_count), 0) AS settled_count,
          coalesce(sum(f.passed_count), 0) AS passed_count,
          sum(f.pct_sum) AS pct_sum, max(f.pct_max) AS pct_max, min(f.pct_min) AS pct_min, ${BUCKET_TOTALS}
        ${figuresSql(ctx, "quiz_figures", quizId, query)}`,
    ),
    batchable(
      ctx,
      sql`SELECT qq.id AS question_id, coalesce(s.answered, 0) AS answered, coalesce(s.correct, 0) AS correct
        FROM quiz_questions qq
          LEFT JOIN (SELECT f.question_id, sum(f.answered) AS answered, sum(f.correct) AS correct
              ${figuresSql(ctx, "quiz_question_figures", quizId, query)}
              GROUP BY f.question_id) s ON s.question_id = qq.id
        WHERE ${inSchool("qq", t)} AND qq.quiz_id = ${quizId} AND qq.deleted_at IS NULL
        ORDER BY qq.position, qq.id`,
    ),
  ]);
  const quizRow = rowsOf<{ passing_score: number | null }>(quiz)[0];
  if (!quizRow) throw new ApiError(quizzesErrors.QUIZ_NOT_FOUND);
  const sums = rowsOf<TotalsRow & Record<string, unknown>>(totals)[0]!;
  return {
    quiz_id: quizId,
    attempt_count: sums.attempt_count,
    submitted_count: sums.submitted_count,
    completion_rate: percent(sums.submitted_count, sums.attempt_count),
    avg_score_pct: meanPct(sums.pct_sum, sums.settled_count),
    max_score_pct: formatHundredthsOrNull(sums.pct_max),
    min_score_pct: formatHundredthsOrNull(sums.pct_min),
    pass_rate: quizRow.passing_score === null ? null : percent(sums.passed_count, sums.settled_count),
    per_question: rowsOf<QuestionRow>(questions).map((row) => ({ ...row, success_rate: percent(row.correct, row.answered) })),
    score_distribution: bucketsOfTotals(sums),
  };
}
