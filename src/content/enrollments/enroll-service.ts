import { sql, type SQL } from "drizzle-orm";
import { batchable, runBatch, rowsOf } from "../../core/db/batch";
import { classifyStudentIds, withOtherShardsWrongTenant } from "./student-ids";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { isUuid } from "../../core/lib/ids";
import { restrictedScope, scopeCondition } from "../../platform/schools/curator-scope";
import { dispatchQueued } from "../../platform/notifications/enqueue";
import { contentStatements } from "../common/events";
import { courseLockedSql } from "../common/path-unlock";
import { recomputeProgress } from "../common/progress";
import { enrollmentsErrors as e } from "./errors";
import { toEnrollment, type EnrollmentRow } from "./present";
import { BULK_ENROLL_CAP } from "./schemas";
import { addSources, openEnrollments, removeSources, settleRemovedAt, sourceKey } from "./sources";
import { inSchool, liveInSchool } from "../../core/db/conditions";
import { removalAudit } from "./audit";

/** The course is live and published in the school: open for enrollment. */
export function courseOpenSql(tenantId: string, courseId: string): SQL {
  return sql`EXISTS (SELECT 1 FROM courses c WHERE c.id = ${courseId} AND ${liveInSchool("c", tenantId)} AND c.status = 'published')`;
}

/**
 * SQL true while the course is locked for the calling student by learning paths (locked in every
 * published path that holds it: the learning paths' unlock rule). It is read to answer 409
 * `course_locked` and repeated as a condition of the enrollment's write, so a lock that appears in
 * between still holds.
 */
export function selfEnrollmentLock(ctx: SchoolCtx, courseId: string): SQL | null {
  return courseLockedSql(ctx.tenantId, courseId, ctx.actor.userId);
}

/**
 * POST /courses/:id/enroll: the student enrolls in a published course of the school. One batch
 * reads the state before, opens (creates or restores) the enrollment, makes sure it has the
 * `direct` source, recomputes its progress (so `total_blocks` is right from the start) and reads it
 * back. 201 for a new enrollment, 200 when it existed (active, or restored with its progress).
 * A student's own enrollment sends no push; it announces `enrollment.created` (`self`) before the
 * writes, naming the student when the course is open and they have no active enrollment yet.
 */
export async function selfEnroll(ctx: SchoolCtx, input: { courseId: string }) {
  const { tenantId } = ctx;
  const { courseId } = input;
  const studentId = ctx.actor.userId;
  const now = ctx.clock.now();
  const lock = selfEnrollmentLock(ctx, courseId);
  const open = lock ? sql`${courseOpenSql(tenantId, courseId)} AND NOT (${lock})` : courseOpenSql(tenantId, courseId);
  const me = sql`SELECT ${studentId}`;
  const scope = { tenantId, courseId, now };
  const enrollmentSelect = sql`SELECT e.id, e.student_id, e.course_id, e.enrolled_at, e.enrolled_by, e.last_accessed_block_id
    FROM enrollments e WHERE ${inSchool("e", tenantId)} AND e.course_id = ${courseId} AND e.student_id = ${studentId}`;
  const announced = await contentStatements(ctx, {
    type: "enrollment.created",
    via: "self",
    courseId,
    students: sql`${me} WHERE NOT EXISTS (${enrollmentSelect} AND e.removed_at IS NULL)`,
    now,
    when: open,
  });
  const results = await runBatch(ctx, [
    batchable(
      ctx,
      sql`SELECT ${courseOpenSql(tenantId, courseId)} AS open, ${lock ?? sql`0`} AS locked,
        EXISTS (SELECT 1 FROM enrollments e WHERE ${inSchool("e", tenantId)} AND e.course_id = ${courseId} AND e.student_id = ${studentId}) AS existed`,
    ),
    ...announced,
    openEnrollments(ctx, { ...scope, students: me, enrolledBy: null, when: open }),
    addSources(ctx, { ...scope, students: me, source: { kind: "direct" }, createdBy: null, when: open }),
    recomputeProgress(ctx, { tenantId, courseId, studentId }),
    batchable(ctx, sql`${enrollmentSelect} AND e.removed_at IS NULL`),
  ]);
  const before = rowsOf<{ open: number; locked: number; existed: number }>(results[0])[0]!;
  if (!before.open) throw new ApiError(e.COURSE_NOT_FOUND);
  if (before.locked) throw new ApiError(e.COURSE_LOCKED);
  const row = rowsOf<EnrollmentRow>(results[results.length - 1])[0];
  if (!row) throw new Error("an open course left the student without an active enrollment");
  return { enrollment: toEnrollment(row), created: !before.existed };
}

type SkipReason = "already_enrolled" | "user_not_found" | "wrong_tenant" | "course_not_published" | "not_in_scope";

/**
 * POST /courses/:id/enroll/bulk: direct access for up to 500 students, always 200 with what was
 * enrolled and why the rest was skipped. Set-based, whatever the number of ids: one batch of six
 * statements (the course, one classification SELECT over the ids, the enrollments opened, their
 * `direct` sources, their progress and the `course.enrolled` pushes), plus the push settings read.
 * A restored enrollment counts as new access. The classification runs first in the same atomic
 * batch as the writes, so it describes exactly the state they applied to.
 */
export async function bulkEnroll(ctx: SchoolCtx, input: { courseId: string; studentIds: readonly string[] }) {
  const { tenantId, actor } = ctx;
  const { courseId } = input;
  if (input.studentIds.length > BULK_ENROLL_CAP) throw new ApiError(e.STUDENT_IDS_CAP_EXCEEDED);
  const bad = input.studentIds.findIndex((id) => !isUuid(id));
  if (bad >= 0) throw new ApiError(e.INVALID_BODY, { message: `student_ids[${bad}] must be a UUID.` });
  const ids = [...new Set(input.studentIds.map((id) => id.toLowerCase()))];
  const json = JSON.stringify(ids);
  const now = ctx.clock.now();
  const scope = restrictedScope(ctx);
  const requested = sql`SELECT value FROM json_each(${json})`;
  const inScope = scopeCondition(sql`value`, scope);
  const allowed = inScope ? sql`${requested} WHERE ${inScope}` : requested;
  const open = courseOpenSql(tenantId, courseId);
  const range = { tenantId, courseId, now };
  // The enrollments this batch opened: their access starts now and the caller gave it.
  const opened = sql`SELECT e.student_id FROM enrollments e
    WHERE ${inSchool("e", tenantId)} AND e.course_id = ${courseId} AND e.removed_at IS NULL
      AND e.enrolled_at = ${now} AND e.enrolled_by = ${actor.userId} AND e.student_id IN (${requested})`;
  const announced = await contentStatements(ctx, { type: "enrollment.created", courseId, students: opened, via: "direct", now });
  const results = await runBatch(ctx, [
    batchable(ctx, sql`SELECT c.status FROM courses c WHERE c.id = ${courseId} AND ${liveInSchool("c", tenantId)}`),
    batchable(ctx, classification(ctx, courseId, json)),
    openEnrollments(ctx, { ...range, students: allowed, enrolledBy: actor.userId, when: open }),
    addSources(ctx, { ...range, students: allowed, source: { kind: "direct" }, createdBy: actor.userId, onlyNew: true, when: open }),
    recomputeProgress(ctx, { tenantId, courseId, studentIds: opened }),
    ...announced,
  ]);
  const course = rowsOf<{ status: string }>(results[0])[0];
  if (!course) throw new ApiError(e.COURSE_NOT_FOUND);
  await dispatchQueued(ctx);
  const published = course.status === "published";
  const enrolled: string[] = [];
  const skipped: { student_id: string; reason: SkipReason }[] = [];
  for (const row of await withOtherShardsWrongTenant(ctx, rowsOf<{ student_id: string; reason: SkipReason | null }>(results[1]))) {
    const reason = published ? row.reason : "course_not_published";
    if (reason) skipped.push({ student_id: row.student_id, reason });
    else enrolled.push(row.student_id);
  }
  return { enrolled, skipped, enrolled_count: enrolled.length, skipped_count: skipped.length };
}

/**
 * Why each requested id would be skipped (NULL: it gets new access), in request order. Not a live
 * user of the school: `wrong_tenant` when it is a live user of another school, else
 * `user_not_found`; staff of the school are no students, so `user_not_found` too. A restricted
 * curator's non-own student is `not_in_scope` before anything about their enrollments is said.
 */
function classification(ctx: SchoolCtx, courseId: string, json: string): SQL {
  const inScope = scopeCondition(sql`u.id`, restrictedScope(ctx));
  return classifyStudentIds(ctx, json, [
    ...(inScope ? [sql`WHEN NOT (${inScope}) THEN 'not_in_scope'`] : []),
    sql`WHEN EXISTS (SELECT 1 FROM enrollments e WHERE ${inSchool("e", ctx.tenantId)} AND e.course_id = ${courseId} AND e.student_id = u.id AND e.removed_at IS NULL)
          THEN 'already_enrolled'`,
  ]);
}

/**
 * DELETE /courses/:id/enrollments/:student_id: takes away the student's direct (and legacy)
 * access. The enrollment closes only when no source is left, and only then does the student get
 * `course.unenrolled` (its version: the `removed_at` the batch stored). An enrollment held only by
 * groups is 409: its access is managed through the groups. One batch: the state before, the
 * sources removed, the enrollment settled and the push.
 */
export async function removeEnrollment(ctx: SchoolCtx, input: { courseId: string; studentId: string }) {
  if (!isUuid(input.studentId)) throw new ApiError(e.INVALID_STUDENT_ID);
  const { tenantId } = ctx;
  const { courseId } = input;
  const studentId = input.studentId.toLowerCase();
  const now = ctx.clock.now();
  const inScope = scopeCondition(sql`e.student_id`, restrictedScope(ctx));
  const target = sql`${inSchool("e", tenantId)} AND e.course_id = ${courseId} AND e.student_id = ${studentId} AND e.removed_at IS NULL
    AND EXISTS (SELECT 1 FROM courses c WHERE c.id = e.course_id AND ${liveInSchool("c", tenantId)})
    ${inScope ? sql`AND ${inScope}` : sql``}`;
  const removable = [sourceKey({ kind: "direct" }), sourceKey({ kind: "legacy" })];
  const student = sql`SELECT ${studentId}`;
  const announced = await contentStatements(ctx, {
    type: "enrollment.removed",
    courseId,
    students: student,
    via: "direct",
    now,
    when: sql`EXISTS (SELECT 1 FROM enrollments e WHERE ${inSchool("e", tenantId)} AND e.course_id = ${courseId} AND e.student_id = ${studentId} AND e.removed_at = ${now})`,
  });
  const results = await runBatch(ctx, [
    batchable(
      ctx,
      sql`SELECT
          (SELECT count(*) FROM enrollment_sources s WHERE s.enrollment_id = e.id AND s.source_key IN (SELECT value FROM json_each(${JSON.stringify(removable)}))) AS removable,
          (SELECT count(*) FROM enrollment_sources s WHERE s.enrollment_id = e.id) AS sources
        FROM enrollments e WHERE ${target}`,
    ),
    removalAudit(ctx, { target, removable }),
    removeSources(ctx, { tenantId, courseId, keys: removable, students: student, when: sql`EXISTS (SELECT 1 FROM enrollments e WHERE ${target})` }),
    settleRemovedAt(ctx, { tenantId, courseId, now, students: student }),
    ...announced,
  ]);
  const before = rowsOf<{ removable: number; sources: number }>(results[0])[0];
  if (!before) throw new ApiError(e.ENROLLMENT_NOT_FOUND);
  if (before.removable === 0 && before.sources > 0) throw new ApiError(e.ENROLLMENT_MANAGED_BY_GROUP);
  await dispatchQueued(ctx);
}
