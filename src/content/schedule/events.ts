import { sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "../../core/db/batch";
import type { SchoolCtx } from "../../core/http/context";
import { enqueue, timestamp } from "../../platform/notifications/enqueue";
import { lessonVisibleToSql } from "../common/access";
import { nodeWindowSql } from "../common/windows";
import { courseIdSql, gridKeyOf, moduleWindowSql, targetSql, windowExistsSql, type WindowNode } from "./targets";
import type { WindowValues } from "./window-service";
import { inSchool, liveInSchool } from "../../core/db/conditions";

/**
 * #26 `course.window_changed`, #27 `module.window_changed`, #28 `lesson.window_changed`: a PUT or
 * DELETE that changes an existing window of a published course tells the students whose effective
 * window on that node changed. The statement runs in the write's batch ahead of the write and
 * compares, per enrolled student, the rule over the windows as they are with the rule over the
 * windows as the write will leave them (the node's window replaced or removed, a module's lesson
 * windows removed with it): one statement, whatever the number of students. Only the node's own
 * level is told, so a module's clear that takes its lesson windows along sends #27 alone.
 */

const CODES = { course: "course.window_changed", module: "module.window_changed", lesson: "lesson.window_changed" } as const;

/** The school's live windows as the write leaves them (a common table of the recipients' statement). */
function windowsAfter(ctx: SchoolCtx, node: WindowNode, after: WindowValues | null): SQL {
  const lessons = node.level === "module" && after === null ? sql`OR (level = 'lesson' AND module_id = ${node.nodeId})` : sql``;
  const kept = sql`SELECT grid_key, course_id, node_id, starts_at, ends_at, allow_before_start, allow_after_end FROM schedule_windows
    WHERE ${liveInSchool(ctx.tenantId)} AND NOT (grid_key = ${gridKeyOf(node)} AND (node_id = ${node.nodeId} ${lessons}))`;
  if (after === null) return kept;
  // Bound numbers arrive as REAL; the stored columns hold INTEGER, and the comparison is of JSON text.
  const int = (value: number | null) => sql`CAST(${value} AS INTEGER)`;
  return sql`${kept} UNION ALL SELECT ${gridKeyOf(node)}, ${courseIdSql(ctx, node)}, ${node.nodeId}, ${int(after.startsAt)}, ${int(after.endsAt)},
    ${int(after.allowBeforeStart ? 1 : 0)}, ${int(after.allowAfterEnd ? 1 : 0)}`;
}

/**
 * The students the change concerns: an active enrollment in the course, members of the group for
 * a group grid (no one else's grid holds the window), seeing the lesson for a lesson window, and
 * an effective window on the node that the write changes.
 */
function changedStudents(ctx: SchoolCtx, node: WindowNode, after: WindowValues | null): SQL {
  const t = ctx.tenantId;
  const courseId = courseIdSql(ctx, node);
  const inGroup =
    node.groupId === null ? sql`` : sql`AND EXISTS (SELECT 1 FROM group_members cgm WHERE ${inSchool("cgm", t)} AND cgm.group_id = ${node.groupId} AND cgm.user_id = ce.student_id)`;
  const seesLesson = node.level === "lesson" ? sql`AND ${lessonVisibleToSql(t, sql`${node.nodeId}`, sql`ce.student_id`)}` : sql``;
  const before = nodeWindowSql(t, courseId, sql`ce.student_id`, node.nodeId);
  const afterWindow = nodeWindowSql(t, courseId, sql`ce.student_id`, node.nodeId, sql`sch_after`);
  return sql`WITH sch_after AS (${windowsAfter(ctx, node, after)})
    SELECT ce.student_id FROM enrollments ce
    WHERE ${inSchool("ce", t)} AND ce.course_id = ${courseId} AND ce.removed_at IS NULL ${inGroup} ${seesLesson}
      AND ${before} IS NOT ${afterWindow}`;
}

function titleSql(ctx: SchoolCtx, table: "courses" | "course_modules" | "lessons", id: string | SQL): SQL {
  return sql`(SELECT tt.title FROM ${sql.identifier(table)} tt WHERE tt.id = ${id} AND ${inSchool("tt", ctx.tenantId)})`;
}

/**
 * The event's statement for the write's batch (ahead of the write). `after` is the window the PUT
 * stores, null for a DELETE. `starts_at`/`ends_at` are the dates the request wrote (null after a
 * clear): a student whose effective window merges several groups' may hold wider dates.
 */
export async function windowChangedPush(ctx: SchoolCtx, node: WindowNode, after: WindowValues | null, now: number): Promise<BatchItem> {
  const code = CODES[node.level];
  const courseTitle = titleSql(ctx, "courses", courseIdSql(ctx, node));
  const own = node.level === "module" ? { module_title: titleSql(ctx, "course_modules", node.nodeId) } : node.level === "lesson" ? { lesson_title: titleSql(ctx, "lessons", node.nodeId) } : {};
  const dates = { starts_at: after?.startsAt == null ? null : timestamp(after.startsAt), ends_at: after?.endsAt == null ? null : timestamp(after.endsAt) };
  // The write takes effect exactly when these hold (the batch sees one state), and only an
  // existing window counts as changed: a first window is announced by its opening instead.
  const when = sql`EXISTS (SELECT 1 FROM (${targetSql(ctx, node)}) wt WHERE wt.course_status = 'published')
    AND ${windowExistsSql(ctx, node)} AND ${moduleWindowSql(ctx, node)}`;
  return enqueue(
    ctx,
    code,
    { token: "students", studentIds: changedStudents(ctx, node, after) },
    { ...own, course_title: courseTitle, ...dates },
    { id: node.nodeId },
    `${code}:${node.nodeId}:${now}`,
    { when },
  );
}
