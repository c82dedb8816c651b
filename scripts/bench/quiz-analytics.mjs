/**
 * The bench of GET /t/quizzes/:id/analytics (issue 19): a quiz of 50 single-choice questions with
 * 10,000 submitted attempts, each answering every question (500,000 answers), read by the demo
 * admin. Wired into scripts/bench.mjs: run `quizAnalyticsBenchSql()` with the other bench SQL and
 * append `QUIZ_ANALYTICS_ENDPOINT` to its endpoint list.
 *
 * The rows come from recursive CTEs inside the database (a statement per table, a few seconds)
 * rather than from 500,000 literal INSERTs. Ids and timestamps are fixed, so a re-run changes
 * nothing: each INSERT is skipped as a whole once its last row exists, and INSERT OR IGNORE keeps
 * whatever an interrupted run left. The analytics figures of the quiz are rebuilt from the rows
 * afterwards (scripts/lib/figures.mjs), as the app's write batches would have kept them.
 */
import { DEMO } from "../seed/demo.mjs";
import { benchIds, literal } from "../lib/sql.mjs";
import { quizFiguresSql } from "../lib/figures.mjs";

export const QUIZ_ANALYTICS_BENCH = { attempts: 10_000, questions: 50, passingScore: 60 };

/** Ids of their own (the `7001` group), so they meet no other bench or seed id. */
const { fixedId, idSql } = benchIds("7001");

export const QUIZ_ANALYTICS_QUIZ_ID = fixedId("1", 1);

/** 2025-01-01, the demo ids' epoch: the attempts lie in the month before it, outside date windows of today. */
const EPOCH = 1_735_689_600_000;

/**
 * Attempt `i` answers question `k` correctly when `(i·31 + k·17) mod 100 < i mod 100`, so the scores
 * spread over the whole range (every bucket filled) and each question has its own success rate.
 */
const CORRECT = "((n.i * 31 + k.j * 17) % 100 < n.i % 100)";

export function quizAnalyticsBenchSql(demo = DEMO) {
  const { attempts, questions, passingScore } = QUIZ_ANALYTICS_BENCH;
  const t = literal(demo.tenantId);
  const quiz = literal(QUIZ_ANALYTICS_QUIZ_ID);
  const ranges = `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${attempts - 1}),
    k(j) AS (SELECT 0 UNION ALL SELECT j + 1 FROM k WHERE j < ${questions - 1})`;
  const missing = (table, id) => `NOT EXISTS (SELECT 1 FROM "${table}" WHERE id = ${literal(id)})`;
  const student = `CASE n.i % ${demo.students.length} ${demo.students.map((s, i) => `WHEN ${i} THEN ${literal(s.id)}`).join(" ")} END`;
  const startedAt = `${EPOCH - 30 * 86_400_000} + n.i * 60000`;
  return `INSERT OR IGNORE INTO quizzes (id, tenant_id, title, description, max_attempts, time_limit_seconds, passing_score, retake_policy, default_scoring_mode, screenshot_protection_enabled, created_at, updated_at)
  VALUES (${quiz}, ${t}, 'Bench analytics quiz', '', NULL, NULL, ${passingScore}, 'best', 'all_or_nothing', 0, ${EPOCH}, ${EPOCH});
INSERT OR IGNORE INTO quiz_questions (id, tenant_id, quiz_id, type, prompt, position, points_hundredths, correct_text, created_at, updated_at)
  ${ranges} SELECT ${idSql("2", "k.j")}, ${t}, ${quiz}, 'single', 'Question ' || (k.j + 1), k.j, 100, '[]', ${EPOCH}, ${EPOCH} FROM k
  WHERE ${missing("quiz_questions", fixedId("2", questions - 1))};
INSERT OR IGNORE INTO quiz_answers (id, tenant_id, quiz_id, question_id, text, is_correct, position, created_at)
  ${ranges}, c(m) AS (VALUES (0), (1))
  SELECT ${idSql("3", "k.j * 2 + c.m")}, ${t}, ${quiz}, ${idSql("2", "k.j")}, CASE c.m WHEN 0 THEN 'A' ELSE 'B' END, c.m = 0, c.m, ${EPOCH} FROM k, c
  WHERE ${missing("quiz_answers", fixedId("3", questions * 2 - 1))};
INSERT OR IGNORE INTO quiz_attempt_answers (id, tenant_id, attempt_id, quiz_id, user_id, question_id, payload, awarded_hundredths, is_correct, saved_at)
  ${ranges} SELECT ${idSql("5", `n.i * ${questions} + k.j`)}, ${t}, ${idSql("4", "n.i")}, ${quiz}, ${student}, ${idSql("2", "k.j")},
      json_object('answer_ids', json_array(${idSql("3", `k.j * 2 + (1 - ${CORRECT})`)})), 100 * ${CORRECT}, ${CORRECT}, ${startedAt} + 30000
    FROM n, k
  WHERE ${missing("quiz_attempt_answers", fixedId("5", attempts * questions - 1))};
INSERT OR IGNORE INTO quiz_attempts (id, tenant_id, quiz_id, user_id, actor_role, status, exam_attempt_id, started_at, deadline_at, submitted_at, auto_finalized,
    score_hundredths, max_score_hundredths, score_pct_hundredths, pending_review, passed, created_at, updated_at)
  ${ranges}, scored AS (
    SELECT n.i, ${student} AS user_id, sum(100 * ${CORRECT}) AS score FROM n, k GROUP BY n.i)
  SELECT ${idSql("4", "scored.i")}, ${t}, ${quiz}, scored.user_id, 'student', 'submitted', NULL, ${startedAt.replace("n.i", "scored.i")}, NULL,
      ${startedAt.replace("n.i", "scored.i")} + 60000, 0, scored.score, ${questions * 100}, scored.score * 10000 / ${questions * 100}, 0,
      scored.score * 10000 / ${questions * 100} >= ${passingScore * 100}, ${startedAt.replace("n.i", "scored.i")}, ${startedAt.replace("n.i", "scored.i")} + 60000
    FROM scored
  WHERE ${missing("quiz_attempts", fixedId("4", attempts - 1))};
${quizFiguresSql(demo.tenantId, QUIZ_ANALYTICS_QUIZ_ID)}`;
}

/** The bench.mjs endpoint entry: the analytics as the demo admin reads them. */
export const QUIZ_ANALYTICS_ENDPOINT = {
  name: "GET /api/v1/t/quizzes/:id/analytics (10,000 attempts × 50 questions)",
  method: "GET",
  path: `/api/v1/t/quizzes/${QUIZ_ANALYTICS_QUIZ_ID}/analytics`,
  headers: (sessions) => ({ authorization: `Bearer ${sessions.admin.token}`, "x-tenant-subdomain": DEMO.subdomain }),
};
