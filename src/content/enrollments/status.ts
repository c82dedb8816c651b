import { sql, type SQL } from "drizzle-orm";
import { DAY_MS } from "../../core/lib/clock";
import { nodeWindowSql } from "../common/windows";
import { liveInSchool } from "../../core/db/conditions";
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
 * measures its rows without reading completions (docs/decisions/heavy-reads-rating.md, "Enrollment lists").
 */
export function storedActivitySql(e: SQL = sql`e`): SQL {
  return laterOf(sql`${e}.last_accessed_at`, sql`${e}.last_completion_at`);
}

/**
 * The status over a row that has `completed_at` and `activity` (from `activitySql` or
 * `storedActivitySql`) as columns; `row` names it (alias) for its `student_id` and `course_id`;
 * `courseId` when every row is of that course.
 */
export function statusSql(tenantId: string, now: number, row: SQL, courseId?: string): SQL {
  const courseEnd = sql`json_extract(${nodeWindowSql(tenantId, sql`${row}.course_id`, sql`${row}.student_id`, sql`${row}.course_id`)}, '$[1]')`;
  // A course without schedule windows has no end (the window read answers no row): one index probe
  // says so before the per-student window read, which would otherwise run for every row of a list's
  // counts. Given the one course of every row (`courseId`), the probe runs once per statement.
  const scheduled = sql`EXISTS (SELECT 1 FROM schedule_windows sx WHERE ${liveInSchool("sx", tenantId)} AND sx.course_id = ${courseId ?? sql`${row}.course_id`})`;
  return sql`CASE
    WHEN completed_at IS NOT NULL THEN 'done'
    WHEN ${scheduled} AND ${courseEnd} < ${now} THEN 'risk'
    WHEN activity IS NULL THEN 'notstarted'
    WHEN activity < ${now - RISK_IDLE_DAYS * DAY_MS} THEN 'risk'
    ELSE 'active' END`;
}
