import { sql, type SQL } from "drizzle-orm";
import { batchable, type BatchItem } from "../../core/db/batch";
import { sqlUuidv7 } from "../../core/db/sql-ids";
import type { ServiceContext } from "../../core/http/context";
import { courseMatch, isCourseSet, type CourseSet } from "../common/course-set";
import { inSchool } from "../../core/db/conditions";

/**
 * Access to a course, as statements for the caller's batch (docs/decisions/enrollments.md, "Enrollments"):
 * every access is a row in `enrollment_sources` (`direct`, `legacy`, `group:<id>`), and an
 * enrollment is active exactly while `removed_at` is null, which is true exactly while it has at
 * least one source. A write that grants access opens the enrollments (`openEnrollments`) and adds
 * their sources (`addSources`) in one batch; a write that takes access away removes sources
 * (`removeSources`) and then closes the enrollments left without one (`settleRemovedAt`). Each
 * statement works on a set of students given as SQL (a SELECT of user ids), so a request for 500
 * students, or a group of any size, costs the same few statements as one student.
 */

export type AccessSource = { kind: "direct" } | { kind: "legacy" } | { kind: "group"; groupId: string };

/** The source's key: one source of each kind per enrollment (`group:<id>` per group). */
export function sourceKey(source: AccessSource): string {
  return source.kind === "group" ? `group:${source.groupId}` : source.kind;
}

/**
 * What every statement below needs: the course (of the school), or a set of its courses (a group's
 * courses, for a membership change), and the batch's one timestamp.
 */
interface CourseScope {
  tenantId: string;
  courseId: string | CourseSet;
  now: number;
}

const extra = (when: SQL | undefined) => (when ? sql`AND (${when})` : sql``);

/**
 * Creates the enrollment of each listed live student of the school who has none in the course, and
 * restores (clears `removed_at`, keeps the progress) each one that was removed; an active
 * enrollment is left as it is. `enrolled_at` and `enrolled_by` describe the access that starts now
 * (null `enrolled_by`: the student enrolled themselves). `when` must hold for anything to happen
 * (the course is open for enrollment). The enrollments it opens have no source yet: `addSources`
 * must follow in the same batch.
 */
export function openEnrollments(
  ctx: ServiceContext,
  scope: CourseScope & { students: SQL; enrolledBy: string | null; when?: SQL },
): BatchItem {
  const { tenantId, courseId, now } = scope;
  // A set of courses makes one row per student and course.
  const courses = isCourseSet(courseId) ? sql`JOIN courses c ON ${inSchool("c", tenantId)} AND c.id IN (${courseId.in})` : sql``;
  return batchable(
    ctx,
    sql`INSERT INTO enrollments (id, tenant_id, course_id, student_id, enrolled_at, enrolled_by, removed_at, blocks_completed, total_blocks, created_at, updated_at)
      SELECT ${sqlUuidv7(now)}, ${tenantId}, ${isCourseSet(courseId) ? sql`c.id` : courseId}, u.id, ${now}, ${scope.enrolledBy}, NULL, 0, 0, ${now}, ${now}
      FROM users u ${courses}
      WHERE ${inSchool("u", tenantId)} AND u.role = 'student' AND u.deleted_at IS NULL AND u.id IN (${scope.students}) ${extra(scope.when)}
      ON CONFLICT (course_id, student_id) DO UPDATE
        SET removed_at = NULL, enrolled_at = excluded.enrolled_at, enrolled_by = excluded.enrolled_by, updated_at = excluded.updated_at
        WHERE enrollments.removed_at IS NOT NULL`,
  );
}

/**
 * Adds the source to the active enrollment of each listed student in the course (an existing
 * source of the same key stays as it is). `onlyNew` limits it to enrollments without any source:
 * inside a batch those are exactly the ones `openEnrollments` has just opened.
 */
export function addSources(
  ctx: ServiceContext,
  scope: CourseScope & { students: SQL; source: AccessSource; createdBy: string | null; onlyNew?: boolean; when?: SQL },
): BatchItem {
  const { tenantId, courseId, now, source } = scope;
  const groupId = source.kind === "group" ? source.groupId : null;
  return batchable(
    ctx,
    sql`INSERT INTO enrollment_sources (tenant_id, enrollment_id, course_id, student_id, kind, group_id, source_key, created_by, created_at)
      SELECT e.tenant_id, e.id, e.course_id, e.student_id, ${source.kind}, ${groupId}, ${sourceKey(source)}, ${scope.createdBy}, ${now}
      FROM enrollments e
      WHERE ${inSchool("e", tenantId)} AND ${courseMatch(sql`e.course_id`, courseId)} AND e.removed_at IS NULL AND e.student_id IN (${scope.students})
        ${scope.onlyNew ? sql`AND NOT EXISTS (SELECT 1 FROM enrollment_sources s WHERE s.enrollment_id = e.id)` : sql``}
        ${extra(scope.when)}
      ON CONFLICT (enrollment_id, source_key) DO NOTHING`,
  );
}

/** Removes the sources with these keys from the course's enrollments (of the listed students, if any). */
export function removeSources(ctx: ServiceContext, scope: Omit<CourseScope, "now"> & { keys: readonly string[]; students?: SQL; when?: SQL }): BatchItem {
  const { tenantId, courseId } = scope;
  return batchable(
    ctx,
    sql`DELETE FROM enrollment_sources
      WHERE ${inSchool(tenantId)} AND ${courseMatch(sql`course_id`, courseId)}
        AND source_key IN (SELECT value FROM json_each(${JSON.stringify(scope.keys)}))
        ${scope.students ? sql`AND student_id IN (${scope.students})` : sql``}
        ${extra(scope.when)}`,
  );
}

/**
 * Closes every active enrollment of the course (of the listed students, if any) that has no source
 * left: `removed_at` (and `updated_at`) become the batch's timestamp, which the `course.unenrolled`
 * push uses as its version. Progress stays on the row for a later restore.
 */
export function settleRemovedAt(ctx: ServiceContext, scope: CourseScope & { students?: SQL }): BatchItem {
  const { tenantId, courseId, now } = scope;
  return batchable(
    ctx,
    sql`UPDATE enrollments SET removed_at = ${now}, updated_at = ${now}
      WHERE ${inSchool(tenantId)} AND ${courseMatch(sql`course_id`, courseId)} AND removed_at IS NULL
        ${scope.students ? sql`AND student_id IN (${scope.students})` : sql``}
        AND NOT EXISTS (SELECT 1 FROM enrollment_sources s WHERE s.enrollment_id = enrollments.id)`,
  );
}
