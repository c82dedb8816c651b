import { z } from "@hono/zod-openapi";
import { sql, type SQL } from "drizzle-orm";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError, type ErrorEntry } from "../../core/http/errors";
import { UUID_PATTERN } from "../../core/lib/ids";
import { isRestrictedCurator, restrictedScope, scopeCondition } from "../../platform/schools/curator-scope";
import { activeStudentSql } from "../common/access";
import { inSchool } from "../../core/db/conditions";

/**
 * Who sees which students in the rating reads (docs/decisions/rating.md, "Reads"): a student the whole
 * school (short names of the others, their own rank), a restricted curator their own students, an
 * unrestricted curator, an admin and the superadmin everyone, with full names.
 */
export type RatingView = "student" | "restricted" | "full";

export function ratingView(ctx: Pick<SchoolCtx, "actor">): RatingView {
  if (ctx.actor.role === "student") return "student";
  return isRestrictedCurator(ctx.actor) ? "restricted" : "full";
}

/**
 * `u` (a `users` alias) is in the ranked population the caller sees: an active student of the
 * school, a member of the group when one is given, one of a restricted curator's students.
 */
export function populationSql(ctx: Pick<SchoolCtx, "actor" | "tenantId">, groupId: string | undefined, u: SQL = sql`u`): SQL {
  const group = groupId
    ? sql` AND ${u}.id IN (SELECT pg.user_id FROM group_members pg WHERE ${inSchool("pg", ctx.tenantId)} AND pg.group_id = ${groupId})`
    : sql``;
  const scope = scopeCondition(sql`${u}.id`, restrictedScope(ctx));
  return sql`${activeStudentSql(ctx.tenantId, u)}${group}${scope ? sql` AND ${scope}` : sql``}`;
}

/**
 * The population as a FROM clause with its WHERE (alias `u`), for reads that visit every student
 * of it: a group's members drive the loop (CROSS JOIN fixes the order), so a group costs its own
 * size, not a scan of the school's students.
 */
export function populationFromSql(ctx: Pick<SchoolCtx, "actor" | "tenantId">, groupId: string | undefined): SQL {
  const scope = scopeCondition(sql`u.id`, restrictedScope(ctx));
  const where = sql`${activeStudentSql(ctx.tenantId)}${scope ? sql` AND ${scope}` : sql``}`;
  if (!groupId) return sql`FROM users u WHERE ${where}`;
  return sql`FROM group_members pg CROSS JOIN users u ON u.id = pg.user_id WHERE ${inSchool("pg", ctx.tenantId)} AND pg.group_id = ${groupId} AND ${where}`;
}

/**
 * A user who is not ranked (anyone but an active student), spelled exactly as the WHERE of the
 * partial index `users_unranked` asked of migrations, so SQLite can answer from that small index.
 * Without the index the same statements are right, only slower.
 */
export function unrankedSql(x: SQL = sql`x`): SQL {
  return sql`NOT (${x}.role = 'student' AND ${x}.deleted_at IS NULL AND ${x}.is_active = 1)`;
}

/**
 * `u` is a student whose summary and events the caller may read: a live student of the school
 * (active or not) who is the caller, or one an admin, an unrestricted curator or the restricted
 * curator in charge manages. Anyone else reads nothing, which answers 404 `student_not_found`
 * exactly as a missing or foreign id does.
 */
export function studentVisibleSql(ctx: Pick<SchoolCtx, "actor" | "tenantId">, u: SQL = sql`u`): SQL {
  const live = sql`${inSchool(u, ctx.tenantId)} AND ${u}.role = 'student' AND ${u}.deleted_at IS NULL`;
  const { actor } = ctx;
  if (actor.role === "student") return sql`${live} AND ${u}.id = ${actor.userId}`;
  if (actor.role === "curator") {
    const scope = scopeCondition(sql`${u}.id`, restrictedScope(ctx));
    return scope ? sql`${live} AND ${scope}` : live;
  }
  return live;
}

/** An optional uuid of the query string, lower-cased; a malformed one answers the endpoint's own identifier. */
export function optionalUuid(value: string | undefined, invalid: ErrorEntry): string | undefined {
  if (value === undefined) return undefined;
  if (!UUID_PATTERN.test(value)) throw new ApiError(invalid);
  return value.toLowerCase();
}

const rfc3339 = z.iso.datetime({ offset: true });

/** A time window `[from, to)` of the query string in epoch ms; each bound optional, `from` before `to`. */
export interface TimeWindow {
  from?: number;
  to?: number;
}

/** Parses `from`/`to` (RFC 3339 with a zone); anything else, or `from` not before `to`, answers `invalid`. */
export function parseWindow(input: { from?: string; to?: string }, invalid: ErrorEntry): TimeWindow {
  const parse = (value: string | undefined, name: string) => {
    if (value === undefined) return undefined;
    if (!rfc3339.safeParse(value).success) throw new ApiError(invalid, { message: `${name} must be an RFC 3339 timestamp with a time zone, such as 2030-09-01T00:00:00Z.` });
    return Date.parse(value);
  };
  const window = { from: parse(input.from, "from"), to: parse(input.to, "to") };
  if (window.from !== undefined && window.to !== undefined && window.from >= window.to) throw new ApiError(invalid, { message: "from must be before to." });
  return window;
}

/** The event (`pe`) falls in the window: `from` inclusive, `to` exclusive. */
export function windowSql(window: TimeWindow, pe: SQL = sql`pe`): SQL {
  const parts = [
    window.from === undefined ? null : sql`${pe}.awarded_at >= ${window.from}`,
    window.to === undefined ? null : sql`${pe}.awarded_at < ${window.to}`,
  ].filter((part): part is SQL => part !== null);
  return parts.length === 0 ? sql`1` : sql.join(parts, sql` AND `);
}

/** "first last", the display name every rating read orders and ties by (case-insensitively). */
export function displayNameSql(u: SQL = sql`u`): SQL {
  return sql`(${u}.first_name || ' ' || ${u}.last_name) COLLATE NOCASE`;
}
