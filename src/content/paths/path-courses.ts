import { sql } from "drizzle-orm";
import { batchable, changedRows, runBatch, type BatchItem, rowsOf } from "../../core/db/batch";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { learningPathCourses } from "../../db/schema";
import { eventDefinition } from "../../platform/notifications/catalog";
import { dispatchQueued, enqueue } from "../../platform/notifications/enqueue";
import { prefetchSchoolEvents } from "../../platform/notifications/settings";
import { reorderSiblings } from "../common/ordering";
import { pathsErrors as e } from "./errors";
import { inSchool, liveInSchool } from "../../core/db/conditions";

/**
 * A path's course set: replaced whole (PATCH /learning-paths/:id/courses) or reordered. Links are
 * to live courses of the school of any status; students see the published ones (docs/decisions/paths.md, "Learning paths").
 */

const COURSE_ADDED = eventDefinition("path.course_added")!;

interface ReplaceState {
  path: { status: string } | undefined;
  foreign: number;
  current: Set<string>;
  /** Requested courses that are live and published: the ones students would be told about. */
  published: Set<string>;
}

/** The path, the requested ids that are not live courses of the school, the current set, and the push settings. */
async function readReplaceState(ctx: SchoolCtx, pathId: string, json: string): Promise<ReplaceState> {
  const { tenantId } = ctx;
  const prefetch = prefetchSchoolEvents(ctx, tenantId, [COURSE_ADDED]);
  const results = await runBatch(ctx, [
    ...(prefetch.statements as BatchItem[]),
    batchable(ctx, sql`SELECT status FROM learning_paths WHERE id = ${pathId} AND ${liveInSchool(tenantId)}`),
    batchable(
      ctx,
      sql`SELECT r.value AS id, c.status FROM json_each(${json}) r
        LEFT JOIN courses c ON c.id = r.value AND ${liveInSchool("c", tenantId)}`,
    ),
    batchable(ctx, sql`SELECT course_id FROM learning_path_courses WHERE ${inSchool(tenantId)} AND path_id = ${pathId}`),
  ]);
  prefetch.remember(results);
  const [path, requested, current] = results.slice(-3);
  const rows = rowsOf<{ id: string; status: string | null }>(requested);
  return {
    path: rowsOf<{ status: string }>(path)[0],
    foreign: rows.filter((row) => row.status === null).length,
    current: new Set(rowsOf<{ course_id: string }>(current).map((row) => row.course_id)),
    published: new Set(rows.filter((row) => row.status === "published").map((row) => row.id)),
  };
}

function check(state: ReplaceState, ids: readonly string[]): void {
  if (!state.path) throw new ApiError(e.PATH_NOT_FOUND);
  if (state.foreign > 0) throw new ApiError(e.COURSE_NOT_IN_TENANT);
  if (new Set(ids).size !== ids.length) throw new ApiError(e.COURSE_ALREADY_IN_PATH);
}

/**
 * `path.course_added` (#59) to the path's registry for each published course the write adds to a
 * published path. The version in the key is the link's `created_at` (the batch's timestamp): a
 * retried request adds nothing and writes nothing; removing a course and adding it back again tells
 * the students again.
 */
function courseAddedPushes(ctx: SchoolCtx, input: { pathId: string; courseIds: readonly string[]; now: number }): Promise<BatchItem[]> {
  const { tenantId } = ctx;
  const { pathId, now } = input;
  const pathTitle = sql`(SELECT p.title FROM learning_paths p WHERE p.id = ${pathId} AND ${inSchool("p", tenantId)})`;
  return Promise.all(
    input.courseIds.map((courseId) =>
      enqueue(
        ctx,
        "path.course_added",
        { token: "path_students", pathId },
        { path_title: pathTitle, course_title: sql`(SELECT c.title FROM courses c WHERE c.id = ${courseId} AND ${inSchool("c", tenantId)})` },
        { id: pathId },
        `path.course_added:${pathId}:${courseId}:${now}`,
        {
          when: sql`EXISTS (SELECT 1 FROM learning_paths p WHERE p.id = ${pathId} AND ${liveInSchool("p", tenantId)} AND p.status = 'published')
            AND EXISTS (SELECT 1 FROM learning_path_courses l WHERE l.path_id = ${pathId} AND l.course_id = ${courseId} AND ${inSchool("l", tenantId)} AND l.created_at = ${now})`,
        },
      ),
    ),
  );
}

/**
 * PATCH /learning-paths/:id/courses: the set becomes exactly `course_ids`, positions in the given
 * order. One read batch (the path, the ids, the current set, the push settings), then one write
 * batch: links dropped, links upserted, the path touched and the pushes. The writes repeat the
 * checks as their condition, so a path or course deleted in between makes the batch change nothing
 * and the request answers as the state now stands.
 */
export async function replacePathCourses(ctx: SchoolCtx, input: { id: string; courseIds: readonly string[] }) {
  const { tenantId } = ctx;
  const { id: pathId, courseIds } = input;
  const json = JSON.stringify(courseIds);
  for (let attempt = 0; attempt < 3; attempt++) {
    const state = await readReplaceState(ctx, pathId, json);
    check(state, courseIds);
    const now = ctx.clock.now();
    const added = state.path!.status === "published" ? courseIds.filter((id) => !state.current.has(id) && state.published.has(id)) : [];
    const applies = sql`EXISTS (SELECT 1 FROM learning_paths p WHERE p.id = ${pathId} AND ${liveInSchool("p", tenantId)})
      AND (SELECT count(*) FROM courses c WHERE ${liveInSchool("c", tenantId)} AND c.id IN (SELECT value FROM json_each(${json}))) = ${courseIds.length}`;
    const results = await runBatch(ctx, [
      batchable(
        ctx,
        sql`UPDATE learning_paths SET updated_at = ${now} WHERE id = ${pathId} AND ${liveInSchool(tenantId)} AND ${applies}`,
      ),
      batchable(
        ctx,
        sql`DELETE FROM learning_path_courses WHERE ${inSchool(tenantId)} AND path_id = ${pathId}
          AND course_id NOT IN (SELECT value FROM json_each(${json})) AND ${applies}`,
      ),
      batchable(
        ctx,
        sql`INSERT INTO learning_path_courses (tenant_id, path_id, course_id, position, created_at)
          SELECT ${tenantId}, ${pathId}, r.value, r.key, ${now} FROM json_each(${json}) r WHERE ${applies}
          ON CONFLICT (path_id, course_id) DO UPDATE SET position = excluded.position`,
      ),
      ...(await courseAddedPushes(ctx, { pathId, courseIds: added, now })),
    ]);
    if (changedRows(results[0]) === 1) {
      if (added.length > 0) await dispatchQueued(ctx);
      return { replaced: true as const, count: courseIds.length };
    }
    // Changed in between: the next read answers the refusal, or the write is tried again.
  }
  throw new Error("the path or its courses kept changing during the replace");
}

/**
 * PATCH /learning-paths/:id/reorder-courses: the ids must be exactly the path's links to live
 * courses (what staff see in the detail); links to courses deleted since keep their place and stay
 * out of sight.
 */
export async function reorderPathCourses(ctx: SchoolCtx, input: { id: string; courseIds: readonly string[] }) {
  const { tenantId } = ctx;
  const [path] = await ctx.db.all<{ id: string }>(sql`SELECT id FROM learning_paths WHERE id = ${input.id} AND ${liveInSchool(tenantId)}`);
  if (!path) throw new ApiError(e.PATH_NOT_FOUND);
  return reorderSiblings(
    ctx,
    {
      table: learningPathCourses,
      parent: { column: learningPathCourses.pathId, id: input.id },
      key: learningPathCourses.courseId,
      where: sql`EXISTS (SELECT 1 FROM courses c WHERE c.id = ${learningPathCourses.courseId} AND ${liveInSchool("c", tenantId)})`,
    },
    input.courseIds,
  );
}
