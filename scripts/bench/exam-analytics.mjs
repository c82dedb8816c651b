/**
 * The bench of GET /t/exams/:id/analytics: a published exam of 5 sections (each its own quiz) with
 * 2,000 submitted exam attempts, each with its 5 section attempts and their quiz attempts (10,000
 * of each), read by the demo admin. Wired into scripts/bench.mjs like quiz-analytics.mjs.
 *
 * Rows come from recursive CTEs inside the database; ids and timestamps are fixed, so a re-run
 * changes nothing (each INSERT is skipped once its last row exists; INSERT OR IGNORE keeps what an
 * interrupted run left). The exam's analytics figures are rebuilt from the rows afterwards
 * (scripts/lib/figures.mjs).
 */
import { DEMO } from "../seed/demo.mjs";
import { benchIds, literal } from "../lib/sql.mjs";
import { examFiguresSql } from "../lib/figures.mjs";

export const EXAM_ANALYTICS_BENCH = { attempts: 2_000, sections: 5, passingScore: 60 };

/** Ids of their own (the `7002` group), so they meet no other bench or seed id. */
const { fixedId, idSql } = benchIds("7002");

export const EXAM_ANALYTICS_EXAM_ID = fixedId("1", 1);

/** 2025-01-01: the attempts lie in the month before it. */
const EPOCH = 1_735_689_600_000;

export function examAnalyticsBenchSql(demo = DEMO) {
  const { attempts, sections, passingScore } = EXAM_ANALYTICS_BENCH;
  const t = literal(demo.tenantId);
  const exam = literal(EXAM_ANALYTICS_EXAM_ID);
  const ranges = `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${attempts - 1}),
    k(j) AS (SELECT 0 UNION ALL SELECT j + 1 FROM k WHERE j < ${sections - 1})`;
  const missing = (table, id) => `NOT EXISTS (SELECT 1 FROM "${table}" WHERE id = ${literal(id)})`;
  const student = `CASE n.i % ${demo.students.length} ${demo.students.map((s, i) => `WHEN ${i} THEN ${literal(s.id)}`).join(" ")} END`;
  const startedAt = `${EPOCH - 30 * 86_400_000} + n.i * 60000`;
  // Section j of attempt i scores (i·37 + j·53) mod 101 of 100 points; the exam's percent is their mean.
  const sectionScore = "((n.i * 37 + k.j * 53) % 101)";
  return `INSERT OR IGNORE INTO exams (id, tenant_id, title, description, time_limit_seconds, passing_score, max_attempts, retake_policy, screenshot_protection_enabled, status, published_at, created_by, created_at, updated_at)
  VALUES (${exam}, ${t}, 'Bench analytics exam', '', 3600, ${passingScore}, NULL, 'best', 0, 'published', ${EPOCH}, NULL, ${EPOCH}, ${EPOCH});
INSERT OR IGNORE INTO quizzes (id, tenant_id, title, description, max_attempts, time_limit_seconds, passing_score, retake_policy, default_scoring_mode, screenshot_protection_enabled, created_at, updated_at)
  ${ranges} SELECT ${idSql("2", "k.j")}, ${t}, 'Bench exam section ' || (k.j + 1), '', NULL, NULL, NULL, 'best', 'all_or_nothing', 0, ${EPOCH}, ${EPOCH} FROM k
  WHERE ${missing("quizzes", fixedId("2", sections - 1))};
INSERT OR IGNORE INTO exam_sections (id, tenant_id, exam_id, quiz_id, title, position, weight, created_at, updated_at)
  ${ranges} SELECT ${idSql("3", "k.j")}, ${t}, ${exam}, ${idSql("2", "k.j")}, 'Section ' || (k.j + 1), k.j, 1, ${EPOCH}, ${EPOCH} FROM k
  WHERE ${missing("exam_sections", fixedId("3", sections - 1))};
INSERT OR IGNORE INTO exam_attempts (id, tenant_id, exam_id, user_id, actor_role, status, started_at, deadline_at, submitted_at, auto_finalized,
    final_score_hundredths, final_max_hundredths, final_score_pct_hundredths, passed, warned_at, created_at, updated_at)
  ${ranges}, scored AS (SELECT n.i, ${student} AS user_id, sum(${sectionScore}) AS score FROM n, k GROUP BY n.i)
  SELECT ${idSql("4", "scored.i")}, ${t}, ${exam}, scored.user_id, 'student', 'submitted', ${startedAt.replaceAll("n.i", "scored.i")},
      ${startedAt.replaceAll("n.i", "scored.i")} + 3600000, ${startedAt.replaceAll("n.i", "scored.i")} + 600000, 0,
      scored.score * 100, ${sections * 10_000}, scored.score * 100 / ${sections}, scored.score * 100 / ${sections} >= ${passingScore * 100}, NULL,
      ${startedAt.replaceAll("n.i", "scored.i")}, ${startedAt.replaceAll("n.i", "scored.i")} + 600000
    FROM scored
  WHERE ${missing("exam_attempts", fixedId("4", attempts - 1))};
INSERT OR IGNORE INTO quiz_attempts (id, tenant_id, quiz_id, user_id, actor_role, status, exam_attempt_id, started_at, deadline_at, submitted_at, auto_finalized,
    score_hundredths, max_score_hundredths, score_pct_hundredths, pending_review, passed, created_at, updated_at)
  ${ranges} SELECT ${idSql("5", `n.i * ${sections} + k.j`)}, ${t}, ${idSql("2", "k.j")}, ${student}, 'student', 'submitted', ${idSql("4", "n.i")},
      ${startedAt}, NULL, ${startedAt} + 60000, 0, ${sectionScore} * 100, 10000, ${sectionScore} * 100, 0, NULL, ${startedAt}, ${startedAt} + 60000
    FROM n, k
  WHERE ${missing("quiz_attempts", fixedId("5", attempts * sections - 1))};
INSERT OR IGNORE INTO exam_section_attempts (id, tenant_id, exam_attempt_id, exam_section_id, quiz_attempt_id, position, created_at)
  ${ranges} SELECT ${idSql("6", `n.i * ${sections} + k.j`)}, ${t}, ${idSql("4", "n.i")}, ${idSql("3", "k.j")}, ${idSql("5", `n.i * ${sections} + k.j`)}, k.j, ${startedAt}
    FROM n, k
  WHERE ${missing("exam_section_attempts", fixedId("6", attempts * sections - 1))};
${examFiguresSql(demo.tenantId, EXAM_ANALYTICS_EXAM_ID)}`;
}

/** The bench.mjs endpoint entry: the exam's analytics as the demo admin reads them. */
export const EXAM_ANALYTICS_ENDPOINT = {
  name: "GET /api/v1/t/exams/:id/analytics (2,000 attempts × 5 sections)",
  method: "GET",
  path: `/api/v1/t/exams/${EXAM_ANALYTICS_EXAM_ID}/analytics`,
  headers: (sessions) => ({ authorization: `Bearer ${sessions.admin.token}`, "x-tenant-subdomain": DEMO.subdomain }),
};
