import { sql, type SQL } from "drizzle-orm";
import { batchable, rowsOf, runBatch } from "../../core/db/batch";
import { formatHundredthsOrNull } from "../../core/db/decimal";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { pageOffset } from "../../core/http/pagination";
import { isoOrNull } from "../../core/lib/clock";
import { restrictedScope, scopeCondition } from "../../platform/schools/curator-scope";
import { quizzesErrors } from "../quizzes/errors";
import type { ListQuizAttemptsQuery, QuizAttemptRow } from "./grading-schemas";
import { inSchool, liveInSchool } from "../../core/db/conditions";

interface AttemptListRow {
  attempt_id: string;
  student_id: string;
  email: string;
  first_name: string;
  last_name: string;
  actor_role: QuizAttemptRow["actor_role"];
  score_hundredths: number | null;
  max_score_hundredths: number | null;
  score_pct_hundredths: number | null;
  passed: number | null;
  pending_review: number;
  submitted_at: number | null;
  auto_finalized: number;
}

/**
 * `FROM … WHERE …` of the quiz's finished attempts the list shows: submitted, outside exam sections
 * (those belong to the exam's analytics), of live members of the school, students' own unless staff
 * attempts are asked for, narrowed by the filters and, for a restricted curator, to their students.
 */
function attemptsFromSql(ctx: SchoolCtx, quizId: string, query: ListQuizAttemptsQuery): SQL {
  const { tenantId } = ctx;
  const filters: SQL[] = [];
  if (!query.include_admin_attempts) filters.push(sql`a.actor_role = 'student'`);
  if (query.student_id !== undefined) filters.push(sql`a.user_id = ${query.student_id}`);
  if (query.pending_review !== undefined) filters.push(sql`a.pending_review = ${query.pending_review ? 1 : 0}`);
  const scope = scopeCondition(sql`a.user_id`, restrictedScope(ctx));
  if (scope) filters.push(scope);
  return sql`FROM quiz_attempts a
      JOIN users u ON u.id = a.user_id AND ${liveInSchool("u", tenantId)}
    WHERE ${inSchool("a", tenantId)} AND a.quiz_id = ${quizId} AND a.status = 'submitted' AND a.exam_attempt_id IS NULL
      ${filters.length > 0 ? sql`AND ${sql.join(filters, sql` AND `)}` : sql``}`;
}

function present(row: AttemptListRow): QuizAttemptRow {
  return {
    attempt_id: row.attempt_id,
    student_id: row.student_id,
    email: row.email,
    first_name: row.first_name,
    last_name: row.last_name,
    actor_role: row.actor_role,
    score: formatHundredthsOrNull(row.score_hundredths),
    max_score: formatHundredthsOrNull(row.max_score_hundredths),
    score_pct: formatHundredthsOrNull(row.score_pct_hundredths),
    passed: row.passed === null ? null : row.passed === 1,
    pending_review: row.pending_review === 1,
    submitted_at: isoOrNull(row.submitted_at),
    auto_finalized: row.auto_finalized === 1,
  };
}

/**
 * GET /quizzes/:id/attempts (view_analytics): a page of the quiz's finished attempts, newest
 * submitted first, with the total of the filtered set. The quiz, the page and the count are one
 * batch: with the guard's query, two round trips.
 */
export async function listQuizAttempts(ctx: SchoolCtx, input: { quizId: string; query: ListQuizAttemptsQuery }) {
  const { tenantId } = ctx;
  const { quizId, query } = input;
  const from = attemptsFromSql(ctx, quizId, query);
  const results = await runBatch(ctx, [
    batchable(ctx, sql`SELECT q.id FROM quizzes q WHERE q.id = ${quizId} AND ${liveInSchool("q", tenantId)}`),
    batchable(
      ctx,
      sql`SELECT a.id AS attempt_id, a.user_id AS student_id, u.email, u.first_name, u.last_name, a.actor_role,
          a.score_hundredths, a.max_score_hundredths, a.score_pct_hundredths, a.passed, a.pending_review, a.submitted_at, a.auto_finalized
        ${from}
        ORDER BY a.submitted_at DESC, a.id DESC
        LIMIT ${query.limit} OFFSET ${pageOffset(query.page, query.limit)}`,
    ),
    batchable(ctx, sql`SELECT count(*) AS total ${from}`),
  ]);
  if (rowsOf(results[0]).length === 0) throw new ApiError(quizzesErrors.QUIZ_NOT_FOUND);
  return {
    attempts: rowsOf<AttemptListRow>(results[1]).map(present),
    total: rowsOf<{ total: number }>(results[2])[0]!.total,
    page: query.page,
    limit: query.limit,
  };
}
