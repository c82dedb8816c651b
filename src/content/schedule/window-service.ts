import { sql } from "drizzle-orm";
import { batchable, changedRows, runBatch, type BatchItem, rowsOf } from "../../core/db/batch";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { uuidv7 } from "../../core/lib/ids";
import { dispatchQueued } from "../../platform/notifications/enqueue";
import { scheduleErrors } from "./errors";
import { windowChangedPush } from "./events";
import { presentWindow, type RawWindow } from "./present";
import type { WindowInput } from "./schemas";
import { clearedRowsSql, gridKeyOf, moduleWindowSql, targetSql, windowExistsSql, type WindowNode } from "./targets";
import { inSchool } from "../../core/db/conditions";

/**
 * One window per node and grid: read, set (an upsert, so repeating a PUT changes nothing and a
 * changed window is updated in place) and clear (soft; a module's clear takes its lessons' windows
 * in the same grid with it). Each verb is one batch: a probe of the target, the change event
 * (which reads the windows as they are before the write), the write and the read-back.
 */

/** A window's dates as stored. */
export interface WindowValues {
  startsAt: number | null;
  endsAt: number | null;
  allowBeforeStart: boolean;
  allowAfterEnd: boolean;
}

export const WINDOW_COLUMNS = sql`w.id, w.course_id, w.group_id, w.level, w.module_id, w.lesson_id, w.starts_at, w.ends_at,
  w.allow_before_start, w.allow_after_end, w.created_at, w.updated_at`;

/** The body's dates: at least one bound, and a start no later than the end. */
export function windowValues(input: WindowInput): WindowValues {
  const startsAt = input.starts_at ? Date.parse(input.starts_at) : null;
  const endsAt = input.ends_at ? Date.parse(input.ends_at) : null;
  if (startsAt === null && endsAt === null) throw new ApiError(scheduleErrors.NO_BOUNDS);
  if (startsAt !== null && endsAt !== null && startsAt > endsAt) throw new ApiError(scheduleErrors.INVERTED);
  return { startsAt, endsAt, allowBeforeStart: input.allow_before_start ?? false, allowAfterEnd: input.allow_after_end ?? false };
}

interface Probe {
  target: number;
  module_window: number;
}

/** Whether the target is live and (lessons) its module has a window in the grid, as the batch finds them. */
function probe(ctx: SchoolCtx, node: WindowNode): BatchItem {
  return batchable(ctx, sql`SELECT EXISTS (${targetSql(ctx, node)}) AS target, ${moduleWindowSql(ctx, node)} AS module_window`);
}

function windowSelect(ctx: SchoolCtx, node: WindowNode): BatchItem {
  return batchable(
    ctx,
    sql`SELECT ${WINDOW_COLUMNS} FROM schedule_windows w
      WHERE ${inSchool("w", ctx.tenantId)} AND w.grid_key = ${gridKeyOf(node)} AND w.node_id = ${node.nodeId} AND w.deleted_at IS NULL`,
  );
}

function probed(result: unknown): Probe {
  const row = rowsOf<Probe>(result)[0];
  if (!row || row.target !== 1) throw new ApiError(scheduleErrors.TARGET_NOT_FOUND);
  return row;
}

/** `{window}`: the node's window in its grid, null when none is set. */
export async function getWindow(ctx: SchoolCtx, input: { node: WindowNode }) {
  const [probeResult, windowResult] = await runBatch(ctx, [probe(ctx, input.node), windowSelect(ctx, input.node)]);
  probed(probeResult);
  const row = rowsOf<RawWindow>(windowResult)[0];
  return { window: row ? presentWindow(row) : null };
}

/**
 * The upsert: inserted while the target is live (and, for a lesson, its module has a window in
 * the grid); on the live window of the node it updates the dates in place, and only when they
 * differ, so `updated_at` moves with real changes.
 */
function upsert(ctx: SchoolCtx, node: WindowNode, values: WindowValues, now: number): BatchItem {
  const { startsAt, endsAt } = values;
  const allowBefore = values.allowBeforeStart ? 1 : 0;
  const allowAfter = values.allowAfterEnd ? 1 : 0;
  return batchable(
    ctx,
    sql`INSERT INTO schedule_windows (id, tenant_id, course_id, group_id, grid_key, level, module_id, lesson_id, node_id,
        starts_at, ends_at, allow_before_start, allow_after_end, created_at, updated_at)
      SELECT ${uuidv7(now)}, ${ctx.tenantId}, tg.course_id, ${node.groupId}, ${gridKeyOf(node)}, ${node.level}, tg.module_id, tg.lesson_id, ${node.nodeId},
        ${startsAt}, ${endsAt}, ${allowBefore}, ${allowAfter}, ${now}, ${now}
      FROM (${targetSql(ctx, node)}) tg WHERE ${moduleWindowSql(ctx, node)}
      ON CONFLICT (grid_key, node_id) WHERE deleted_at IS NULL DO UPDATE SET
        starts_at = excluded.starts_at, ends_at = excluded.ends_at, allow_before_start = excluded.allow_before_start,
        allow_after_end = excluded.allow_after_end, updated_at = excluded.updated_at
      WHERE schedule_windows.starts_at IS NOT excluded.starts_at OR schedule_windows.ends_at IS NOT excluded.ends_at
        OR schedule_windows.allow_before_start <> excluded.allow_before_start OR schedule_windows.allow_after_end <> excluded.allow_after_end`,
  );
}

/** PUT: `{window}` as stored. */
export async function putWindow(ctx: SchoolCtx, input: { node: WindowNode; window: WindowInput }) {
  const { node } = input;
  const values = windowValues(input.window);
  const now = ctx.clock.now();
  const push = await windowChangedPush(ctx, node, values, now);
  const results = await runBatch(ctx, [probe(ctx, node), push, upsert(ctx, node, values, now), windowSelect(ctx, node)]);
  const found = probed(results[0]);
  if (found.module_window !== 1) throw new ApiError(scheduleErrors.MODULE_SCHEDULE_REQUIRED);
  const row = rowsOf<RawWindow>(results[3])[0];
  if (!row) throw new ApiError(scheduleErrors.TARGET_NOT_FOUND);
  await dispatchQueued(ctx);
  return { window: presentWindow(row) };
}

/** DELETE: `{cleared: true}`; 404 `schedule_window_not_found` when the node has no window in the grid. */
export async function clearWindow(ctx: SchoolCtx, input: { node: WindowNode }) {
  const { node } = input;
  const now = ctx.clock.now();
  const push = await windowChangedPush(ctx, node, null, now);
  const clear = batchable(
    ctx,
    sql`UPDATE schedule_windows SET deleted_at = ${now}
      WHERE ${clearedRowsSql(ctx, node)} AND EXISTS (${targetSql(ctx, node)}) AND ${windowExistsSql(ctx, node)}`,
  );
  const results = await runBatch(ctx, [probe(ctx, node), push, clear]);
  probed(results[0]);
  if (changedRows(results[2]) === 0) throw new ApiError(scheduleErrors.WINDOW_NOT_FOUND);
  await dispatchQueued(ctx);
  return { cleared: true as const };
}
