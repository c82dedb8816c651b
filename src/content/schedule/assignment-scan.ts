import { sql, type SQL } from "drizzle-orm";
import { batchable, rowsOf, type BatchItem } from "../../core/db/batch";
import { inSchool, liveInSchool } from "../../core/db/conditions";
import type { SchoolCtx, SystemActor } from "../../core/http/context";
import { DAY_MS } from "../../core/lib/clock";
import { eventDefinition, type EventCode } from "../../platform/notifications/catalog";
import { enqueue, timestamp } from "../../platform/notifications/enqueue";
import type { SchoolEvent } from "../../platform/notifications/settings";
import { curatedCountSql, unsubmittedAtClosingSql, type AssignmentBoundary } from "./deadline-scan-sql";
import { deadlineHandledUntil, HELD, HORIZON, passedDue, reminderConfig, reminderDue } from "./deadline-scan-timing";

/**
 * The deadline scan's assignment part (#22 `assignment.deadline_reminder`, #30
 * `assignment.deadline_missed`). An assignment's closing date for a student is the earliest
 * closing window over the lessons holding it that the student reaches (`assignmentClosingSql`),
 * so its boundaries are the ends (without `allow_after_end`) of the windows on those lessons, or
 * on a module or course holding them. One boundary per (assignment, instant): windows of several
 * nodes or grids ending together make one, and the recipients are the students whose own closing
 * date is that instant, whichever window gives it.
 */

export const ASSIGNMENT_REMINDER = "assignment.deadline_reminder" satisfies EventCode;
export const ASSIGNMENT_MISSED = "assignment.deadline_missed" satisfies EventCode;

export interface AssignmentDeadline extends AssignmentBoundary {
  timezone: string;
  assignmentTitle: string;
  /** The course of a window closing here (the first by title when windows of several courses do). */
  courseTitle: string;
}

/**
 * The statement reading one school's assignment closing dates that may be due, for live
 * assignments held by live blocks in live lessons of live published courses: passed ones of the
 * horizon plus the quiet-hours hold (digests), coming ones within the school's reminder
 * `days_before` local days and two (reminders). Marked ones are left out; passed ones first, then
 * the nearest. The school's billing gate was checked on the control database (`schoolChunks`).
 */
export function dueAssignmentDeadlinesSql(school: SchoolCtx<SystemActor>, now: number, limit: number): BatchItem {
  const tenantId = school.tenantId;
  const past = now - HORIZON - HELD;
  const ahead = sql`${now} + (${reminderDaysSql(tenantId, ASSIGNMENT_REMINDER)} + 2) * ${DAY_MS}`;
  return batchable(
    school,
    sql`SELECT a.id AS assignment_id, a.title AS assignment_title, w.ends_at AS at, min(c.title) AS course_title
      FROM schedule_windows w
      JOIN courses c ON c.id = w.course_id AND c.tenant_id = w.tenant_id AND c.deleted_at IS NULL AND c.status = 'published'
      JOIN blocks b ON b.tenant_id = w.tenant_id AND b.course_id = w.course_id AND b.type = 'assignment_ref' AND b.deleted_at IS NULL
        AND (w.level = 'course' OR (w.level = 'module' AND b.module_id = w.node_id) OR (w.level = 'lesson' AND b.lesson_id = w.node_id))
      JOIN lessons l ON l.id = b.lesson_id AND l.tenant_id = w.tenant_id AND l.deleted_at IS NULL
      JOIN course_modules m ON m.id = b.module_id AND m.tenant_id = w.tenant_id AND m.deleted_at IS NULL
      JOIN assignments a ON a.id = b.ref_id AND a.tenant_id = w.tenant_id AND a.deleted_at IS NULL
      WHERE ${liveInSchool("w", tenantId)} AND w.allow_after_end = 0 AND w.ends_at > ${past} AND w.ends_at <= ${ahead}
        AND (w.ends_at > ${now} OR w.updated_at < w.ends_at)
        AND NOT EXISTS (SELECT 1 FROM scan_marks s WHERE s.mark_key = 'assignment:' || a.id || ':' || w.ends_at AND s.until > ${now})
      GROUP BY a.id, w.ends_at
      ORDER BY w.ends_at > ${now}, w.ends_at
      LIMIT ${limit}`,
  );
}

/** The rows of `dueAssignmentDeadlinesSql` as closing dates of the school. */
export function assignmentDeadlines(school: SchoolCtx<SystemActor>, result: unknown): AssignmentDeadline[] {
  return rowsOf<{ assignment_id: string; assignment_title: string; at: number; course_title: string }>(result).map((row) => ({
    tenantId: school.tenantId, timezone: school.tenant.timezone, assignmentId: row.assignment_id, assignmentTitle: row.assignment_title, at: row.at, courseTitle: row.course_title,
  }));
}

/**
 * The school's reminder `days_before` of an event (its override, else the catalog's default), in
 * SQL: it bounds which deadlines may be due, read inside the boundary statement itself.
 */
export function reminderDaysSql(tenantId: string, code: EventCode): SQL {
  const fallback = eventDefinition(code)!.defaultConfig.days_before as number;
  return sql`COALESCE((SELECT CAST(json_extract(ns.config, '$.days_before') AS INTEGER) FROM notification_event_settings ns
    WHERE ${inSchool("ns", tenantId)} AND ns.code = ${code}), ${fallback})`;
}

type Settings = Partial<Record<EventCode, Map<string, SchoolEvent>>>;

/** The reminder before the closing date: the same timing as the lesson reminder (#21). */
async function reminderPush(ctx: SchoolCtx<SystemActor>, d: AssignmentDeadline, settings: Settings, now: number): Promise<BatchItem | null> {
  const config = reminderConfig(settings[ASSIGNMENT_REMINDER]?.get(d.tenantId));
  const due = config && reminderDue(config, d.at, now, d.timezone);
  if (!config || !due) return null;
  const prefix = `${ASSIGNMENT_REMINDER}:${d.assignmentId}:${d.at}`;
  const dedupe = config.repeat_daily ? { exact: sql`${prefix} || ':' || r.id || ':' || ${due.localDate}` } : prefix;
  return enqueue(
    ctx,
    ASSIGNMENT_REMINDER,
    { token: "students", studentIds: unsubmittedAtClosingSql(d) },
    { assignment_title: d.assignmentTitle, course_title: d.courseTitle, deadline: timestamp(d.at), days_left: due.daysLeft },
    { id: d.assignmentId },
    dedupe,
  );
}

/** The digest after the closing date: each curator of a student who had not handed in by then, with the count of theirs. */
async function missedPush(ctx: SchoolCtx<SystemActor>, d: AssignmentDeadline, settings: Settings, now: number): Promise<BatchItem | null> {
  if (settings[ASSIGNMENT_MISSED]?.get(d.tenantId)?.event.enabled !== true || !passedDue(d.at, now, d.timezone)) return null;
  const missed = unsubmittedAtClosingSql(d, d.at);
  return enqueue(
    ctx,
    ASSIGNMENT_MISSED,
    { token: "student_curators", studentIds: missed },
    { assignment_title: d.assignmentTitle, deadline: timestamp(d.at), missed_count: curatedCountSql(d.tenantId, missed) },
    { id: d.assignmentId },
    `${ASSIGNMENT_MISSED}:${d.assignmentId}:${d.at}`,
  );
}

/** The closing date's push (reminder or digest, by the clock) and when the boundary counts as handled. */
export async function assignmentDeadlineWork(ctx: SchoolCtx<SystemActor>, d: AssignmentDeadline, settings: Settings, now: number): Promise<{ push: BatchItem | null; markKey: string; until: number | null }> {
  const push = d.at > now ? await reminderPush(ctx, d, settings, now) : await missedPush(ctx, d, settings, now);
  const digestOn = settings[ASSIGNMENT_MISSED]?.get(d.tenantId)?.event.enabled === true;
  const until = deadlineHandledUntil(d.at, d.timezone, settings[ASSIGNMENT_REMINDER]?.get(d.tenantId), digestOn, now);
  return { push, markKey: `assignment:${d.assignmentId}:${d.at}`, until };
}
