import { sql, type SQL } from "drizzle-orm";
import { refAccessLessonsSql, refOpenLessonsSql } from "../common/ref-access";

/**
 * Who reaches a quiz as a student (docs/decisions/quizzes.md, "Quizzes and questions"): a live `quiz_ref` block naming the
 * quiz lies in a live lesson the student can see (lesson access groups) of a live, published
 * course where the student has an active enrollment. The student reads and lists it through such
 * a block that the course order does not lock, in a lesson whose dates have opened; an exam's
 * section gives no read of its own (its questions come through the exam attempt's `go`). Staff
 * reach every quiz of the school and do not go through these rules. The quiz row's own liveness is
 * the caller's condition: these rules speak only about the path from the student to the quiz id.
 *
 * The forms below are plain SQL, so a read folds them into its own statement.
 */

/** SQL true when the student (id as value or SQL) may read and list the quiz (id as value or SQL) at `now`. */
export function studentQuizAccessSql(tenantId: string, quizId: SQL | string, studentId: SQL | string, now: number): SQL {
  return sql`EXISTS (SELECT 1 FROM (${refOpenLessonsSql("quiz_ref", tenantId, quizId, studentId, now)}) qo)`;
}

/** The lessons through which the student reads the quiz at `now` (`id, module_id, course_id`). */
export function quizOpenLessonsSql(tenantId: string, quizId: SQL | string, studentId: SQL | string, now: number): SQL {
  return refOpenLessonsSql("quiz_ref", tenantId, quizId, studentId, now);
}

/**
 * A SELECT of the lessons through which the student reaches the quiz, one row per lesson with the
 * columns `id, module_id, course_id, locked` (the shape of a `lessons` row the availability rule
 * reads, so `SELECT … ${lessonChainWindowsSql(ctx, sql`ql`)} … FROM (${quizAccessLessonsSql(…)}) ql`
 * gives each lesson's windows; `locked` 1 when the course order locks every block of the lesson
 * naming the quiz). No rows: the student does not reach the quiz.
 */
export function quizAccessLessonsSql(tenantId: string, quizId: SQL | string, studentId: SQL | string): SQL {
  return refAccessLessonsSql("quiz_ref", tenantId, quizId, studentId);
}
