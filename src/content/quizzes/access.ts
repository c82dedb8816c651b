import { sql, type SQL } from "drizzle-orm";
import { refAccessLessonsSql, refAccessPathSql } from "../common/ref-access";

/**
 * Who reaches a quiz as a student (docs/decisions.md, Quizzes): a live `quiz_ref` block naming the
 * quiz lies in a live lesson the student can see (lesson access groups) of a live, published
 * course where the student has an active enrollment. Staff reach every quiz of the school and do
 * not go through these rules. The quiz row's own liveness is the caller's condition: these rules
 * speak only about the path from the student to the quiz id.
 *
 * Both forms below are plain SQL, so a read folds them into its own statement.
 */

/** SQL true when the student (id as value or SQL) may read, list and attempt the quiz (id as value or SQL). */
export function studentQuizAccessSql(tenantId: string, quizId: SQL | string, studentId: SQL | string): SQL {
  return sql`EXISTS (SELECT 1 ${refAccessPathSql("quiz_ref", tenantId, quizId, studentId)})`;
}

/**
 * A SELECT of the lessons through which the student reaches the quiz, one row per lesson with the
 * columns `id, module_id, course_id` (the shape of a `lessons` row the availability rule reads, so
 * `SELECT … ${lessonChainWindowsSql(ctx, sql`ql`)} … FROM (${quizAccessLessonsSql(…)}) ql` gives each
 * lesson's windows). No rows: the student does not reach the quiz.
 */
export function quizAccessLessonsSql(tenantId: string, quizId: SQL | string, studentId: SQL | string): SQL {
  return refAccessLessonsSql("quiz_ref", tenantId, quizId, studentId);
}
