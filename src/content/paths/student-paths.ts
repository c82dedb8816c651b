import type { z } from "@hono/zod-openapi";
import { sql } from "drizzle-orm";
import { batchable, runBatch, rowsOf } from "../../core/db/batch";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { restrictedScope, scopeCondition } from "../../platform/schools/curator-scope";
import { pathCourseStatesSql } from "../common/path-unlock";
import { activitySql } from "../enrollments/status";
import { pathsErrors as e } from "./errors";
import { presentPathStudent, presentStudentPaths, type PathStudentRow, type StudentPathRow } from "./present";
import type { PathStudentsQuery } from "./schemas";
import { inPathRegistrySql, studentCourseIdsSql } from "./registry";
import { inSchool, liveInSchool } from "../../core/db/conditions";

/**
 * GET /students/me/paths: every published path of the school with the caller's status in each of
 * its courses, ordered by title. One statement over the unlock relation, whatever the number of
 * paths. Staff get the same view over their own enrollments (usually none: the first course of
 * each path unlocked, the rest locked), which is what a student starting out sees.
 */
export async function myPaths(ctx: SchoolCtx) {
  const { tenantId } = ctx;
  const states = pathCourseStatesSql(tenantId, { student: ctx.actor.userId, paths: sql`p.status = 'published'` });
  const rows = await ctx.db.all<StudentPathRow>(
    sql`SELECT p.id AS path_id, p.title AS path_title, p.description AS path_description,
        st.course_id, st.position, st.course_title, st.status, st.unlocked_at, st.completed_at
      FROM learning_paths p LEFT JOIN (${states}) st ON st.path_id = p.id
      WHERE ${liveInSchool("p", tenantId)} AND p.status = 'published'
      ORDER BY p.title, p.id, st.position, st.course_id`,
  );
  return { paths: presentStudentPaths(rows) };
}

/**
 * GET /learning-paths/:id/students: the path's registry, students with an active enrollment in
 * one of its live published courses (restricted curators: their own students), by name. Per
 * student: courses not locked, courses completed, the first `unlocked_at` and the latest activity
 * in the path's courses. One batch: the path, the count and the page; the page is picked before its
 * statuses are computed, so a page costs its own rows.
 */
export async function pathStudents(ctx: SchoolCtx, input: { id: string; query: z.infer<typeof PathStudentsQuery> }) {
  const { tenantId } = ctx;
  const { id: pathId } = input;
  const { limit, offset } = input.query;
  const scope = scopeCondition(sql`u.id`, restrictedScope(ctx));
  const registry = sql`SELECT u.id, u.email, u.first_name, u.last_name, u.is_active FROM users u
    WHERE ${liveInSchool("u", tenantId)} AND u.role = 'student' AND ${inPathRegistrySql(tenantId, pathId, sql`u.id`)}
      ${scope ? sql`AND ${scope}` : sql``}`;
  const states = pathCourseStatesSql(tenantId, { students: sql`SELECT pg.id FROM page pg`, paths: sql`p.id = ${pathId}` });
  const lastActivity = sql`(SELECT MAX(${activitySql(tenantId, sql`e`)}) FROM enrollments e
    WHERE ${inSchool("e", tenantId)} AND e.student_id = pg.id AND e.removed_at IS NULL AND e.course_id IN (${studentCourseIdsSql(tenantId, pathId)}))`;
  const [path, count, page] = await runBatch(ctx, [
    batchable(ctx, sql`SELECT id FROM learning_paths WHERE id = ${pathId} AND ${liveInSchool(tenantId)}`),
    batchable(ctx, sql`SELECT count(*) AS total FROM (${registry})`),
    batchable(
      ctx,
      sql`WITH page AS MATERIALIZED (${registry} ORDER BY u.last_name, u.first_name, u.email, u.id LIMIT ${limit} OFFSET ${offset})
        SELECT pg.*, agg.courses_unlocked, agg.courses_completed, agg.first_unlocked_at, ${lastActivity} AS last_activity_at
        FROM page pg
          LEFT JOIN (SELECT st.student_id, SUM(st.status <> 'locked') AS courses_unlocked, SUM(st.status = 'completed') AS courses_completed,
                       MIN(st.unlocked_at) AS first_unlocked_at
                     FROM (${states}) st GROUP BY st.student_id) agg ON agg.student_id = pg.id
        ORDER BY pg.last_name, pg.first_name, pg.email, pg.id`,
    ),
  ]);
  if (!rowsOf(path)[0]) throw new ApiError(e.PATH_NOT_FOUND);
  return {
    students: rowsOf<PathStudentRow>(page).map(presentPathStudent),
    total: rowsOf<{ total: number }>(count)[0]?.total ?? 0,
    limit,
    offset,
  };
}
