import { sql } from "drizzle-orm";
import { batchable, runBatch, rowsOf } from "../../core/db/batch";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { groupVisibleSql } from "../groups/scope";
import { scheduleErrors } from "./errors";
import { presentWindow, type RawWindow } from "./present";
import type { GridNodeInput, WindowInput } from "./schemas";
import { groupNode } from "./targets";
import { clearWindow, putWindow, WINDOW_COLUMNS } from "./window-service";
import { inSchool, liveInSchool } from "../../core/db/conditions";

/**
 * Whole grids (the default grid's schedule tree, a group's grid of a course) and the group-grid
 * writes, which are the node verbs of window-service on the group's grid.
 */

/**
 * The grid's windows on live nodes of the live course, in course order (the course's, then each
 * module's followed by its lessons'), with a probe of the course (and group): one batch.
 */
async function readGrid(ctx: SchoolCtx, input: { courseId: string; groupId: string | null }) {
  const t = ctx.tenantId;
  const group = input.groupId === null ? sql`` : sql`AND EXISTS (SELECT 1 FROM groups g WHERE g.id = ${input.groupId} AND ${groupVisibleSql(ctx, sql`g`)})`;
  const [probe, windows] = await runBatch(ctx, [
    batchable(ctx, sql`SELECT 1 AS found FROM courses c WHERE c.id = ${input.courseId} AND ${liveInSchool("c", t)} ${group}`),
    batchable(
      ctx,
      sql`SELECT ${WINDOW_COLUMNS} FROM schedule_windows w
          LEFT JOIN course_modules m ON m.id = w.module_id AND ${inSchool("m", t)}
          LEFT JOIN lessons l ON l.id = w.lesson_id AND ${inSchool("l", t)}
        WHERE ${inSchool("w", t)} AND w.course_id = ${input.courseId} AND w.grid_key = ${input.groupId ?? ""} AND w.deleted_at IS NULL
          AND (w.level = 'course' OR (m.id IS NOT NULL AND m.deleted_at IS NULL))
          AND (w.level <> 'lesson' OR (l.id IS NOT NULL AND l.deleted_at IS NULL))
        ORDER BY w.level <> 'course', m.position, m.id, w.level = 'lesson', l.position, l.id`,
    ),
  ]);
  if (rowsOf(probe).length === 0) throw new ApiError(scheduleErrors.TARGET_NOT_FOUND);
  return { course_id: input.courseId, group_id: input.groupId, windows: rowsOf<RawWindow>(windows).map(presentWindow) };
}

/** GET /courses/:id/schedule-tree: the default grid. */
export function getScheduleTree(ctx: SchoolCtx, input: { courseId: string }) {
  return readGrid(ctx, { courseId: input.courseId, groupId: null });
}

/** GET /groups/:id/course-schedule?course_id=: the group's grid of the course. */
export function getGroupGrid(ctx: SchoolCtx, input: { groupId: string; courseId: string }) {
  return readGrid(ctx, input);
}

/** PUT /groups/:id/course-schedule. */
export function putGroupWindow(ctx: SchoolCtx, input: { groupId: string; body: GridNodeInput & { window: WindowInput } }) {
  return putWindow(ctx, { node: groupNode(input.groupId, input.body), window: input.body.window });
}

/** DELETE /groups/:id/course-schedule: the node's window (a module's takes its lessons' along). */
export function clearGroupWindow(ctx: SchoolCtx, input: { groupId: string; body: GridNodeInput }) {
  return clearWindow(ctx, { node: groupNode(input.groupId, input.body) });
}
