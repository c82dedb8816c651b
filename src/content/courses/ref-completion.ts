import { sql, type SQL } from "drizzle-orm";
import { batchable, rowsOf, type BatchItem } from "../../core/db/batch";
import { sqlUuidv7 } from "../../core/db/sql-ids";
import type { SchoolCtx, SchoolActor } from "../../core/http/context";
import { BLOCK_FROM } from "./lesson-content";
import { publishedPathsHoldingSql } from "../common/path-unlock";
import { lessonVisibleToSql } from "../common/access";
import { contentContributor, type CompletableCourse, type ReferenceCompletion } from "../common/events";
import { earlierIncompleteSql } from "../common/locks";
import { recomputeProgress } from "../common/progress";
import { inSchool, liveInSchool } from "../../core/db/conditions";

/**
 * Completion of reference blocks by a passed attempt (docs/decisions/courses.md, "Completion, locks and resume"), as the
 * contributor `courses.reference-completion` of `attempt.settled` and `submission.submitted`
 * (docs/domain-events.md): a passed quiz attempt completes the student's `quiz_ref` blocks naming
 * the quiz (source `quiz`), a passed exam attempt their `exam_ref` blocks naming the exam (source
 * `exam`), a submitted assignment their `assignment_ref` blocks naming it (source `assignment`).
 * Only blocks of live nodes in a lesson the student sees of a published course they are actively
 * enrolled in, that the course order does not lock; idempotent; the enrollments are recounted and
 * the contributor emits `block.completed` with the courses the source's read batch found, whose
 * contributors add the course (and path) completion pushes and the completion awards.
 */

export type RefCtx = SchoolCtx<SchoolActor>;
export type RefCompletion = ReferenceCompletion;
export type CompletionCourses = CompletableCourse[];

/**
 * The blocks `t` (BLOCK_FROM) the student's passed attempt completes: not one the course order
 * still locks (an earlier visible block incomplete when the write runs; a block unlocked only by
 * a completion of the same write stays open for the next pass).
 */
function completableBlocksSql(ctx: RefCtx, ref: RefCompletion): SQL {
  const visible = (lessonId: SQL) => lessonVisibleToSql(ctx.tenantId, lessonId, ref.studentId);
  return sql`${inSchool("t", ctx.tenantId)} AND t.type = ${ref.blockType} AND t.ref_id = ${ref.refId} AND t.deleted_at IS NULL
    AND ${liveInSchool("c", ctx.tenantId)} AND c.status = 'published'
    AND ${visible(sql`tl.id`)}
    AND NOT (c.sequential_required = 1 AND ${earlierIncompleteSql(ctx.tenantId, ref.studentId, visible)})`;
}

/** The read of the courses a pass may complete, for the caller's read batch. */
export function completionPlan(ctx: RefCtx, ref: RefCompletion): { statement: BatchItem; read(result: unknown): CompletionCourses } {
  const statement = batchable(
    ctx,
    sql`SELECT sc.id AS course_id, se.id AS enrollment_id, ${publishedPathsHoldingSql(ctx.tenantId, sql`sc.id`)} AS path_ids
      FROM courses sc
        JOIN enrollments se ON ${inSchool("se", ctx.tenantId)} AND se.course_id = sc.id AND se.student_id = ${ref.studentId}
          AND se.removed_at IS NULL AND se.completed_at IS NULL
      WHERE ${liveInSchool("sc", ctx.tenantId)} AND sc.status = 'published'
        AND EXISTS (SELECT 1 FROM ${BLOCK_FROM} WHERE t.course_id = sc.id AND ${completableBlocksSql(ctx, ref)})
      ORDER BY sc.id`,
  );
  return {
    statement,
    read(result) {
      const rows = rowsOf<{ course_id: string; enrollment_id: string; path_ids: string }>(result);
      return rows.map((row) => ({ courseId: row.course_id, enrollmentId: row.enrollment_id, pathIds: JSON.parse(row.path_ids) as string[] }));
    },
  };
}

function completionsStatement(ctx: RefCtx, ref: RefCompletion, now: number): BatchItem {
  return batchable(
    ctx,
    sql`INSERT INTO block_completions (id, tenant_id, course_id, lesson_id, block_id, student_id, enrollment_id, source, completed_at)
      SELECT ${sqlUuidv7(now)}, t.tenant_id, t.course_id, t.lesson_id, t.id, ${ref.studentId}, e.id, ${ref.source}, ${now}
      FROM ${BLOCK_FROM}
        JOIN enrollments e ON ${inSchool("e", ctx.tenantId)} AND e.course_id = t.course_id AND e.student_id = ${ref.studentId} AND e.removed_at IS NULL
      WHERE ${completableBlocksSql(ctx, ref)} AND ${ref.passed}
      ON CONFLICT (block_id, student_id) DO NOTHING`,
  );
}

/** The completion and the recount of the courses holding the reference, for the write batch. */
function refCompletionStatements(ctx: RefCtx, ref: RefCompletion, now: number): BatchItem[] {
  const refCourses = sql`SELECT qb.course_id FROM blocks qb WHERE ${inSchool("qb", ctx.tenantId)} AND qb.type = ${ref.blockType} AND qb.ref_id = ${ref.refId} AND qb.deleted_at IS NULL`;
  return [completionsStatement(ctx, ref, now), recomputeProgress(ctx, { tenantId: ctx.tenantId, courseId: { in: refCourses }, studentId: ref.studentId })];
}

/**
 * The source's read (its read batch) finds the enrollments the pass may complete; the write is the
 * completion and the recount, then `block.completed` for what follows from them.
 */
export const referenceCompletion = contentContributor({
  name: "courses.reference-completion",
  handles: ["attempt.settled", "submission.submitted"],
  emits: ["block.completed"],
  prepare(ctx, event) {
    const plan = completionPlan(ctx, event.completes);
    return { statements: [plan.statement], read: (results) => plan.read(results[0]) };
  },
  async statements(ctx, event, courses, emit) {
    const ref = event.completes;
    emit({ type: "block.completed", source: ref.source, studentId: ref.studentId, now: event.now, lessons: "maybe", courses: courses ?? [] });
    return refCompletionStatements(ctx, ref, event.now);
  },
});
