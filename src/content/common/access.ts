import { sql, type SQL } from "drizzle-orm";
import type { Actor, SchoolCtx } from "../../core/http/context";
import { liveInSchool, inSchool } from "../../core/db/conditions";
import { activeMemberSql } from "../../platform/schools/active-members";

/**
 * Who sees what of the course tree, each rule in one place so the groups, schedule and paths areas
 * extend it rather than repeat it:
 * - staff (admins, curators, the superadmin acting on the school) see every live course, module,
 *   lesson and block; students see published courses only (a draft is `*_not_found` to them);
 * - a student sees a lesson whose access-group list names a live group only as a member of one of
 *   those groups (an empty list, or one naming only deleted groups, is open to every enrolled
 *   student);
 * - the content of a course (full lesson and block reads, completion, resume) needs an active
 *   enrollment; the outline (course, module index, module and lesson lists) does not.
 */

export function isStaff(actor: Pick<Actor, "role">): boolean {
  return actor.role !== "student";
}

/** The condition on a `courses` alias that the caller may see the course at all. */
export function courseVisibleSql(ctx: Pick<SchoolCtx, "actor" | "tenantId">, course: SQL): SQL {
  const live = sql`${liveInSchool(course, ctx.tenantId)}`;
  return isStaff(ctx.actor) ? live : sql`${live} AND ${course}.status = 'published'`;
}

/**
 * The lesson (its id as SQL) is visible to the student: no live access group is set on it, or the
 * student is a member of one of them.
 */
export function lessonVisibleToSql(tenantId: string | SQL, lessonId: SQL, studentId: string | SQL): SQL {
  return sql`(NOT EXISTS (SELECT 1 FROM lesson_groups lg JOIN groups g ON g.id = lg.group_id AND ${liveInSchool("g", tenantId)}
                          WHERE ${inSchool("lg", tenantId)} AND lg.lesson_id = ${lessonId})
          OR EXISTS (SELECT 1 FROM lesson_groups lg JOIN groups g ON g.id = lg.group_id AND ${liveInSchool("g", tenantId)}
                       JOIN group_members gm ON gm.group_id = lg.group_id AND ${inSchool("gm", tenantId)} AND gm.user_id = ${studentId}
                     WHERE ${inSchool("lg", tenantId)} AND lg.lesson_id = ${lessonId}))`;
}

/** The caller sees the lesson: always for staff, through lesson access groups for a student. */
export function lessonVisibleSql(ctx: Pick<SchoolCtx, "actor" | "tenantId">, lessonId: SQL): SQL {
  return isStaff(ctx.actor) ? sql`1` : lessonVisibleToSql(ctx.tenantId, lessonId, ctx.actor.userId);
}

/** The id of the student's active enrollment in the course (SQL scalar, NULL when none). */
export function activeEnrollmentIdSql(tenantId: string | SQL, courseId: string | SQL, studentId: string | SQL): SQL {
  return sql`(SELECT e.id FROM enrollments e WHERE ${inSchool("e", tenantId)} AND e.course_id = ${courseId} AND e.student_id = ${studentId} AND e.removed_at IS NULL)`;
}

/** `u` (an alias of `users`) is an active student of the school: who rankings and analytics count. */
export function activeStudentSql(tenantId: string | SQL, u: SQL = sql`u`): SQL {
  return activeMemberSql(tenantId, u, "student");
}
