import { and, ne, sql } from "drizzle-orm";
import { idIn, inSchool } from "../../core/db/conditions";
import { liveRowWhere } from "../../core/db/live-row";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { courses, type CourseStatus } from "../../db/schema";
import { coursesErrors } from "./errors";

/**
 * POST /t/courses/:id/publish and /unpublish: idempotent, one statement; `updated_at` moves only
 * when the status changes.
 */
export async function setCourseStatus(ctx: SchoolCtx, input: { id: string; status: CourseStatus }) {
  const { id, status } = input;
  const updated = await ctx.db
    .update(courses)
    .set({ status, updatedAt: sql`CASE WHEN ${courses.status} <> ${status} THEN ${ctx.clock.now()} ELSE ${courses.updatedAt} END` })
    .where(liveRowWhere(courses, ctx.tenantId, id))
    .returning({ status: courses.status });
  if (updated.length === 0) throw new ApiError(coursesErrors.COURSE_NOT_FOUND);
  return { status };
}

/**
 * POST /t/courses/bulk-publish and /bulk-unpublish: one UPDATE of the listed live courses of the
 * school not yet in that status. `affected` counts the courses changed; `skipped` lists every other
 * id sent (already in that status, deleted, another school's or unknown), once each, in the order sent.
 */
export async function bulkSetCourseStatus(ctx: SchoolCtx, input: { ids: readonly string[]; status: CourseStatus }) {
  const ids = [...new Set(input.ids)];
  const changed = await ctx.db
    .update(courses)
    .set({ status: input.status, updatedAt: ctx.clock.now() })
    .where(and(inSchool(courses, ctx.tenantId), sql`${courses.deletedAt} IS NULL`, ne(courses.status, input.status), idIn(courses.id, ids)))
    .returning({ id: courses.id });
  const done = new Set(changed.map((row) => row.id));
  return { affected: done.size, skipped: ids.filter((id) => !done.has(id)) };
}
