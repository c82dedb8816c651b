import { sql, type SQL } from "drizzle-orm";
import type { RefBlockType } from "../courses/references";
import { activeEnrollmentIdSql, lessonVisibleToSql } from "./access";

/**
 * How a student reaches an object named by reference blocks (a quiz, an assignment, an exam): a
 * live block of that type naming the object lies in a live lesson the student can see (lesson
 * access groups) of a live, published course where the student has an active enrollment. The
 * object row's own liveness is the caller's condition.
 *
 * `FROM … WHERE …` with alias `qa_l` for the lesson (`qa_b` the block, `qa_m` the module, `qa_c`
 * the course), so callers fold it into their own statement.
 */
export function refAccessPathSql(type: RefBlockType, tenantId: string | SQL, refId: SQL | string, studentId: SQL | string): SQL {
  return sql`FROM blocks qa_b
      JOIN lessons qa_l ON qa_l.id = qa_b.lesson_id AND qa_l.tenant_id = ${tenantId} AND qa_l.deleted_at IS NULL
      JOIN course_modules qa_m ON qa_m.id = qa_b.module_id AND qa_m.tenant_id = ${tenantId} AND qa_m.deleted_at IS NULL
      JOIN courses qa_c ON qa_c.id = qa_b.course_id AND qa_c.tenant_id = ${tenantId} AND qa_c.deleted_at IS NULL AND qa_c.status = 'published'
    WHERE qa_b.tenant_id = ${tenantId} AND qa_b.ref_id = ${refId} AND qa_b.type = ${type} AND qa_b.deleted_at IS NULL
      AND ${activeEnrollmentIdSql(tenantId, sql`qa_c.id`, studentId)} IS NOT NULL
      AND ${lessonVisibleToSql(tenantId, sql`qa_l.id`, studentId)}`;
}

/**
 * A SELECT of the lessons through which the student reaches the object, one row per lesson with
 * the columns `id, module_id, course_id` (the shape of a `lessons` row the availability rule reads,
 * so `SELECT … ${lessonChainWindowsSql(ctx, sql`ql`)} … FROM (${refAccessLessonsSql(…)}) ql` gives
 * each lesson's windows). No rows: the student does not reach the object through a course.
 */
export function refAccessLessonsSql(type: RefBlockType, tenantId: string | SQL, refId: SQL | string, studentId: SQL | string): SQL {
  return sql`SELECT DISTINCT qa_l.id AS id, qa_l.module_id AS module_id, qa_l.course_id AS course_id ${refAccessPathSql(type, tenantId, refId, studentId)}`;
}
