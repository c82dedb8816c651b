/**
 * The analytics figures of attempts written straight into a school database by a seed or the
 * bench: the same rebuild as src/content/quizzes/figures.ts and src/content/exams/figures.ts (and
 * the backfill of the migration that added them), for one quiz or exam of one school. A source of
 * the app keeps them in its own write batch; rows inserted behind its back need this afterwards.
 */
import { literal } from "./sql.mjs";

const BUCKETS = Array.from({ length: 10 }, (_, n) => n);
const columns = BUCKETS.map((n) => `bucket_${n}`).join(", ");
const sums = (pct, counted) => BUCKETS.map((n) => `coalesce(sum(${counted} AND min(9, ${pct} / 1000) = ${n}), 0)`).join(", ");

/** DELETE and INSERT … SELECT statements (one SQL text) rebuilding the figures of a quiz's attempts outside exams. */
export function quizFiguresSql(tenantId, quizId) {
  const t = literal(tenantId);
  const q = literal(quizId);
  const settled = "a.status = 'submitted' AND a.pending_review = 0";
  const pct = "coalesce(a.score_pct_hundredths, 0)";
  return `DELETE FROM quiz_figures WHERE tenant_id = ${t} AND quiz_id = ${q};
INSERT INTO quiz_figures (tenant_id, quiz_id, user_id, actor_role, attempt_count, submitted_count, settled_count, passed_count, pct_sum, pct_max, pct_min, ${columns})
  SELECT a.tenant_id, a.quiz_id, a.user_id, a.actor_role, count(*), coalesce(sum(a.status = 'submitted'), 0), coalesce(sum(${settled}), 0), coalesce(sum(${settled} AND a.passed = 1), 0),
    sum(CASE WHEN ${settled} THEN ${pct} END), max(CASE WHEN ${settled} THEN ${pct} END), min(CASE WHEN ${settled} THEN ${pct} END), ${sums(pct, settled)}
  FROM quiz_attempts a WHERE a.tenant_id = ${t} AND a.quiz_id = ${q} AND a.exam_attempt_id IS NULL
  GROUP BY a.quiz_id, a.user_id, a.actor_role;
DELETE FROM quiz_question_figures WHERE tenant_id = ${t} AND quiz_id = ${q};
INSERT INTO quiz_question_figures (tenant_id, quiz_id, user_id, actor_role, question_id, answered, correct)
  SELECT a.tenant_id, a.quiz_id, a.user_id, a.actor_role, ans.question_id, count(*), coalesce(sum(ans.is_correct = 1), 0)
  FROM quiz_attempts a JOIN quiz_attempt_answers ans ON ans.attempt_id = a.id AND ans.tenant_id = ${t} AND ans.quiz_id = a.quiz_id
  WHERE a.tenant_id = ${t} AND a.quiz_id = ${q} AND a.exam_attempt_id IS NULL AND ${settled}
  GROUP BY a.quiz_id, a.user_id, a.actor_role, ans.question_id;
`;
}

/** The same for an exam's attempts and their sections. */
export function examFiguresSql(tenantId, examId) {
  const t = literal(tenantId);
  const e = literal(examId);
  const submitted = "ea.status = 'submitted'";
  const pct = "coalesce(ea.final_score_pct_hundredths, 0)";
  const section = `CASE WHEN qa.max_score_hundredths > 0
      THEN min(10000, (20000 * max(coalesce(qa.score_hundredths, 0), 0) + qa.max_score_hundredths) / (2 * qa.max_score_hundredths)) ELSE 0 END`;
  return `DELETE FROM exam_figures WHERE tenant_id = ${t} AND exam_id = ${e};
INSERT INTO exam_figures (tenant_id, exam_id, user_id, actor_role, attempt_count, submitted_count, passed_count, pct_sum, pct_max, pct_min, ${columns})
  SELECT ea.tenant_id, ea.exam_id, ea.user_id, ea.actor_role, count(*), coalesce(sum(${submitted}), 0), coalesce(sum(${submitted} AND ea.passed = 1), 0),
    sum(CASE WHEN ${submitted} THEN ${pct} END), max(CASE WHEN ${submitted} THEN ${pct} END), min(CASE WHEN ${submitted} THEN ${pct} END), ${sums(pct, submitted)}
  FROM exam_attempts ea WHERE ea.tenant_id = ${t} AND ea.exam_id = ${e}
  GROUP BY ea.exam_id, ea.user_id, ea.actor_role;
DELETE FROM exam_section_figures WHERE tenant_id = ${t} AND exam_id = ${e};
INSERT INTO exam_section_figures (tenant_id, exam_id, user_id, actor_role, section_id, pct_sum)
  SELECT ea.tenant_id, ea.exam_id, ea.user_id, ea.actor_role, esa.exam_section_id, coalesce(sum(${section}), 0)
  FROM exam_attempts ea
    JOIN exam_section_attempts esa ON esa.tenant_id = ${t} AND esa.exam_attempt_id = ea.id
    LEFT JOIN quiz_attempts qa ON qa.tenant_id = ${t} AND qa.id = esa.quiz_attempt_id AND qa.exam_attempt_id = esa.exam_attempt_id
  WHERE ea.tenant_id = ${t} AND ea.exam_id = ${e} AND ${submitted}
  GROUP BY ea.exam_id, ea.user_id, ea.actor_role, esa.exam_section_id;
`;
}
