import { sql, type SQL } from "drizzle-orm";
import { activeEnrollmentIdSql, lessonVisibleToSql } from "./access";
import { earlierIncompleteSql } from "./locks";
import type { RefBlockType } from "./ref-blocks";
import { chainNotStartedSql } from "./windows";
import { inSchool, liveInSchool } from "../../core/db/conditions";

/**
 * How a student reaches an object named by reference blocks (a quiz, an assignment, an exam): a
 * live block of that type naming the object lies in a live lesson the student can see (lesson
 * access groups) of a live, published course where the student has an active enrollment. The
 * object row's own liveness is the caller's condition.
 *
 * Such a path is open when the block is not locked by the course order (`sequential_required`:
 * an earlier block the student sees is not complete). Reads also need the lesson's dates to have
 * opened (`refOpenLessonsSql`); starts and submissions read the windows themselves (the
 * first-attempt rule answers 403) and answer 409 `sequential_order_required` when every path the
 * student has is locked (docs/decisions/courses.md, "Reference blocks and the course order").
 *
 * `FROM … WHERE …` with alias `qa_l` for the lesson (`qa_b` the block, `qa_m` the module, `qa_c`
 * the course), so callers fold it into their own statement; `outer`, when given, is the first
 * relation of the FROM.
 */
export function refAccessPathSql(type: RefBlockType, tenantId: string | SQL, refId: SQL | string, studentId: SQL | string, outer?: SQL): SQL {
  // `outer` (a relation and its alias) leads the join, so `refId`/`studentId` may name its columns
  // and one statement resolves the paths of a whole set of (object, student) pairs.
  const lead = outer ? sql`${outer} CROSS JOIN ` : sql``;
  return sql`FROM ${lead}blocks qa_b
      JOIN lessons qa_l ON qa_l.id = qa_b.lesson_id AND ${liveInSchool("qa_l", tenantId)}
      JOIN course_modules qa_m ON qa_m.id = qa_b.module_id AND ${liveInSchool("qa_m", tenantId)}
      JOIN courses qa_c ON qa_c.id = qa_b.course_id AND ${liveInSchool("qa_c", tenantId)} AND qa_c.status = 'published'
    WHERE ${inSchool("qa_b", tenantId)} AND qa_b.ref_id = ${refId} AND qa_b.type = ${type} AND qa_b.deleted_at IS NULL
      AND ${activeEnrollmentIdSql(tenantId, sql`qa_c.id`, studentId)} IS NOT NULL
      AND ${lessonVisibleToSql(tenantId, sql`qa_l.id`, studentId)}`;
}

/** SQL true when the path's block `qa_b` is locked for the student by the course order. */
function refBlockLockedSql(tenantId: string | SQL, studentId: SQL | string): SQL {
  const visible = (lessonId: SQL) => lessonVisibleToSql(tenantId, lessonId, studentId);
  return sql`(qa_c.sequential_required = 1 AND ${earlierIncompleteSql(tenantId, studentId, visible, { block: sql`qa_b`, lesson: sql`qa_l`, module: sql`qa_m` })})`;
}

/**
 * A SELECT of the lessons through which the student reaches the object, one row per lesson with
 * the columns `id, module_id, course_id` (the shape of a `lessons` row the availability rule reads,
 * so `SELECT … ${lessonChainWindowsSql(ctx, sql`ql`)} … FROM (${refAccessLessonsSql(…)}) ql` gives
 * each lesson's windows) and `locked` (1 when every block of the lesson naming the object is
 * locked by the course order). No rows: the student does not reach the object through a course.
 */
export function refAccessLessonsSql(type: RefBlockType, tenantId: string | SQL, refId: SQL | string, studentId: SQL | string): SQL {
  return sql`SELECT qa_l.id AS id, qa_l.module_id AS module_id, qa_l.course_id AS course_id, min(${refBlockLockedSql(tenantId, studentId)}) AS locked
    ${refAccessPathSql(type, tenantId, refId, studentId)}
    GROUP BY qa_l.id`;
}

/**
 * The lessons through which the student may read the object now (columns `id, module_id,
 * course_id`): an open path (`locked` 0) in a lesson whose dates have opened (no node of its chain
 * still before a start it does not allow). A lesson whose end has passed still reads.
 */
export function refOpenLessonsSql(type: RefBlockType, tenantId: string, refId: SQL | string, studentId: SQL | string, now: number): SQL {
  return sql`SELECT ro.id, ro.module_id, ro.course_id FROM (${refAccessLessonsSql(type, tenantId, refId, studentId)}) ro
    WHERE ro.locked = 0 AND NOT ${chainNotStartedSql(tenantId, sql`ro`, studentId, now)}`;
}
