import { sql, type SQL } from "drizzle-orm";
import { DAY_MS } from "../../core/lib/clock";
import { liveWindowsSql } from "../common/windows";
import { inSchool, liveInSchool } from "../../core/db/conditions";
import { latestCompletionSql } from "../common/progress";

/**
 * The curator's view of an enrollment (docs/decisions/enrollments.md, "Enrollments"): `done` once the course is
 * completed; `notstarted` while the student has neither opened the course nor completed a block of
 * it; `risk` when started, not done, and idle for `RISK_IDLE_DAYS`, or (started or not) past the
 * student's effective course end (the schedule area's rule); `active` otherwise. One function, so
 * the list, its counts and the CSV export keep agreeing.
 */
export const ENROLLMENT_STATUSES = ["active", "risk", "done", "notstarted"] as const;
export type EnrollmentStatus = (typeof ENROLLMENT_STATUSES)[number];

export const RISK_IDLE_DAYS = 7;

function laterOf(accessedAt: SQL, completedAt: SQL): SQL {
  return sql`NULLIF(MAX(COALESCE(${accessedAt}, 0), COALESCE(${completedAt}, 0)), 0)`;
}

/**
 * The enrollment's (alias `e`) latest activity in ms, or NULL: its last course access or its
 * latest block completion in the course, whichever is later, the completion read from the
 * completions (a seek per row).
 */
export function activitySql(tenantId: string, e: SQL = sql`e`): SQL {
  return laterOf(sql`${e}.last_accessed_at`, latestCompletionSql(tenantId, e));
}

/**
 * The same activity from the enrollment's own columns: `last_completion_at` is the stored latest
 * completion, which every completing batch's recount sets (`recomputeProgress`), so a list
 * measures its rows without reading completions (docs/decisions/heavy-reads-enrollments.md, "Enrollment lists").
 */
export function storedActivitySql(e: SQL = sql`e`): SQL {
  return laterOf(sql`${e}.last_accessed_at`, sql`${e}.last_completion_at`);
}

/**
 * The status over a row that has `completed_at` and `activity` (from `activitySql` or
 * `storedActivitySql`) as columns; `courseEnded` says the student's effective course end has
 * passed (`courseEndedSql`), read only for a row not done.
 */
export function statusSql(now: number, courseEnded: SQL): SQL {
  return sql`CASE
    WHEN completed_at IS NOT NULL THEN 'done'
    WHEN ${courseEnded} THEN 'risk'
    WHEN activity IS NULL THEN 'notstarted'
    WHEN activity < ${idleSince(now)} THEN 'risk'
    ELSE 'active' END`;
}

/** The instant before which a started enrollment's last activity makes it idle (`risk`). */
function idleSince(now: number): number {
  return now - RISK_IDLE_DAYS * DAY_MS;
}

/**
 * The status buckets as conditions on a row (alias `row`: `completed_at` and the stored activity
 * columns) of a course none of whose course windows has ended (`anyCourseWindowEndedSql` false):
 * `statusSql` without its course-end arm. The list's counts count each bucket as a range of
 * `enrollments_tenant_course_counts` (docs/decisions/heavy-reads-enrollments.md, "Enrollment
 * counts without a status per row"). Must read as `statusSql` does.
 */
export function runningBucketsSql(now: number, row: SQL): Record<EnrollmentStatus, SQL> {
  const activity = storedActivitySql(row);
  const idle = idleSince(now);
  return {
    done: sql`${row}.completed_at IS NOT NULL`,
    notstarted: sql`${row}.completed_at IS NULL AND ${activity} IS NULL`,
    risk: sql`${row}.completed_at IS NULL AND ${activity} < ${idle}`,
    active: sql`${row}.completed_at IS NULL AND ${activity} >= ${idle}`,
  };
}

/**
 * The student's effective course end in `courseId` (epoch ms, NULL when none): the schedule rule
 * (`effectiveWindowsSql`) for the course node alone, with the course's windows read once per
 * statement instead of once per row. Uncorrelated, `ce_w` (the course's live windows) and `ce_k`
 * (its live group grids, each with its own course window) are materialized once; a row then costs
 * one membership seek per group grid. Per row the rule re-read the course's windows and the
 * student's grids: 48 ms for the counts of a course of 5,000 with one window
 * (docs/decisions/heavy-reads-enrollments.md, "Enrollment status: the course end once per statement").
 * - No group grid of the student: the default grid's course window (`grid_key` ''), if any.
 * - Otherwise the node has a window only when every grid of the student has one; its end is the
 *   latest, and no end bound wins (NULL). A grid without a course window has no end either, so
 *   one count of ends says both.
 */
export function courseEndSql(tenantId: string, courseId: string, studentId: SQL): SQL<number | null> {
  return sql<number | null>`(WITH ce_w AS MATERIALIZED (SELECT w.grid_key, w.node_id, w.ends_at FROM ${liveWindowsSql(tenantId)} w WHERE w.course_id = ${courseId}),
      ce_k AS MATERIALIZED (SELECT k.grid_key, cw.ends_at FROM
          (SELECT DISTINCT w.grid_key FROM ce_w w JOIN groups g ON g.id = w.grid_key AND ${liveInSchool("g", tenantId)} WHERE w.grid_key <> '') k
          LEFT JOIN ce_w cw ON cw.grid_key = k.grid_key AND cw.node_id = ${courseId})
    SELECT CASE WHEN count(*) = 0 THEN (SELECT d.ends_at FROM ce_w d WHERE d.grid_key = '' AND d.node_id = ${courseId})
      WHEN count(k.ends_at) = count(*) THEN max(k.ends_at) END
    FROM ce_k k CROSS JOIN group_members m ON m.group_id = k.grid_key AND ${inSchool("m", tenantId)} AND m.user_id = ${studentId})`;
}

/**
 * SQL true when the student's effective course end (`courseEndSql`) is before `now`. A student's
 * end is one of the course windows' own ends (the default grid's, or the latest of their grids'),
 * so while no course window of the course has ended, nobody's has: one probe of the course's
 * windows, evaluated once per statement, answers every row of a course that is still running
 * without reading a grid.
 */
export function courseEndedSql(tenantId: string, courseId: string, studentId: SQL, now: number): SQL {
  return sql`CASE WHEN ${anyCourseWindowEndedSql(tenantId, courseId, now)} THEN ${courseEndSql(tenantId, courseId, studentId)} < ${now} END`;
}

/**
 * SQL true when a live course window of the course (the default grid's or a group's) ended
 * before `now`: while it is false, no student's course has ended (`courseEndedSql`).
 * Uncorrelated, so SQLite evaluates it once per statement.
 */
export function anyCourseWindowEndedSql(tenantId: string, courseId: string, now: number): SQL {
  return sql`EXISTS (SELECT 1 FROM schedule_windows sx WHERE ${liveInSchool("sx", tenantId)} AND sx.course_id = ${courseId}
    AND sx.node_id = ${courseId} AND sx.ends_at < ${now})`;
}
