import { sql, type SQL } from "drizzle-orm";
import type { SchoolCtx } from "../../core/http/context";
import { isoOrNull } from "../../core/lib/clock";
import { inSchool, liveInSchool } from "../../core/db/conditions";

/**
 * Availability: which dates apply to a student, and what they close. Every read that shows a
 * window status, every gate and every change event reads the student's windows through
 * `effectiveWindowsSql`, the one rule (docs/decisions/schedules.md, "Schedules and availability"):
 * - the student's grid for a course is the group grids of the student's live groups that have at
 *   least one window in that course; with none, the default grid (`grid_key` '');
 * - per node, the most lenient window of those grids: the earliest opening (no start bound wins),
 *   the latest closing (no end bound wins), `allow_*` true if any grid allows it; a grid without a
 *   window on the node leaves it unrestricted, so the node has an effective window only when every
 *   one of the student's grids has one;
 * - a node without an effective window is open; availability is nested (a module is closed when
 *   its course is, a lesson when its module or course is).
 *
 * The rule lives in content/common because the course tree, enrollments and assignments read it
 * below the schedule area (docs/decisions/content-layers.md, "Windows and availability").
 */

/** A student's effective window on one node. */
export interface EffectiveWindow {
  startsAt: number | null;
  endsAt: number | null;
  allowBeforeStart: boolean;
  allowAfterEnd: boolean;
}

/** Why a window closes its node; modules and lessons use the course's identifiers too. */
export type Closure = "course_not_started" | "course_ended";

export interface WindowStatus {
  locked: boolean;
  locked_reason: Closure | null;
  available_from: string | null;
  available_until: string | null;
}

/**
 * The school's live windows, the source the rule reads. A change event reads the same rule over
 * the windows as they will be after its write (schedule/events.ts); a source offers at least the columns
 * `grid_key, course_id, node_id, starts_at, ends_at, allow_before_start, allow_after_end`.
 */
export function liveWindowsSql(tenantId: string | SQL): SQL {
  return sql`(SELECT * FROM schedule_windows WHERE ${liveInSchool(tenantId)})`;
}

interface RuleOptions {
  /** Only these nodes (ids as values or SQL); default every node of the course. */
  nodeIds?: readonly (string | SQL)[];
  source?: SQL;
}

/**
 * THE availability rule as one SELECT: the student's effective window per node of the course,
 * rows `(node_id, starts_at, ends_at, allow_before_start, allow_after_end)`. `courseId` and
 * `studentId` may be SQL referring to the enclosing statement, so one statement serves a page of
 * courses or a set of students; `tenantId` may be SQL too (the scans write ids as literals to stay
 * under D1's limit of bound parameters).
 */
export function effectiveWindowsSql(tenantId: string | SQL, courseId: string | SQL, studentId: string | SQL, options: RuleOptions = {}): SQL {
  const source = options.source ?? liveWindowsSql(tenantId);
  const nodes = options.nodeIds ? sql`sww.node_id IN (${sql.join([...options.nodeIds].map((id) => sql`${id}`), sql`, `)})` : sql`1`;
  // Common tables keep the statement's bound parameters few: D1 takes 100 per statement, and
  // reads embed this rule next to their own conditions.
  return sql`WITH sw_course AS (SELECT sws.grid_key, sws.node_id, sws.starts_at, sws.ends_at, sws.allow_before_start, sws.allow_after_end
        FROM ${source} sws WHERE sws.course_id = ${courseId}),
      sw_grids AS (SELECT swg.grid_key FROM sw_course swg
          JOIN groups swg_g ON swg_g.id = swg.grid_key AND ${liveInSchool("swg_g", tenantId)}
          JOIN group_members swg_m ON swg_m.group_id = swg.grid_key AND ${inSchool("swg_m", tenantId)} AND swg_m.user_id = ${studentId}
        WHERE swg.grid_key <> '' GROUP BY swg.grid_key)
    SELECT sww.node_id,
      CASE WHEN count(sww.starts_at) = count(*) THEN min(sww.starts_at) END AS starts_at,
      CASE WHEN count(sww.ends_at) = count(*) THEN max(sww.ends_at) END AS ends_at,
      max(sww.allow_before_start) AS allow_before_start,
      max(sww.allow_after_end) AS allow_after_end
    FROM sw_course sww
    WHERE ${nodes}
      AND (sww.grid_key IN (SELECT grid_key FROM sw_grids) OR (sww.grid_key = '' AND NOT EXISTS (SELECT 1 FROM sw_grids)))
    GROUP BY sww.node_id
    HAVING count(*) = max(1, (SELECT count(*) FROM sw_grids))`;
}

/**
 * The same rule for a set of students at once: `pairs` names a relation (a common table) with
 * columns `student_id, course_id`; rows `(student_id, course_id, node_id, starts_at, ends_at,
 * allow_before_start, allow_after_end)`, one per student, course and node with an effective window.
 * `effectiveWindowsSql` evaluated per student re-reads the course's windows and the student's grids
 * for every row of the enclosing statement (about 0.2 ms each in SQLite); here each is read once
 * for the whole set and joined, which is what a report over thousands of students needs
 * (docs/decisions/heavy-reads.md, "Curator analytics"). Every step mirrors the per-student rule:
 * the grids are the live groups the student is in that have a window in the course, a row counts
 * when its grid is one of them (or is the default grid and there are none), and a node has an
 * effective window only when every grid has one.
 */
export function effectiveWindowsOfSql(tenantId: string | SQL, pairs: SQL): SQL {
  return sql`WITH ewp_w AS MATERIALIZED (SELECT w.grid_key, w.course_id, w.node_id, w.starts_at, w.ends_at, w.allow_before_start, w.allow_after_end
        FROM ${liveWindowsSql(tenantId)} w WHERE w.course_id IN (SELECT course_id FROM ${pairs})),
      ewp_g AS MATERIALIZED (SELECT DISTINCT p.student_id, p.course_id, w.grid_key FROM ${pairs} p
          JOIN ewp_w w ON w.course_id = p.course_id AND w.grid_key <> ''
          JOIN groups g ON g.id = w.grid_key AND ${liveInSchool("g", tenantId)}
          JOIN group_members m ON m.group_id = w.grid_key AND ${inSchool("m", tenantId)} AND m.user_id = p.student_id),
      ewp_n AS MATERIALIZED (SELECT p.student_id, p.course_id, count(g.grid_key) AS grids FROM ${pairs} p
          LEFT JOIN ewp_g g ON g.student_id = p.student_id AND g.course_id = p.course_id
        GROUP BY p.student_id, p.course_id)
    SELECT n.student_id, n.course_id, w.node_id,
      CASE WHEN count(w.starts_at) = count(*) THEN min(w.starts_at) END AS starts_at,
      CASE WHEN count(w.ends_at) = count(*) THEN max(w.ends_at) END AS ends_at,
      max(w.allow_before_start) AS allow_before_start,
      max(w.allow_after_end) AS allow_after_end
    FROM ewp_n n JOIN ewp_w w ON w.course_id = n.course_id
      LEFT JOIN ewp_g g ON g.student_id = n.student_id AND g.course_id = n.course_id AND g.grid_key = w.grid_key
    WHERE g.grid_key IS NOT NULL OR (w.grid_key = '' AND n.grids = 0)
    GROUP BY n.student_id, n.course_id, w.node_id
    HAVING count(*) = max(1, max(n.grids))`;
}

/** The rule's rows as one JSON text `[[node_id, starts_at, ends_at, allow_before_start, allow_after_end], …]`. */
export function effectiveWindowsJsonSql(tenantId: string, courseId: string | SQL, studentId: string | SQL, options: RuleOptions = {}): SQL {
  return sql`(SELECT json_group_array(json_array(ew.node_id, ew.starts_at, ew.ends_at, ew.allow_before_start, ew.allow_after_end))
    FROM (${effectiveWindowsSql(tenantId, courseId, studentId, options)}) ew)`;
}

/** One node's effective window as JSON `[starts_at, ends_at, allow_before_start, allow_after_end]`, NULL when it has none. */
export function nodeWindowSql(tenantId: string, courseId: string | SQL, studentId: string | SQL, nodeId: string | SQL, source?: SQL): SQL<string | null> {
  return sql<string | null>`(SELECT json_array(nw.starts_at, nw.ends_at, nw.allow_before_start, nw.allow_after_end)
    FROM (${effectiveWindowsSql(tenantId, courseId, studentId, { nodeIds: [nodeId], ...(source ? { source } : {}) })}) nw)`;
}

type Packed = [number | null, number | null, number | null, number | null];

function unpackWindow([startsAt, endsAt, allowBeforeStart, allowAfterEnd]: Packed): EffectiveWindow {
  return { startsAt, endsAt, allowBeforeStart: allowBeforeStart === 1, allowAfterEnd: allowAfterEnd === 1 };
}

/** `effectiveWindowsJsonSql`'s text as a map by node id (empty for NULL: staff read none). */
export function parseWindows(text: string | null | undefined): Map<string, EffectiveWindow> {
  const rows = text ? (JSON.parse(text) as [string, ...Packed][]) : [];
  return new Map(rows.map(([nodeId, ...packed]) => [nodeId, unpackWindow(packed)]));
}

/** `nodeWindowSql`'s text as a window, or null. */
export function parseNodeWindow(text: string | null | undefined): EffectiveWindow | null {
  return text ? unpackWindow(JSON.parse(text) as Packed) : null;
}

/** What a node's own window closes at `now`: before a start it does not allow, after an end it does not allow. */
export function closureOf(window: EffectiveWindow | null | undefined, now: number): Closure | null {
  if (!window) return null;
  if (window.startsAt !== null && now < window.startsAt && !window.allowBeforeStart) return "course_not_started";
  if (window.endsAt !== null && now > window.endsAt && !window.allowAfterEnd) return "course_ended";
  return null;
}

/**
 * A node's status for a student: `chain` is the node's ancestry from the course down to the node
 * (`[course]`, `[course, module]`, `[course, module, lesson]`). Locked by the outermost closed
 * node of the chain, with that node's reason; `available_from`/`available_until` are the node's
 * own effective bounds (null when it has no window of its own).
 */
export function nodeStatus(windows: ReadonlyMap<string, EffectiveWindow>, chain: readonly string[], now: number): WindowStatus {
  const reason = chain.map((id) => closureOf(windows.get(id), now)).find((closure) => closure !== null) ?? null;
  const own = windows.get(chain[chain.length - 1]!);
  return { locked: reason !== null, locked_reason: reason, available_from: isoOrNull(own?.startsAt), available_until: isoOrNull(own?.endsAt) };
}

/** The effective windows of a lesson's chain (course, module, lesson) for the caller, as JSON; `lesson` is an alias of `lessons`. */
export function lessonChainWindowsSql(ctx: Pick<SchoolCtx, "tenantId" | "actor">, lesson: SQL): SQL {
  return effectiveWindowsJsonSql(ctx.tenantId, sql`${lesson}.course_id`, ctx.actor.userId, {
    nodeIds: [sql`${lesson}.course_id`, sql`${lesson}.module_id`, sql`${lesson}.id`],
  });
}

/**
 * SQL true when the student's dates have not opened the lesson (alias of a row with `id,
 * module_id, course_id`) at `now`: a node of its chain is before a start it does not allow
 * (`closureOf`'s `course_not_started`, in SQL so a read folds it into its own statement).
 */
export function chainNotStartedSql(tenantId: string, lesson: SQL, studentId: string | SQL, now: number): SQL {
  const chain = effectiveWindowsSql(tenantId, sql`${lesson}.course_id`, studentId, {
    nodeIds: [sql`${lesson}.course_id`, sql`${lesson}.module_id`, sql`${lesson}.id`],
  });
  return sql`EXISTS (SELECT 1 FROM (${chain}) ns_w WHERE ns_w.starts_at IS NOT NULL AND ${now} < ns_w.starts_at AND ns_w.allow_before_start = 0)`;
}
