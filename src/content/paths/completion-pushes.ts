import { sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "../../core/db/batch";
import type { SchoolCtx, SchoolActor } from "../../core/http/context";
import { eventDefinition } from "../../platform/notifications/catalog";
import { enqueue } from "../../platform/notifications/enqueue";
import { schoolEvent } from "../../platform/notifications/settings";
import type { CourseCompleted, PathCompleted, PathCourseUnlocked } from "../common/events";
import { pathCourseStatesSql } from "../common/path-unlock";
import { inSchool } from "../../core/db/conditions";

/**
 * What a course completion means for the student's learning paths, written in the batch that sets
 * the enrollment's `completed_at` (the course tree's completion): for each published path holding
 * the course, a `path.course_unlocked` and a `path.completed` event (`pathEvents`), and their pushes:
 * - `path.course_unlocked` (#56) to the student when the next course turns from locked to
 *   unlocked (it is not completed yet), keyed `{code}:{path_id}:{course_id}:{student_id}`;
 * - `path.completed` (#57) to the student and `path.student_completed` (#58) to the student's
 *   curators when every course of the path is now completed. #58 is keyed by path and student
 *   (`{code}:{path_id}:{student_id}:{curator_id}`): keyed by the path alone, a curator would hear
 *   of only the first of their students to complete it.
 * A completion that completes a path replaces the course's own pushes with the path's (#57 for
 * #33, #58 for #34), when the school has the path event on. The paths are the ones the caller read
 * in its first batch (`publishedPathsHoldingSql`, content/common/path-unlock.ts); each event's condition is evaluated by the
 * write batch, after the recount.
 */

export const PATH_UNLOCK_EVENTS = [eventDefinition("path.course_unlocked")!];
export const PATH_COMPLETED_EVENTS = [eventDefinition("path.completed")!, eventDefinition("path.student_completed")!];

/** The path's course states for the student (the unlock rule), as a derived table's SELECT. */
const pathStates = (tenantId: string, pathId: string, studentId: string) =>
  pathCourseStatesSql(tenantId, { student: studentId, paths: sql`p.id = ${pathId} AND p.status = 'published'` });

/** A column of the course the completion of `courseId` unlocked in the path (NULL: none). */
const unlockedNext = (states: SQL, courseId: string, column: SQL) =>
  sql`(SELECT ${column} FROM (${states}) st WHERE st.prev_course_id = ${courseId} AND st.status = 'unlocked')`;

/**
 * The two events of each published path holding the completed course, in path order, for the
 * course completion's batch: the next course unlocked, then the path completed. `when` is the
 * course completion's; each event adds its own condition to it.
 */
export function pathEvents(
  tenantId: string,
  input: { courseId: string; studentId: string; pathIds: readonly string[]; when: SQL; superseding: CourseCompleted["superseding"] },
): (PathCourseUnlocked | PathCompleted)[] {
  const { courseId, studentId, when } = input;
  return input.pathIds.flatMap((pathId) => {
    const states = pathStates(tenantId, pathId, studentId);
    const next = unlockedNext(states, courseId, sql`st.course_id`);
    const completed = sql`(EXISTS (SELECT 1 FROM (${states}) st WHERE st.course_id = ${courseId})
      AND NOT EXISTS (SELECT 1 FROM (${states}) st WHERE st.status <> 'completed'))`;
    return [
      { type: "path.course_unlocked", pathId, courseId, studentId, unlockedCourseId: next, when: sql`${when} AND ${next} IS NOT NULL` },
      { type: "path.completed", pathId, courseId, studentId, completed, when: sql`${when} AND ${completed}`, superseding: input.superseding },
    ];
  });
}

const pathTitleSql = (tenantId: string, pathId: string) => sql`(SELECT tp.title FROM learning_paths tp WHERE tp.id = ${pathId} AND ${inSchool("tp", tenantId)})`;

/** #56 to the student, for a `path.course_unlocked`. */
export function courseUnlockedPush(ctx: SchoolCtx<SchoolActor>, event: PathCourseUnlocked): Promise<BatchItem> {
  const { tenantId } = ctx;
  const { pathId, studentId } = event;
  const title = unlockedNext(pathStates(tenantId, pathId, studentId), event.courseId, sql`st.course_title`);
  return enqueue(
    ctx,
    "path.course_unlocked",
    { token: "student", studentId },
    { path_title: pathTitleSql(tenantId, pathId), course_title: title },
    { id: pathId },
    sql`${`path.course_unlocked:${pathId}:`} || ${event.unlockedCourseId}`,
    { when: event.when },
  );
}

/** #57 to the student and #58 to their curators, for a `path.completed`. */
export async function pathCompletedPushes(ctx: SchoolCtx<SchoolActor>, event: PathCompleted): Promise<BatchItem[]> {
  const { tenantId } = ctx;
  const { pathId, studentId, when } = event;
  const studentName = sql`(SELECT su.first_name || ' ' || su.last_name FROM users su WHERE su.id = ${studentId} AND ${inSchool("su", tenantId)})`;
  const pathTitle = pathTitleSql(tenantId, pathId);
  return [
    await enqueue(ctx, "path.completed", { token: "student", studentId }, { path_title: pathTitle }, { id: pathId }, `path.completed:${pathId}`, { when }),
    await enqueue(
      ctx,
      "path.student_completed",
      { token: "student_curators", studentId },
      { student_name: studentName, path_title: pathTitle },
      { id: pathId },
      `path.student_completed:${pathId}:${studentId}`,
      { when },
    ),
  ];
}

/** Whether the school has the path push on: only then does it replace the course's. */
export async function pathPushEnabled(ctx: SchoolCtx<SchoolActor>, code: "path.completed" | "path.student_completed"): Promise<boolean> {
  const definition = PATH_COMPLETED_EVENTS.find((event) => event.code === code)!;
  return (await schoolEvent(ctx, ctx.tenantId, definition))?.event.enabled === true;
}

export interface PathCompletion {
  statements: BatchItem[];
  /** SQL true when the completion completes a path whose #57 is on: #33 is then left out. */
  supersedesStudentPush: SQL | null;
  /** The same for #58 and #34. */
  supersedesCuratorPush: SQL | null;
}

/**
 * Every path push of a course completion, as the events' contributors write them (the paths'
 * events, each handled in turn), with the conditions under which they replace the course's.
 */
export async function pathCompletionPushes(
  ctx: SchoolCtx<SchoolActor>,
  input: { courseId: string; studentId: string; pathIds: readonly string[]; when: SQL },
): Promise<PathCompletion> {
  const superseding: CourseCompleted["superseding"] = { student: [], curators: [] };
  const statements: BatchItem[] = [];
  for (const event of pathEvents(ctx.tenantId, { ...input, superseding })) {
    if (event.type === "path.course_unlocked") statements.push(await courseUnlockedPush(ctx, event));
    else {
      statements.push(...(await pathCompletedPushes(ctx, event)));
      await reportSuperseding(ctx, event);
    }
  }
  const any = (conditions: SQL[]) => (conditions.length > 0 ? sql`(${sql.join(conditions, sql` OR `)})` : null);
  return { statements, supersedesStudentPush: any(superseding.student), supersedesCuratorPush: any(superseding.curators) };
}

/**
 * Adds the path's completion to the course completion's `superseding` for each path push the
 * school has on (docs/domain-events.md, "Superseding pushes").
 */
export async function reportSuperseding(ctx: SchoolCtx<SchoolActor>, event: PathCompleted): Promise<void> {
  if (await pathPushEnabled(ctx, "path.completed")) event.superseding.student.push(event.completed);
  if (await pathPushEnabled(ctx, "path.student_completed")) event.superseding.curators.push(event.completed);
}
