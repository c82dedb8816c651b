import { sql, type SQL } from "drizzle-orm";
import { batchable, rowsOf, runBatch } from "../../core/db/batch";
import { formatHundredths } from "../../core/db/decimal";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError, coreErrors } from "../../core/http/errors";
import { iso } from "../../core/lib/clock";
import type { RatingSourceType } from "../../db/schema";
import { coursesErrors } from "../courses/errors";
import { groupsErrors } from "../groups/errors";
import { groupVisibleSql } from "../groups/scope";
import { ratingErrors as e } from "./errors";
import { eventsBoardSql, hasEventFilters, snapshotBoardSql, totalsPageSql, totalsStatsSql, type BoardInput, type BoardRow, type BoardStats } from "./leaderboard-query";
import { readyWindowSql, requestWindow, snapshotBounds, windowTotalsSql } from "./windows";
import { optionalUuid, parseWindow, ratingView } from "./scope";
import { liveInSchool } from "../../core/db/conditions";

/** The query of GET /t/rating as the route validated it (the uuids are checked here, each with its own identifier). */
export interface LeaderboardQuery {
  group_id?: string;
  module_id?: string;
  source_id?: string;
  source_types?: RatingSourceType[];
  from?: string;
  to?: string;
  limit: number;
}

export interface LeaderboardEntry {
  rank: number;
  student_id: string;
  display_name: string;
  points: string;
}

/** The windowed board's one row: its counts and its page, each a JSON text. */
interface BoardJson {
  stats: string;
  entries: string;
}

/** The live group the caller may see, as a statement answering one row when it exists. */
export function visibleGroupSql(ctx: SchoolCtx, groupId: string): SQL {
  return sql`SELECT g.id FROM groups g WHERE g.id = ${groupId} AND ${groupVisibleSql(ctx, sql`g`)}`;
}

/** A live module of a live course of the school. */
export function liveModuleSql(ctx: SchoolCtx, moduleId: string): SQL {
  return sql`SELECT m.id FROM course_modules m JOIN courses mc ON mc.id = m.course_id AND ${liveInSchool("mc", ctx.tenantId)}
    WHERE m.id = ${moduleId} AND ${liveInSchool("m", ctx.tenantId)}`;
}

/**
 * The leaderboard (spec, GET /rating) projected by role: one D1 batch holding the group and module
 * checks, the page and the counts, so the read is two round trips with the guard's; a third asks
 * for a window's snapshot when the batch found none.
 */
export async function getLeaderboard(ctx: SchoolCtx, query: LeaderboardQuery) {
  const input: BoardInput = {
    groupId: optionalUuid(query.group_id, e.INVALID_GROUP_ID),
    moduleId: optionalUuid(query.module_id, e.INVALID_MODULE_ID),
    sourceId: optionalUuid(query.source_id, e.INVALID_SOURCE_ID),
    sourceTypes: query.source_types,
    window: parseWindow(query, coreErrors.INVALID_PARAMS),
    limit: query.limit,
  };
  const view = ratingView(ctx);
  const callerId = view === "student" ? ctx.actor.userId : null;
  const statements = [];
  if (input.groupId) statements.push(batchable(ctx, visibleGroupSql(ctx, input.groupId)));
  if (input.moduleId) statements.push(batchable(ctx, liveModuleSql(ctx, input.moduleId)));
  let rows: BoardRow[];
  let stats: BoardStats;
  if (hasEventFilters(input)) {
    // A time window alone may have a snapshot: both statements go in one batch and exactly one
    // answers, the snapshot's when it is ready, else the events' (docs/decisions/heavy-reads-rating.md, "Window snapshots").
    const bounds = snapshotBounds(input);
    const now = ctx.clock.now();
    const ready = bounds && readyWindowSql(ctx.tenantId, bounds, now);
    if (bounds && ready) statements.push(batchable(ctx, snapshotBoardSql(ctx, input, callerId, windowTotalsSql(ctx.tenantId, ready), ready)));
    statements.push(batchable(ctx, eventsBoardSql(ctx, input, callerId, ready)));
    const results = await runBatch(ctx, statements);
    checkFound(input, results);
    const fromSnapshot = bounds ? rowsOf<BoardJson>(results.at(-2))[0] : undefined;
    const board = fromSnapshot ?? rowsOf<BoardJson>(results.at(-1))[0]!;
    rows = JSON.parse(board.entries) as BoardRow[];
    stats = JSON.parse(board.stats) as BoardStats;
    if (bounds && !fromSnapshot) await requestWindow(ctx, bounds);
  } else {
    statements.push(batchable(ctx, totalsPageSql(ctx, input)), batchable(ctx, totalsStatsSql(ctx, input, callerId)));
    const results = await runBatch(ctx, statements);
    checkFound(input, results);
    rows = rowsOf<BoardRow>(results.at(-2));
    stats = rowsOf<BoardStats>(results.at(-1))[0]!;
  }
  return {
    entries: rankedEntries(rows, (row) => displayName(row, view === "student" && row.id !== ctx.actor.userId)),
    total_students: stats.total_students,
    ...(callerId === null ? {} : { caller_rank: Number(stats.caller_rank), caller_points: formatHundredths(stats.caller_points ?? 0) }),
    ...(input.window.from === undefined && input.window.to === undefined
      ? {}
      : { time_window: { from: input.window.from === undefined ? null : iso(input.window.from), to: input.window.to === undefined ? null : iso(input.window.to) } }),
  };
}

/** The group check comes first in the batch, then the module check; an empty answer is the 404. */
function checkFound(input: BoardInput, results: unknown[]): void {
  let index = 0;
  if (input.groupId && rowsOf(results[index++]).length === 0) throw new ApiError(groupsErrors.GROUP_NOT_FOUND);
  if (input.moduleId && rowsOf(results[index++]).length === 0) throw new ApiError(coursesErrors.MODULE_NOT_FOUND);
}

/**
 * Competition ranking (1, 1, 3) over a page that starts at the top of the board: a student's rank
 * is 1 + the students with more points, all of whom come before them on the page, so the first row
 * of each run of equal points has its position as its rank.
 */
function rankedEntries(rows: BoardRow[], name: (row: BoardRow) => string): LeaderboardEntry[] {
  const entries: LeaderboardEntry[] = [];
  rows.forEach((row, index) => {
    const previous = entries[index - 1];
    const rank = previous && rows[index - 1]!.points === row.points ? previous.rank : index + 1;
    entries.push({ rank, student_id: row.id, display_name: name(row), points: formatHundredths(row.points) });
  });
  return entries;
}

/** "Lola Bakirova", or for a student looking at someone else "Lola B." (first name and the surname's initial). */
export function displayName(row: { first_name: string; last_name: string }, short: boolean): string {
  if (!short) return `${row.first_name} ${row.last_name}`;
  const initial = Array.from(row.last_name.trim())[0];
  return initial === undefined ? row.first_name : `${row.first_name} ${initial}.`;
}
