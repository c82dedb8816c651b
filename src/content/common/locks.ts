import { sql, type SQL } from "drizzle-orm";
import { inSchool } from "../../core/db/conditions";

/**
 * `sequential_required`: a student may open or complete a block only when every earlier block of
 * the course (module, lesson, block order) that the student can see is complete. Blocks in lessons
 * the student cannot see (lesson access groups) do not count; date-closed ones do (the schedule
 * area closes nodes, it does not hide them). Staff bypass: callers pass no student.
 */

/** A block in course order, as the module index and the lesson reads load them. */
export interface OrderedBlock {
  id: string;
  /** The student can see the block's lesson. */
  visible: boolean;
}

/** The ids of the blocks locked for the student, given every block of the course in course order. */
export function sequentialLocks(blocksInCourseOrder: readonly OrderedBlock[], completed: ReadonlySet<string>): Set<string> {
  const locked = new Set<string>();
  let open = true;
  for (const block of blocksInCourseOrder) {
    if (!block.visible) continue;
    if (!open) locked.add(block.id);
    if (!completed.has(block.id)) open = false;
  }
  return locked;
}

/** The course order of blocks as an ORDER BY over aliases `m` (module), `l` (lesson), `b` (block). */
export const COURSE_ORDER = sql`m.position, m.id, l.position, l.id, b.position, b.id`;

/** Aliases of a block row and its lesson and module, for `earlierIncompleteSql`. */
export interface BlockAliases {
  block: SQL;
  lesson: SQL;
  module: SQL;
}

const BLOCK_ALIASES: BlockAliases = { block: sql`t`, lesson: sql`tl`, module: sql`tm` };

/**
 * SQL: the block (alias `t` joined with its lesson `tl` and module `tm`, or the aliases given) has
 * an earlier visible block in its course that the student has not completed, i.e. it is locked
 * for the student. `visible` builds the lesson-visibility condition for an earlier lesson id.
 */
export function earlierIncompleteSql(tenantId: string | SQL, studentId: string | SQL, visible: (lessonId: SQL) => SQL, target: BlockAliases = BLOCK_ALIASES): SQL {
  const { block: t, lesson: tl, module: tm } = target;
  return sql`EXISTS (SELECT 1 FROM blocks b
      JOIN lessons l ON l.id = b.lesson_id AND l.deleted_at IS NULL
      JOIN course_modules m ON m.id = b.module_id AND m.deleted_at IS NULL
    WHERE ${inSchool("b", tenantId)} AND b.course_id = ${t}.course_id AND b.deleted_at IS NULL
      AND (m.position, m.id, l.position, l.id, b.position, b.id) < (${tm}.position, ${tm}.id, ${tl}.position, ${tl}.id, ${t}.position, ${t}.id)
      AND ${visible(sql`l.id`)}
      AND NOT EXISTS (SELECT 1 FROM block_completions bc WHERE ${inSchool("bc", tenantId)} AND bc.block_id = b.id AND bc.student_id = ${studentId}))`;
}
