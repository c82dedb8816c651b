import { sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "../../core/db/batch";
import type { SchoolCtx, SchoolActor } from "../../core/http/context";
import { eventDefinition } from "../../platform/notifications/catalog";
import { enqueue } from "../../platform/notifications/enqueue";
import { schoolEvent } from "../../platform/notifications/settings";
import { pathCourseStatesSql } from "../common/path-unlock";
import { inSchool } from "../../core/db/conditions";

/**
 * What a course completion means for the student's learning paths, written in the batch that sets
 * the enrollment's `completed_at` (the course tree's completion): for each published path holding
 * the course,
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

export const PATH_COMPLETION_EVENTS = [eventDefinition("path.course_unlocked")!, eventDefinition("path.completed")!, eventDefinition("path.student_completed")!];

export interface PathCompletion {
  statements: BatchItem[];
  /** SQL true when the completion completes a path whose #57 is on: #33 is then left out. */
  supersedesStudentPush: SQL | null;
  /** The same for #58 and #34. */
  supersedesCuratorPush: SQL | null;
}

export async function pathCompletionPushes(
  ctx: SchoolCtx<SchoolActor>,
  input: { courseId: string; studentId: string; pathIds: readonly string[]; when: SQL },
): Promise<PathCompletion> {
  const { tenantId } = ctx;
  const { courseId, studentId, when } = input;
  const studentName = sql`(SELECT su.first_name || ' ' || su.last_name FROM users su WHERE su.id = ${studentId} AND ${inSchool("su", tenantId)})`;
  const statements: BatchItem[] = [];
  const completes: SQL[] = [];
  for (const pathId of input.pathIds) {
    const states = pathCourseStatesSql(tenantId, { student: studentId, paths: sql`p.id = ${pathId} AND p.status = 'published'` });
    const unlockedNext = (column: SQL) => sql`(SELECT ${column} FROM (${states}) st WHERE st.prev_course_id = ${courseId} AND st.status = 'unlocked')`;
    const next = unlockedNext(sql`st.course_id`);
    const completed = sql`(EXISTS (SELECT 1 FROM (${states}) st WHERE st.course_id = ${courseId})
      AND NOT EXISTS (SELECT 1 FROM (${states}) st WHERE st.status <> 'completed'))`;
    completes.push(completed);
    const pathTitle = sql`(SELECT tp.title FROM learning_paths tp WHERE tp.id = ${pathId} AND ${inSchool("tp", tenantId)})`;
    statements.push(
      await enqueue(
        ctx,
        "path.course_unlocked",
        { token: "student", studentId },
        { path_title: pathTitle, course_title: unlockedNext(sql`st.course_title`) },
        { id: pathId },
        sql`${`path.course_unlocked:${pathId}:`} || ${next}`,
        { when: sql`${when} AND ${next} IS NOT NULL` },
      ),
      await enqueue(ctx, "path.completed", { token: "student", studentId }, { path_title: pathTitle }, { id: pathId }, `path.completed:${pathId}`, {
        when: sql`${when} AND ${completed}`,
      }),
      await enqueue(
        ctx,
        "path.student_completed",
        { token: "student_curators", studentId },
        { student_name: studentName, path_title: pathTitle },
        { id: pathId },
        `path.student_completed:${pathId}:${studentId}`,
        { when: sql`${when} AND ${completed}` },
      ),
    );
  }
  const anyCompleted = completes.length > 0 ? sql`(${sql.join(completes, sql` OR `)})` : null;
  const enabled = async (index: number) => (await schoolEvent(ctx, tenantId, PATH_COMPLETION_EVENTS[index]!))?.event.enabled === true;
  return {
    statements,
    supersedesStudentPush: anyCompleted && (await enabled(1)) ? anyCompleted : null,
    supersedesCuratorPush: anyCompleted && (await enabled(2)) ? anyCompleted : null,
  };
}
