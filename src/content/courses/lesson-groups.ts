import { and, asc, eq, isNull, sql } from "drizzle-orm";
import { batchable, changedRows, runBatch } from "../../core/db/batch";
import { liveRowWhere } from "../../core/db/live-row";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { groups, lessonGroups, lessons } from "../../db/schema";
import { coursesErrors } from "./errors";
import { inSchool, liveInSchool } from "../../core/db/conditions";

/**
 * Lesson access groups: a lesson whose list names a live group is visible to students only
 * through membership of one of them (`lessonVisibleSql`). Only live groups are answered: a group
 * deleted later drops out of the list (and out of the visibility rule) on its own.
 */

function queries(ctx: SchoolCtx, lessonId: string) {
  return [
    ctx.db.select({ id: lessons.id }).from(lessons).where(liveRowWhere(lessons, ctx.tenantId, lessonId)),
    ctx.db
      .select({ groupId: lessonGroups.groupId })
      .from(lessonGroups)
      .innerJoin(groups, and(eq(groups.id, lessonGroups.groupId), inSchool(groups, ctx.tenantId), isNull(groups.deletedAt)))
      .where(and(inSchool(lessonGroups, ctx.tenantId), eq(lessonGroups.lessonId, lessonId)))
      .orderBy(asc(lessonGroups.createdAt), asc(lessonGroups.groupId)),
  ] as const;
}

type Results = readonly [Awaited<ReturnType<typeof queries>[0]>, Awaited<ReturnType<typeof queries>[1]>];

function answer(results: Results) {
  const [lesson, rows] = results;
  if (lesson.length === 0) throw new ApiError(coursesErrors.LESSON_NOT_FOUND);
  return { group_ids: rows.map((row) => row.groupId) };
}

/** GET /lessons/:id/groups. */
export async function getLessonGroups(ctx: SchoolCtx, input: { id: string }) {
  return answer(await ctx.db.batch(queries(ctx, input.id)));
}

/**
 * PUT /lessons/:id/groups: replaces the list in one batch. Both writes hold only while the lesson
 * is live and every id is a live group of this school, so a refused list writes nothing; the
 * INSERT's row count then tells which check failed.
 */
export async function replaceLessonGroups(ctx: SchoolCtx, input: { id: string; groupIds: readonly string[] }) {
  const t = ctx.tenantId;
  const ids = [...new Set(input.groupIds)];
  const json = JSON.stringify(ids);
  const named = sql`${liveInSchool("g", t)} AND g.id IN (SELECT value FROM json_each(${json}))`;
  const allowed = sql`EXISTS (SELECT 1 FROM lessons l WHERE l.id = ${input.id} AND ${liveInSchool("l", t)})
    AND (SELECT COUNT(*) FROM groups g WHERE ${named}) = ${ids.length}`;
  const results = await runBatch(ctx, [
    batchable(ctx, sql`DELETE FROM lesson_groups WHERE ${inSchool(t)} AND lesson_id = ${input.id} AND ${allowed}`),
    batchable(
      ctx,
      sql`INSERT INTO lesson_groups (tenant_id, lesson_id, group_id, created_at)
        SELECT ${t}, ${input.id}, g.id, ${ctx.clock.now()} FROM groups g WHERE ${named} AND ${allowed}`,
    ),
    ...queries(ctx, input.id),
  ]);
  const [, inserted, ...read] = results;
  const response = answer(read as unknown as Results);
  if (changedRows(inserted) !== ids.length) throw new ApiError(coursesErrors.GROUP_NOT_IN_TENANT);
  return response;
}
