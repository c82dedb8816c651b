import type { z } from "@hono/zod-openapi";
import { sql, type SQL } from "drizzle-orm";
import { batchable, changedRows, runBatch, type BatchItem, rowsOf } from "../../core/db/batch";
import { containsText } from "../../core/db/conditions";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { uuidv7 } from "../../core/lib/ids";
import { PATH_STATUSES } from "../../db/schema";
import { courseVisibleSql, isStaff } from "../common/access";
import { pathsErrors as e } from "./errors";
import { presentPath, presentPathDetail, type PathRow } from "./present";
import type { CreatePathBody, ListPathsQuery, UpdatePathBody } from "./schemas";

/**
 * Learning paths as records: list, read, create, edit, delete, publish. Staff see every live path
 * with every live course in it; students see published paths and their published courses only (a
 * draft path is `path_not_found` to them), so `course_count` counts the courses the caller sees.
 */

/** The path alias `p` is one the caller may read. */
export function pathVisibleSql(ctx: SchoolCtx): SQL {
  const live = sql`p.tenant_id = ${ctx.tenantId} AND p.deleted_at IS NULL`;
  return isStaff(ctx.actor) ? live : sql`${live} AND p.status = 'published'`;
}

/** The path's links to courses the caller sees (alias `l`, course `c`), for the path alias `p`. */
function visibleLinksSql(ctx: SchoolCtx): SQL {
  return sql`learning_path_courses l JOIN courses c ON c.id = l.course_id AND ${courseVisibleSql(ctx, sql`c`)}
    WHERE ${inSchool("l", ctx.tenantId)} AND l.path_id = p.id`;
}

/** The columns of `PathRow` over the alias `p`; `withCourses` adds the ordered course list. */
function pathColumnsSql(ctx: SchoolCtx, withCourses: boolean): SQL {
  const courses = withCourses
    ? sql`, (SELECT json_group_array(json_array(x.course_id, x.position, x.title))
          FROM (SELECT l.course_id, l.position, c.title FROM ${visibleLinksSql(ctx)} ORDER BY l.position, l.course_id) x) AS courses`
    : sql``;
  return sql`p.id, p.title, p.description, p.status, p.created_by, p.created_at, p.updated_at,
    (SELECT count(*) FROM ${visibleLinksSql(ctx)}) AS course_count ${courses}`;
}

export function pathDetailStatement(ctx: SchoolCtx, id: string): BatchItem {
  return batchable(ctx, sql`SELECT ${pathColumnsSql(ctx, true)} FROM learning_paths p WHERE p.id = ${id} AND ${pathVisibleSql(ctx)}`);
}

function detailOr404(result: unknown) {
  const row = rowsOf<PathRow>(result)[0];
  if (!row) throw new ApiError(e.PATH_NOT_FOUND);
  return presentPathDetail(row);
}

/** GET /learning-paths: newest first; the count and the page in one batch. */
export async function listPaths(ctx: SchoolCtx, input: { query: z.infer<typeof ListPathsQuery> }) {
  const { q, status, limit, offset } = input.query;
  if (status !== undefined && status !== "" && !(PATH_STATUSES as readonly string[]).includes(status)) throw new ApiError(e.INVALID_STATUS_FILTER);
  const filters = [pathVisibleSql(ctx), status ? sql`p.status = ${status}` : undefined, q ? containsText(sql`p.title`, q) : undefined].filter((part) => part !== undefined);
  const where = sql.join(filters, sql` AND `);
  const [count, page] = await runBatch(ctx, [
    batchable(ctx, sql`SELECT count(*) AS total FROM learning_paths p WHERE ${where}`),
    batchable(ctx, sql`SELECT ${pathColumnsSql(ctx, false)} FROM learning_paths p WHERE ${where} ORDER BY p.created_at DESC, p.id DESC LIMIT ${limit} OFFSET ${offset}`),
  ]);
  return {
    paths: rowsOf<PathRow>(page).map(presentPath),
    total: rowsOf<{ total: number }>(count)[0]?.total ?? 0,
    limit,
    offset,
  };
}

/** GET /learning-paths/:id with its ordered courses. */
export async function getPath(ctx: SchoolCtx, input: { id: string }) {
  const [detail] = await runBatch(ctx, [pathDetailStatement(ctx, input.id)]);
  return detailOr404(detail);
}

/** POST /learning-paths: a draft without courses, written and read back in one batch. */
export async function createPath(ctx: SchoolCtx, input: { body: z.infer<typeof CreatePathBody> }) {
  const id = uuidv7();
  const now = ctx.clock.now();
  const [, detail] = await runBatch(ctx, [
    batchable(
      ctx,
      sql`INSERT INTO learning_paths (id, tenant_id, title, description, status, created_by, created_at, updated_at)
        VALUES (${id}, ${ctx.tenantId}, ${input.body.title}, ${input.body.description ?? ""}, 'draft', ${ctx.actor.userId}, ${now}, ${now})`,
    ),
    pathDetailStatement(ctx, id),
  ]);
  return detailOr404(detail);
}

/** PATCH /learning-paths/:id: title and description; the status changes only by publish/unpublish. */
export async function updatePath(ctx: SchoolCtx, input: { id: string; body: z.infer<typeof UpdatePathBody> }) {
  const { title, description } = input.body;
  const changes = [title !== undefined ? sql`title = ${title}` : undefined, description !== undefined ? sql`description = ${description}` : undefined].filter(
    (part) => part !== undefined,
  );
  if (changes.length === 0) return getPath(ctx, input);
  const [, detail] = await runBatch(ctx, [
    batchable(
      ctx,
      sql`UPDATE learning_paths SET ${sql.join(changes, sql`, `)}, updated_at = ${ctx.clock.now()}
        WHERE id = ${input.id} AND ${liveInSchool(ctx.tenantId)}`,
    ),
    pathDetailStatement(ctx, input.id),
  ]);
  return detailOr404(detail);
}

/** DELETE /learning-paths/:id: soft. Its course links stay behind a deleted path, which nothing reads. */
export async function deletePath(ctx: SchoolCtx, input: { id: string }) {
  const now = ctx.clock.now();
  const [deleted] = await runBatch(ctx, [
    batchable(ctx, sql`UPDATE learning_paths SET deleted_at = ${now}, updated_at = ${now} WHERE id = ${input.id} AND ${liveInSchool(ctx.tenantId)}`),
  ]);
  if (changedRows(deleted) === 0) throw new ApiError(e.PATH_NOT_FOUND);
  return { deleted: true as const };
}

/**
 * POST /learning-paths/:id/publish: a draft with at least one live course becomes published; an
 * already published path answers the same (idempotent, unchanged). One batch: the conditional
 * UPDATE, then the state it left.
 */
export async function publishPath(ctx: SchoolCtx, input: { id: string }) {
  const { tenantId } = ctx;
  const hasCourse = sql`EXISTS (SELECT 1 FROM learning_path_courses l JOIN courses c ON c.id = l.course_id AND ${liveInSchool("c", tenantId)}
    WHERE ${inSchool("l", tenantId)} AND l.path_id = learning_paths.id)`;
  const [, state] = await runBatch(ctx, [
    batchable(
      ctx,
      sql`UPDATE learning_paths SET status = 'published', updated_at = ${ctx.clock.now()}
        WHERE id = ${input.id} AND ${liveInSchool(tenantId)} AND status = 'draft' AND ${hasCourse}`,
    ),
    batchable(ctx, sql`SELECT status FROM learning_paths WHERE id = ${input.id} AND ${liveInSchool(tenantId)}`),
  ]);
  const row = rowsOf<{ status: string }>(state)[0];
  if (!row) throw new ApiError(e.PATH_NOT_FOUND);
  if (row.status !== "published") throw new ApiError(e.PATH_PUBLISH_EMPTY);
  return { published: true as const };
}

/** POST /learning-paths/:id/unpublish: back to draft; idempotent for a draft. */
export async function unpublishPath(ctx: SchoolCtx, input: { id: string }) {
  const { tenantId } = ctx;
  const [, state] = await runBatch(ctx, [
    batchable(
      ctx,
      sql`UPDATE learning_paths SET status = 'draft', updated_at = ${ctx.clock.now()}
        WHERE id = ${input.id} AND ${liveInSchool(tenantId)} AND status = 'published'`,
    ),
    batchable(ctx, sql`SELECT status FROM learning_paths WHERE id = ${input.id} AND ${liveInSchool(tenantId)}`),
  ]);
  if (!rowsOf(state)[0]) throw new ApiError(e.PATH_NOT_FOUND);
  return { unpublished: true as const };
}
