import { sql, type SQL } from "drizzle-orm";
import { batchable, changedRows, rowsOf, runBatch } from "../../core/db/batch";
import { inSchool } from "../../core/db/conditions";
import type { SchoolActor, SchoolCtx } from "../../core/http/context";
import { DAY_MS, MINUTE_MS } from "../../core/lib/clock";
import { uuidv7 } from "../../core/lib/ids";
import { log } from "../../core/lib/log";
import type { TimeWindow } from "./scope";

/**
 * Window snapshots of the rating board (docs/decisions/heavy-reads-rating.md, "Window snapshots"):
 * a time window's per-student sums kept in `rating_window_totals`, exact from the moment the window
 * row exists (the triggers of migration `rating_windows` add each point event inside it), built for
 * the events already there by the `lms-rating-windows` queue, a run of students per message.
 */

/** A snapshot is read while a read asked for it within this long; past it the next read asks again, and the queue removes windows nobody asked for. */
export const WINDOW_TTL_MS = 7 * DAY_MS;
/** A window still building is asked for again (a lost message) at most once in this long. */
export const WINDOW_DEBOUNCE_MS = MINUTE_MS;
/** Students summed per queue message: one statement over their events of the window. */
export const WINDOW_RUN = 1_000;
/** Windows a school keeps at once; a board over one more window is answered from the events, as before. */
export const WINDOWS_PER_SCHOOL = 16;

/** An open end is stored as the far past or future: every instant lies inside it. */
const OPEN_FROM = Number.MIN_SAFE_INTEGER;
const OPEN_TO = Number.MAX_SAFE_INTEGER;

export interface WindowBounds {
  fromMs: number;
  toMs: number;
}

/** The board's filters a snapshot can answer: a time window and nothing else (a module, object or source type filter reads the events). */
export function snapshotBounds(filters: { moduleId?: string; sourceId?: string; sourceTypes?: readonly string[]; window: TimeWindow }): WindowBounds | null {
  if (filters.moduleId !== undefined || filters.sourceId !== undefined || filters.sourceTypes !== undefined) return null;
  const { window } = filters;
  if (window.from === undefined && window.to === undefined) return null;
  return { fromMs: window.from ?? OPEN_FROM, toMs: window.to ?? OPEN_TO };
}

/** The id of the window's snapshot when it is built and was asked for within the TTL, else NULL (a scalar subquery). */
export function readyWindowSql(tenantId: string, bounds: WindowBounds, now: number): SQL {
  return sql`(SELECT w.id FROM rating_windows w WHERE ${inSchool("w", tenantId)} AND w.from_ms = ${bounds.fromMs} AND w.to_ms = ${bounds.toMs}
    AND w.ready_at IS NOT NULL AND w.requested_at > ${now - WINDOW_TTL_MS})`;
}

/** The sums of the window `ready` names (`readyWindowSql`) shaped like `rating_totals` (no rows when it is NULL), for the board's statements. */
export function windowTotalsSql(tenantId: string, ready: SQL): SQL {
  return sql`(SELECT wt.tenant_id, wt.student_id, wt.points_hundredths FROM rating_window_totals wt
    WHERE ${inSchool("wt", tenantId)} AND wt.window_id = ${ready})`;
}

/**
 * Asks for the window's snapshot after a read found none: creates the window (below the school's
 * cap of windows asked for within the TTL) or refreshes its `requested_at`. A window still
 * building is asked for again only after the debounce. Then the queue gets the first run when the
 * window has no sums yet; a refreshed, built one needs none, since the triggers kept it exact.
 */
export async function requestWindow(ctx: SchoolCtx<SchoolActor>, bounds: WindowBounds): Promise<void> {
  const now = ctx.clock.now();
  const t = ctx.tenantId;
  const [asked] = await runBatch(ctx, [
    batchable(
      ctx,
      sql`INSERT INTO rating_windows (id, tenant_id, from_ms, to_ms, requested_at, ready_at)
        SELECT ${uuidv7(now)}, ${t}, ${bounds.fromMs}, ${bounds.toMs}, ${now}, NULL
        WHERE (SELECT count(*) FROM rating_windows c WHERE ${inSchool("c", t)} AND c.requested_at > ${now - WINDOW_TTL_MS}) < ${WINDOWS_PER_SCHOOL}
          OR EXISTS (SELECT 1 FROM rating_windows e WHERE ${inSchool("e", t)} AND e.from_ms = ${bounds.fromMs} AND e.to_ms = ${bounds.toMs})
        ON CONFLICT (tenant_id, from_ms, to_ms) DO UPDATE SET requested_at = excluded.requested_at
        WHERE rating_windows.ready_at IS NOT NULL OR rating_windows.requested_at <= ${now - WINDOW_DEBOUNCE_MS}
        RETURNING id, ready_at`,
    ),
  ]);
  const window = rowsOf<{ id: string; ready_at: number | null }>(asked)[0];
  if (!window || window.ready_at !== null) return;
  await sendWindowRun(ctx, window.id, "");
}

/** Sends a run of the window's build: the students after `after` ("" for the first). */
export async function sendWindowRun(ctx: SchoolCtx<SchoolActor>, windowId: string, after: string): Promise<void> {
  await ctx.env.RATING_WINDOWS.send({ kind: "rating_window", tenant_id: ctx.tenantId, window_id: windowId, after }).catch((err: unknown) => {
    // The window stays unbuilt; a read after the debounce asks again.
    log.error("rating window run not sent", { window_id: windowId, error: String(err) });
  });
}

/**
 * One run of a window's build: the sums of the next `WINDOW_RUN` students (in id order, after
 * `after`) over the window's events, read from the `point_events_student` index alone, written over
 * whatever the triggers put there meanwhile (a sum read now already holds those events). After the
 * last run the window is ready. A window removed meanwhile sums nothing. Safe to run again.
 */
export async function buildWindowRun(ctx: SchoolCtx<SchoolActor>, input: { windowId: string; after: string; run?: number }): Promise<{ done: boolean; last: string | null }> {
  const t = ctx.tenantId;
  const run = input.run ?? WINDOW_RUN;
  const [written] = await runBatch(ctx, [
    batchable(
      ctx,
      sql`INSERT INTO rating_window_totals (tenant_id, window_id, student_id, points_hundredths)
        SELECT w.tenant_id, w.id, pe.student_id, sum(pe.points_hundredths)
        FROM rating_windows w JOIN point_events pe ON ${inSchool("pe", t)} AND pe.student_id > ${input.after}
          AND pe.awarded_at >= w.from_ms AND pe.awarded_at < w.to_ms
        WHERE ${inSchool("w", t)} AND w.id = ${input.windowId}
        GROUP BY pe.student_id ORDER BY pe.student_id LIMIT ${run}
        ON CONFLICT (tenant_id, window_id, student_id) DO UPDATE SET points_hundredths = excluded.points_hundredths
        RETURNING student_id`,
    ),
  ]);
  const students = rowsOf<{ student_id: string }>(written).map((row) => row.student_id);
  const last = students.reduce<string | null>((max, id) => (max === null || id > max ? id : max), null);
  if (students.length === run) return { done: false, last };
  await runBatch(ctx, [
    batchable(ctx, sql`UPDATE rating_windows SET ready_at = ${ctx.clock.now()} WHERE ${inSchool("rating_windows", t)} AND id = ${input.windowId} AND ready_at IS NULL`),
  ]);
  return { done: true, last };
}

/**
 * Removes the school's windows nobody asked for within the TTL: the window rows first (the
 * triggers stop adding to them and no read finds them), then their sums, `WINDOW_RUN` rows per
 * statement. A crash between leaves sums no window names, which nothing reads.
 */
export async function removeStaleWindows(ctx: SchoolCtx<SchoolActor>): Promise<number> {
  const t = ctx.tenantId;
  const [removed] = await runBatch(ctx, [
    batchable(ctx, sql`DELETE FROM rating_windows WHERE ${inSchool("rating_windows", t)} AND requested_at <= ${ctx.clock.now() - WINDOW_TTL_MS} RETURNING id`),
  ]);
  const ids = rowsOf<{ id: string }>(removed).map((row) => row.id);
  for (const windowId of ids) {
    for (;;) {
      const [gone] = await runBatch(ctx, [
        batchable(
          ctx,
          sql`DELETE FROM rating_window_totals WHERE ${inSchool("rating_window_totals", t)} AND window_id = ${windowId} AND student_id IN
            (SELECT r.student_id FROM rating_window_totals r WHERE ${inSchool("r", t)} AND r.window_id = ${windowId} LIMIT ${WINDOW_RUN})`,
        ),
      ]);
      if (changedRows(gone) < WINDOW_RUN) break;
    }
  }
  return ids.length;
}
