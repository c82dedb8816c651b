import { sql, type SQL } from "drizzle-orm";
import { batchable, rowsOf, runBatch } from "../../core/db/batch";
import { formatHundredthsOrNull, percent } from "../../core/db/decimal";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { bucketCountsSql, countedAttemptsSql, meanPct, scoreDistribution } from "../common/analytics";
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
 * A result counts once it is final: submitted with no answer waiting for a review. A pending
 * attempt's score counts its pending answers as 0 and its `passed` is null, so it would pull the
 * figures down until graded; the quiz list's `avg_score_pct` leaves it out the same way.
 */
const SETTLED = sql`a.status = 'submitted' AND a.pending_review = 0`;

/**
 * The quiz's attempts the figures count (alias `a`): outside exam sections, as the attempts list
 * (those belong to the exam's analytics), by the shared rule of whose attempts count.
 */
function attemptsSql(ctx: SchoolCtx, quizId: string, query: QuizAnalyticsQuery, extra?: SQL): SQL {
  const of = sql`a.quiz_id = ${quizId} AND a.exam_attempt_id IS NULL`;
  return countedAttemptsSql(ctx, { table: "quiz_attempts", alias: "a", of, includeStaff: query.include_admin_attempts }, extra);
}

/**
 * GET /quizzes/:id/analytics (view_analytics). The quiz, the totals, the per-question counts and
 * the score buckets are four set-based SELECTs in one batch: with the guard's read, two round
 * trips, however many attempts and questions there are.
 */
export async function quizAnalytics(ctx: SchoolCtx, input: { quizId: string; query: QuizAnalyticsQuery }): Promise<QuizAnalytics> {
  const t = ctx.tenantId;
  const { quizId, query } = input;
  const pct = sql`coalesce(a.score_pct_hundredths, 0)`;
  const settled = attemptsSql(ctx, quizId, query, SETTLED);
  const [quiz, totals, questions, buckets] = await runBatch(ctx, [
    batchable(ctx, sql`SELECT q.passing_score FROM quizzes q WHERE q.id = ${quizId} AND ${liveInSchool("q", t)}`),
    batchable(
      ctx,
      sql`SELECT count(*) AS attempt_count,
          coalesce(sum(a.status = 'submitted'), 0) AS submitted_count,
          coalesce(sum(${SETTLED}), 0) AS settled_count,
          coalesce(sum(${SETTLED} AND a.passed = 1), 0) AS passed_count,
          sum(CASE WHEN ${SETTLED} THEN ${pct} END) AS pct_sum,
          max(CASE WHEN ${SETTLED} THEN ${pct} END) AS pct_max,
          min(CASE WHEN ${SETTLED} THEN ${pct} END) AS pct_min
        ${attemptsSql(ctx, quizId, query)}`,
    ),
    // Driven by the counted attempts: each attempt's answers sit together (one finalize writes
    // them), so reading them by attempt touches few pages, where reading a question's answers
    // across every attempt would touch a page per answer. The unary `+` keeps the planner off the
    // (tenant, quiz, question) index, which would scan every answer of the quiz per attempt.
    batchable(
      ctx,
      sql`SELECT qq.id AS question_id, coalesce(s.answered, 0) AS answered, coalesce(s.correct, 0) AS correct
        FROM quiz_questions qq
          LEFT JOIN (SELECT ans.question_id, count(*) AS answered, sum(ans.is_correct = 1) AS correct
              FROM (SELECT a.id ${settled}) c
                CROSS JOIN quiz_attempt_answers ans ON ans.attempt_id = c.id AND +${inSchool("ans", t)} AND +ans.quiz_id = ${quizId}
              GROUP BY ans.question_id) s ON s.question_id = qq.id
        WHERE ${inSchool("qq", t)} AND qq.quiz_id = ${quizId} AND qq.deleted_at IS NULL
        ORDER BY qq.position, qq.id`,
    ),
    batchable(ctx, bucketCountsSql(pct, settled)),
  ]);
  const quizRow = rowsOf<{ passing_score: number | null }>(quiz)[0];
  if (!quizRow) throw new ApiError(quizzesErrors.QUIZ_NOT_FOUND);
  const sums = rowsOf<TotalsRow>(totals)[0]!;
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
    score_distribution: scoreDistribution(rowsOf<{ bucket: number; count: number }>(buckets)),
  };
}
