import { sql, type SQL } from "drizzle-orm";
import { activeEnrollmentIdSql, lessonVisibleToSql } from "../common/access";

/**
 * Who reaches a quiz as a student (docs/decisions.md, Quizzes): a live `quiz_ref` block naming the
 * quiz lies in a live lesson the student can see (lesson access groups) of a live, published
 * course where the student has an active enrollment. Staff reach every quiz of the school and do
 * not go through these rules. The quiz row's own liveness is the caller's condition: these rules
 * speak only about the path from the student to the quiz id.
 *
 * Both forms below are plain SQL, so a read folds them into its own statement.
 */

/**
 * `FROM … WHERE …` of the lessons through which the student reaches the quiz: alias `qa_l` is the
 * lesson (`qa_b` the block, `qa_m` the module, `qa_c` the course).
 */
function accessPathSql(tenantId: string, quizId: SQL | string, studentId: SQL | string): SQL {
  return sql`FROM blocks qa_b
      JOIN lessons qa_l ON qa_l.id = qa_b.lesson_id AND qa_l.tenant_id = ${tenantId} AND qa_l.deleted_at IS NULL
      JOIN course_modules qa_m ON qa_m.id = qa_b.module_id AND qa_m.tenant_id = ${tenantId} AND qa_m.deleted_at IS NULL
      JOIN courses qa_c ON qa_c.id = qa_b.course_id AND qa_c.tenant_id = ${tenantId} AND qa_c.deleted_at IS NULL AND qa_c.status = 'published'
    WHERE qa_b.tenant_id = ${tenantId} AND qa_b.ref_id = ${quizId} AND qa_b.type = 'quiz_ref' AND qa_b.deleted_at IS NULL
      AND ${activeEnrollmentIdSql(tenantId, sql`qa_c.id`, studentId)} IS NOT NULL
      AND ${lessonVisibleToSql(tenantId, sql`qa_l.id`, studentId)}`;
}

/** SQL true when the student (id as value or SQL) may read, list and attempt the quiz (id as value or SQL). */
export function studentQuizAccessSql(tenantId: string, quizId: SQL | string, studentId: SQL | string): SQL {
  return sql`EXISTS (SELECT 1 ${accessPathSql(tenantId, quizId, studentId)})`;
}

/**
 * A SELECT of the lessons through which the student reaches the quiz, one row per lesson with the
 * columns `id, module_id, course_id` (the shape of a `lessons` row the availability rule reads, so
 * `SELECT … ${lessonChainWindowsSql(ctx, sql`ql`)} … FROM (${quizAccessLessonsSql(…)}) ql` gives each
 * lesson's windows). No rows: the student does not reach the quiz.
 */
export function quizAccessLessonsSql(tenantId: string, quizId: SQL | string, studentId: SQL | string): SQL {
  return sql`SELECT DISTINCT qa_l.id AS id, qa_l.module_id AS module_id, qa_l.course_id AS course_id ${accessPathSql(tenantId, quizId, studentId)}`;
}
