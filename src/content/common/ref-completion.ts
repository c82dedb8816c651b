import { sql, type SQL } from "drizzle-orm";
import { batchable, rowsOf, type BatchItem } from "../../core/db/batch";
import { sqlUuidv7 } from "../../core/db/sql-ids";
import type { SchoolCtx, SchoolActor } from "../../core/http/context";
import { courseCompletionPushes } from "../courses/completion-service";
import { BLOCK_FROM } from "../courses/lesson-content";
import { publishedPathsHoldingSql } from "../paths/completion-pushes";
import { completionAwards } from "../rating/award";
import { lessonVisibleToSql } from "./access";
import { earlierIncompleteSql } from "./locks";
import { recomputeProgress } from "./progress";
import { inSchool, liveInSchool } from "../../core/db/conditions";

/**
 * Completion of reference blocks by a passed attempt (docs/decisions/courses.md, "Reference blocks and the course order"): a passed quiz
 * attempt completes the student's `quiz_ref` blocks naming the quiz (source `quiz`), a passed exam
 * attempt their `exam_ref` blocks naming the exam (source `exam`), a submitted assignment their
 * `assignment_ref` blocks naming it (source `assignment`). Only blocks of live nodes in a
 * lesson the student sees of a published course they are actively enrolled in, that the course
 * order does not lock; idempotent; the
 * enrollments are recounted and an enrollment this completes gets the course's (and its paths')
 * completion pushes, as a manual completion emits them; the lessons, modules and courses this
 * completes earn their points (src/content/rating/award.ts `completionAwards`). Use:
 *
 *   const plan = completionPlan(ctx, ref);                 // one read for the caller's READ batch
 *   …plan.read(result)…                                    // the courses a pass may complete
 *   writes.push(...(await refCompletionStatements(ctx, ref, courses, now)));
 *
 * The caller's read batch also prefetches the settings of COMPLETION_EVENTS and RATING_RULE_EVENTS,
 * or the pushes read them on their own.
 */

export type RefCtx = SchoolCtx<SchoolActor>;

export interface RefCompletion {
  blockType: "quiz_ref" | "exam_ref" | "assignment_ref";
  source: "quiz" | "exam" | "assignment";
  /** The quiz, exam or assignment id, or SQL naming it. */
  refId: string | SQL;
  studentId: string;
  /** SQL true, when the write batch runs, that the attempt passed (the submission was handed in) and its object is live. */
  passed: SQL;
}

/** Enrollments not completed yet in courses the reference's blocks may complete. */
export type CompletionCourses = { courseId: string; enrollmentId: string; pathIds: string[] }[];

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

async function completionPushes(ctx: RefCtx, ref: RefCompletion, courses: CompletionCourses, now: number): Promise<BatchItem[]> {
  const out: BatchItem[] = [];
  for (const course of courses) {
    // This batch completed a block of the course and its recount completed the enrollment.
    const when = sql`EXISTS (SELECT 1 FROM block_completions nc WHERE ${inSchool("nc", ctx.tenantId)} AND nc.student_id = ${ref.studentId}
        AND nc.course_id = ${course.courseId} AND nc.source = ${ref.source} AND nc.completed_at = ${now})
      AND EXISTS (SELECT 1 FROM enrollments ce WHERE ce.id = ${course.enrollmentId} AND ${inSchool("ce", ctx.tenantId)} AND ce.completed_at >= ${now})`;
    out.push(...(await courseCompletionPushes(ctx, { id: course.courseId, enrollmentId: course.enrollmentId, pathIds: course.pathIds, studentId: ref.studentId, when })));
  }
  return out;
}

/** The completion, the recount of the courses holding the reference, the completion pushes and the completion awards, for the write batch. */
export async function refCompletionStatements(ctx: RefCtx, ref: RefCompletion, courses: CompletionCourses, now: number): Promise<BatchItem[]> {
  const refCourses = sql`SELECT qb.course_id FROM blocks qb WHERE ${inSchool("qb", ctx.tenantId)} AND qb.type = ${ref.blockType} AND qb.ref_id = ${ref.refId} AND qb.deleted_at IS NULL`;
  return [
    completionsStatement(ctx, ref, now),
    recomputeProgress(ctx, { tenantId: ctx.tenantId, courseId: { in: refCourses }, studentId: ref.studentId }),
    ...(await completionPushes(ctx, ref, courses, now)),
    // After the recount: a course's award needs the enrollment it completed.
    ...(await completionAwards(ctx, { studentId: ref.studentId, now })),
  ];
}
