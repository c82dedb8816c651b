import { sql, type SQL } from "drizzle-orm";
import type { SchoolCtx } from "../../core/http/context";
import type { RatingSourceType } from "../../db/schema";
import { displayNameSql, populationFromSql, populationSql, ratingView, unrankedSql, windowSql, type TimeWindow } from "./scope";
import { inSchool } from "../../core/db/conditions";

/**
 * The leaderboard's statements. Without event filters the board reads the stored totals
 * (`rating_totals`) from the top of the `rating_totals_points` index, so a page costs its own rows,
 * not a sort of the school; with filters it sums the matching point events per student.
 */

export interface EventFilters {
  moduleId?: string;
  sourceId?: string;
  sourceTypes?: RatingSourceType[];
  window: TimeWindow;
}

export interface BoardInput extends EventFilters {
  groupId?: string;
  limit: number;
}

/** A row of the page, in board order (points descending, then display name, then id). */
export interface BoardRow {
  id: string;
  points: number;
  first_name: string;
  last_name: string;
}

export interface BoardStats {
  total_students: number;
  caller_points: number | null;
  caller_rank: number | null;
}

export function hasEventFilters(input: EventFilters): boolean {
  return input.moduleId !== undefined || input.sourceId !== undefined || input.sourceTypes !== undefined || input.window.from !== undefined || input.window.to !== undefined;
}

type Caller = Pick<SchoolCtx, "actor" | "tenantId">;

/** The stored totals; the filtered board reads the same statements over its own sums instead. */
const RATING_TOTALS = sql`rating_totals`;

/**
 * The page over the stored totals: the students with positive totals from the top of the
 * `rating_totals_points` index, then those at zero (no row, or a row back at 0) by name, then
 * those below zero, each part ordered and cut to the page on its own. UNION ALL under one LIMIT
 * stops at the first part that fills the page, so the zero part (which has to sort by name) and the
 * negative part run only when the students above them do not fill it. `positiveFloor` may narrow
 * the positive part to the rows that can reach the page (see `eventsBoardSql`).
 */
export function totalsPageSql(ctx: Caller, input: BoardInput, table: SQL = RATING_TOTALS, positiveFloor: SQL = sql`0`): SQL {
  const { tenantId } = ctx;
  const member = populationSql(ctx, input.groupId);
  const name = displayNameSql();
  const signed = (condition: SQL) => sql`SELECT * FROM (SELECT t.student_id AS id, t.points_hundredths AS points, u.first_name, u.last_name
      FROM ${table} t JOIN users u ON u.id = t.student_id AND ${member}
      WHERE ${inSchool("t", tenantId)} AND ${condition}
      ORDER BY t.points_hundredths DESC, ${name}, u.id LIMIT ${input.limit})`;
  return sql`${signed(sql`t.points_hundredths > 0 AND t.points_hundredths >= ${positiveFloor}`)}
    UNION ALL SELECT * FROM (SELECT u.id, 0 AS points, u.first_name, u.last_name ${populationFromSql(ctx, input.groupId)}
      AND NOT EXISTS (SELECT 1 FROM ${table} z WHERE ${inSchool("z", tenantId)} AND z.student_id = u.id AND z.points_hundredths <> 0)
      ORDER BY ${name}, u.id LIMIT ${input.limit})
    UNION ALL ${signed(sql`t.points_hundredths < 0`)}
    LIMIT ${input.limit}`;
}

/**
 * The population's size and, for a student caller, their points and rank over the stored totals:
 * 1 + the students of the population with more points; below zero, the students without a row
 * (at 0) are above too. A group or a curator's students are counted by visiting them.
 */
export function totalsStatsSql(ctx: Caller, input: BoardInput, callerId: string | null, table: SQL = RATING_TOTALS): SQL {
  const { tenantId } = ctx;
  const population = populationFromSql(ctx, input.groupId);
  const schoolWide = input.groupId === undefined && ratingView(ctx) !== "restricted";
  const callerPoints = sql`COALESCE((SELECT ct.points_hundredths FROM ${table} ct WHERE ${inSchool("ct", tenantId)} AND ct.student_id = ${callerId ?? ""}), 0)`;
  if (schoolWide) return schoolStatsSql(tenantId, callerId === null ? null : callerPoints, table);
  const total = sql`(SELECT count(*) ${population})`;
  if (callerId === null) return sql`SELECT ${total} AS total_students, NULL AS caller_points, NULL AS caller_rank`;
  const above = sql`(SELECT count(*) ${population} AND COALESCE((SELECT pt.points_hundredths FROM ${table} pt WHERE ${inSchool("pt", tenantId)} AND pt.student_id = u.id), 0) > c.points)`;
  return sql`SELECT c.total_students, c.points AS caller_points, 1 + ${above} AS caller_rank
    FROM (SELECT ${total} AS total_students, ${callerPoints} AS points) c`;
}

/**
 * The school-wide figures without visiting the board: the school's students (an index count) less
 * the unranked ones (the few inactive, deleted or former students; from the partial index
 * `users_unranked` once migrations have it, a scan of the school's users until then), all read in
 * one pass over the unranked users. With `points` (a student caller's total), their rank: the
 * totals rows above (a count on the `rating_totals_points` index) less those of unranked users
 * (every row belongs to a user of the school: a permanent deletion removes the user's rows), and,
 * below zero, the active students without a row (the active students less the ranked rows).
 */
export function schoolStatsSql(tenantId: string, points: SQL | null, table: SQL = RATING_TOTALS): SQL {
  const rows = (condition: SQL) => sql`EXISTS (SELECT 1 FROM ${table} z WHERE ${inSchool("z", tenantId)} AND z.student_id = x.id AND ${condition})`;
  const counted = (expression: SQL) => sql`COALESCE(sum(CASE WHEN x.id IS NULL THEN 0 ELSE ${expression} END), 0)`;
  // Counted only below zero, where the rank needs it: a count of every row is most of the statement
  // for a caller at or above zero and for the admin's board (docs/decisions/heavy-reads-rating.md,
  // "Rows counted only when the rank needs them").
  const rowsAll = sql`(SELECT count(*) FROM ${table} t WHERE ${inSchool("t", tenantId)})`;
  return sql`SELECT c.total_students, c.points AS caller_points,
      CASE WHEN c.points IS NULL THEN NULL ELSE 1 + c.rows_above - c.unranked_above
        + CASE WHEN c.points < 0 THEN c.total_students - (${rowsAll} - c.unranked_with_row) ELSE 0 END END AS caller_rank
    FROM (SELECT (SELECT count(*) FROM users s WHERE ${inSchool("s", tenantId)} AND s.role = 'student') - ${counted(sql`x.role = 'student'`)} AS total_students,
        p.points,
        (SELECT count(*) FROM ${table} t WHERE ${inSchool("t", tenantId)} AND t.points_hundredths > p.points) AS rows_above,
        ${counted(sql`${rows(sql`z.points_hundredths > p.points`)}`)} AS unranked_above,
        ${counted(rows(sql`1`))} AS unranked_with_row
      FROM (SELECT ${points ?? sql`NULL`} AS points) p LEFT JOIN users x ON ${inSchool("x", tenantId)} AND ${unrankedSql()}) c`;
}

/** The point event (`pe`) matches the filters (module, object, source types, time window). */
export function eventFilterSql(tenantId: string, filters: EventFilters): SQL {
  const parts: SQL[] = [sql`${inSchool("pe", tenantId)}`, windowSql(filters.window)];
  if (filters.sourceId !== undefined) parts.push(sql`pe.target_id = ${filters.sourceId}`);
  if (filters.sourceTypes !== undefined) parts.push(sql`pe.source_type IN (${sql.join(filters.sourceTypes.map((type) => sql`${type}`), sql`, `)})`);
  if (filters.moduleId !== undefined) parts.push(moduleEventSql(tenantId, filters.moduleId));
  return sql.join(parts, sql` AND `);
}

/**
 * The event's object belongs to the module: the module itself, one of its live lessons, or a quiz
 * or assignment a live block of those lessons references. Exams stay standalone.
 */
function moduleEventSql(tenantId: string, moduleId: string): SQL {
  const liveLessons = sql`SELECT ml.id FROM lessons ml WHERE ${inSchool("ml", tenantId)} AND ml.module_id = ${moduleId} AND ml.deleted_at IS NULL`;
  const referenced = (type: string) => sql`SELECT mb.ref_id FROM blocks mb
      WHERE ${inSchool("mb", tenantId)} AND mb.lesson_id IN (${liveLessons}) AND mb.type = ${type} AND mb.deleted_at IS NULL AND mb.ref_id IS NOT NULL`;
  return sql`((pe.source_type = 'module' AND pe.target_id = ${moduleId})
      OR (pe.source_type = 'lesson' AND pe.target_id IN (${liveLessons}))
      OR (pe.source_type = 'quiz' AND pe.target_id IN (${referenced("quiz_ref")}))
      OR (pe.source_type = 'assignment' AND pe.target_id IN (${referenced("assignment_ref")})))`;
}

/**
 * The board over `table` (shaped like `rating_totals`) as one row of two JSON texts, the counts and
 * the page, answered only when `guard` holds. Every read of `table` sits in a scalar subquery of a
 * row with no FROM, so a false guard ends the statement before any of them runs (a guarded FROM
 * subquery would be computed first).
 */
function boardRowSql(ctx: Caller, input: BoardInput, callerId: string | null, table: SQL, guard: SQL): SQL {
  const { tenantId } = ctx;
  // School-wide, the page can only hold rows at or above the page-th highest sum of a ranked
  // student (the unranked are the few rows of `users_unranked`), found by a bounded sort of the
  // sums alone; only those rows then meet their names. A group or a restricted curator's students
  // are few enough to join in full.
  const schoolWide = input.groupId === undefined && ratingView(ctx) !== "restricted";
  const floor = schoolWide
    ? sql`COALESCE((SELECT f.points_hundredths FROM ${table} f
        WHERE f.student_id NOT IN (SELECT x.id FROM users x WHERE ${inSchool("x", tenantId)} AND ${unrankedSql()})
        ORDER BY f.points_hundredths DESC LIMIT 1 OFFSET ${input.limit - 1}), 0)`
    : sql`0`;
  return sql`SELECT (SELECT json_object('total_students', s.total_students, 'caller_points', s.caller_points, 'caller_rank', s.caller_rank)
        FROM (${totalsStatsSql(ctx, input, callerId, table)}) s) AS stats,
      (SELECT json_group_array(json_object('id', b.id, 'points', b.points, 'first_name', b.first_name, 'last_name', b.last_name))
        FROM (${totalsPageSql(ctx, input, table, floor)}) b) AS entries
    WHERE ${guard}`;
}

/**
 * The filtered board from the events in one statement: the matching events summed per student once
 * (`window_totals`, shaped like `rating_totals`), then the very page and counts the stored totals
 * answer, read over those sums (docs/decisions/heavy-reads-rating.md, "Rating buckets"). A window
 * reads its events from the covering index `point_events_awarded_points` in time order, so the
 * work is the window's events plus a sort of the students who have some, never a visit of every
 * student of the school; the page and the counts of students with a sum of 0 follow the totals'
 * rules (no row counts as 0). MATERIALIZED: D1's SQLite would otherwise inline the CTE into each
 * of its readers and sum the events again for each. With `unlessReady` (a window a snapshot may
 * hold) it answers only when that snapshot is not ready, so it can share a batch with `snapshotBoardSql`.
 */
export function eventsBoardSql(ctx: Caller, input: BoardInput, callerId: string | null, unlessReady: SQL | null = null): SQL {
  const guard = unlessReady === null ? sql`1` : sql`${unlessReady} IS NULL`;
  return sql`WITH window_totals AS MATERIALIZED (SELECT pe.tenant_id, pe.student_id, sum(pe.points_hundredths) AS points_hundredths
        FROM point_events pe WHERE ${eventFilterSql(ctx.tenantId, input)} GROUP BY pe.student_id)
    ${boardRowSql(ctx, input, callerId, sql`window_totals`, guard)}`;
}

/**
 * The windowed board from the window's snapshot (docs/decisions/heavy-reads-rating.md, "Window
 * snapshots"): the same page and counts over its sums, answered only when `ready` (the snapshot's
 * id) is not NULL.
 */
export function snapshotBoardSql(ctx: Caller, input: BoardInput, callerId: string | null, totals: SQL, ready: SQL): SQL {
  return boardRowSql(ctx, input, callerId, totals, sql`${ready} IS NOT NULL`);
}
