import { sql, type SQL } from "drizzle-orm";
import { batchable, type BatchItem } from "../../core/db/batch";
import type { ServiceContext } from "../../core/http/context";
import { courseMatch, type CourseRef } from "./course-set";
import { inSchool, liveInSchool } from "../../core/db/conditions";

/**
 * The student's latest block completion in the enrollment's (alias `e`) course, from the
 * completions themselves (completions of deleted blocks too): one seek of the index that ends with
 * `completed_at`.
 */
export function latestCompletionSql(tenantId: string, e: SQL): SQL {
  return sql`(SELECT MAX(bc.completed_at) FROM block_completions bc
    WHERE ${inSchool("bc", tenantId)} AND bc.student_id = ${e}.student_id AND bc.course_id = ${e}.course_id)`;
}

/**
 * Progress of enrollments (docs/decisions/courses.md, "Data"): one UPDATE recounts, for every
 * enrollment it names, the student's completions of the course's live blocks and the course's live
 * block count, and sets `completed_at` the first time the two meet. It runs in the batch of every
 * completion (one enrollment) and of every structural change of a course (all its enrollments), so
 * progress is never recounted row by row in code. It also sets `last_completion_at`, the latest
 * completion the enrollment status reads: completions are only ever added by a batch that then
 * recounts the enrollment (and removed only with the enrollment itself), so the stored value stays
 * exact without a trigger (docs/decisions/heavy-reads-enrollments.md, "Enrollment lists").
 */
export function recomputeProgress(
  ctx: ServiceContext,
  input: {
    tenantId: string;
    courseId: CourseRef;
    studentId?: string | SQL;
    /** A SELECT of student ids: the enrollments of a bulk action, in the same one statement. */
    studentIds?: SQL;
  },
): BatchItem {
  const { tenantId, courseId } = input;
  const total = sql`(SELECT count(*) FROM blocks b WHERE ${inSchool("b", tenantId)} AND b.course_id = enrollments.course_id AND b.deleted_at IS NULL)`;
  const done = sql`(SELECT count(*) FROM block_completions bc
      JOIN blocks b ON b.id = bc.block_id AND ${liveInSchool("b", tenantId)}
    WHERE ${inSchool("bc", tenantId)} AND bc.student_id = enrollments.student_id AND bc.course_id = enrollments.course_id)`;
  const now = ctx.clock.now();
  return batchable(
    ctx,
    sql`UPDATE enrollments
      SET blocks_completed = ${done},
          total_blocks = ${total},
          completed_at = COALESCE(completed_at, CASE WHEN ${total} > 0 AND ${done} >= ${total} THEN ${now} END),
          last_completion_at = ${latestCompletionSql(tenantId, sql`enrollments`)},
          updated_at = ${now}
      WHERE ${inSchool(tenantId)} AND ${courseMatch(sql`course_id`, courseId)}
        ${input.studentId === undefined ? sql`` : sql`AND student_id = ${input.studentId}`}
        ${input.studentIds === undefined ? sql`` : sql`AND student_id IN (${input.studentIds})`}`,
  );
}

/** Every enrollment of the courses a structural change touched (ids as SQL or values). */
export function recomputeCourseProgress(ctx: ServiceContext, tenantId: string, courseId: string | SQL): BatchItem {
  return recomputeProgress(ctx, { tenantId, courseId });
}

/**
 * A percentage as the contract writes it: a decimal string with two decimals (`"66.67"`), rounded
 * half up, or null when there is nothing to measure (a course without blocks). Here, below both
 * the course tree and enrollments, which show it (docs/decisions/content-layers.md, "Progress percentage").
 */
export function pct(done: number, total: number): string | null {
  if (total <= 0) return null;
  // Integer numerator: no binary-fraction drift before the rounding.
  return (Math.round((Math.min(done, total) * 10_000) / total) / 100).toFixed(2);
}
