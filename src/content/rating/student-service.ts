import { sql } from "drizzle-orm";
import { batchable, rowsOf, runBatch } from "../../core/db/batch";
import { containsText, inSchool, liveInSchool } from "../../core/db/conditions";
import { formatHundredths } from "../../core/db/decimal";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { iso } from "../../core/lib/clock";
import type { RatingSourceType } from "../../db/schema";
import { ratingErrors as e } from "./errors";
import { targetLabelSql } from "./labels";
import { schoolStatsSql } from "./leaderboard-query";
import { activeStudentSql } from "../common/access";
import { schoolTotalSql } from "./ranking";
import { parseWindow, studentVisibleSql, windowSql } from "./scope";

/** The student the caller may read, with their school total; no row answers 404 `student_not_found`. */
function visibleStudentSql(ctx: SchoolCtx, studentId: string) {
  return sql`SELECT u.id, u.is_active, ${schoolTotalSql(ctx.tenantId, sql`u.id`)} AS points FROM users u WHERE u.id = ${studentId} AND ${studentVisibleSql(ctx)}`;
}

interface StudentRow {
  id: string;
  is_active: number;
  points: number;
}

/**
 * A student's standing (spec, GET /admin/rating/students/:id/summary): school rank and total, and
 * their rank in each live group they belong to, all by school totals among active students. One
 * D1 batch: the student, the school figures, the group figures.
 */
export async function getStudentSummary(ctx: SchoolCtx, input: { id: string }) {
  const { tenantId } = ctx;
  const points = schoolTotalSql(tenantId, input.id);
  const active = sql`EXISTS (SELECT 1 FROM users su WHERE su.id = ${input.id} AND ${activeStudentSql(tenantId, sql`su`)})`;
  const results = await runBatch(ctx, [
    batchable(ctx, visibleStudentSql(ctx, input.id)),
    batchable(
      ctx,
      sql`SELECT s.total_students, CASE WHEN ${active} THEN s.caller_rank END AS school_rank FROM (${schoolStatsSql(tenantId, points)}) s`,
    ),
    // Every count starts from the group's members: CROSS JOIN fixes that order. Left to itself the
    // planner (no table statistics on D1) walked the school's students, or every total above the
    // student's, and probed each for membership: 5,000 rows for a group of two on the bench. The
    // student's groups come from `group_members_tenant_user`, not from the school's memberships.
    batchable(
      ctx,
      sql`SELECT g.id AS group_id, g.name AS group_name,
          (SELECT count(*) FROM group_members m CROSS JOIN users u ON u.id = m.user_id AND ${activeStudentSql(tenantId)} WHERE ${inSchool("m", tenantId)} AND m.group_id = g.id) AS total_students,
          CASE WHEN ${active} THEN 1 + (SELECT count(*) FROM group_members m CROSS JOIN users u ON u.id = m.user_id AND ${activeStudentSql(tenantId)}
              CROSS JOIN rating_totals t ON ${inSchool("t", tenantId)} AND t.student_id = m.user_id
            WHERE ${inSchool("m", tenantId)} AND m.group_id = g.id AND t.points_hundredths > (${points}))
            + CASE WHEN (${points}) < 0 THEN (SELECT count(*) FROM group_members m CROSS JOIN users u ON u.id = m.user_id AND ${activeStudentSql(tenantId)}
              WHERE ${inSchool("m", tenantId)} AND m.group_id = g.id
                AND NOT EXISTS (SELECT 1 FROM rating_totals z WHERE ${inSchool("z", tenantId)} AND z.student_id = m.user_id)) ELSE 0 END END AS rank
        FROM group_members gm INDEXED BY group_members_tenant_user CROSS JOIN groups g ON g.id = gm.group_id AND ${liveInSchool("g", tenantId)}
        WHERE ${inSchool("gm", tenantId)} AND gm.user_id = ${input.id}
        ORDER BY g.name COLLATE NOCASE, g.id`,
    ),
  ]);
  const student = rowsOf<StudentRow>(results[0])[0];
  if (!student) throw new ApiError(e.STUDENT_NOT_FOUND);
  const school = rowsOf<{ total_students: number; school_rank: number | null }>(results[1])[0]!;
  const total = formatHundredths(student.points);
  return {
    school_rank: school.school_rank,
    school_total: total,
    school_total_students: school.total_students,
    group_ranks: rowsOf<{ group_id: string; group_name: string; total_students: number; rank: number | null }>(results[2]).map((group) => ({
      group_id: group.group_id,
      group_name: group.group_name,
      rank: group.rank,
      total_points: total,
      total_students: group.total_students,
    })),
  };
}

export interface StudentEventsQuery {
  source_type?: RatingSourceType[];
  from?: string;
  to?: string;
  sign?: string;
  reason_search?: string;
  limit: number;
  offset: number;
}

const SIGNS = { positive: sql`pe.points_hundredths > 0`, negative: sql`pe.points_hundredths < 0`, all: sql`1` } as const;

interface EventRow {
  id: string;
  awarded_at: number;
  source_type: RatingSourceType;
  target_id: string | null;
  target_label: string | null;
  points_hundredths: number;
  rule_id: string | null;
  reason: string | null;
  actor_user_id: string | null;
  actor_display_name: string | null;
}

/**
 * A student's point events, newest first (spec, GET /admin/rating/students/:id/events), filtered
 * and paged, with the number of matches. One D1 batch: the student, the page, the count.
 */
export async function listStudentEvents(ctx: SchoolCtx, input: { id: string; query: StudentEventsQuery }) {
  const { query } = input;
  const window = parseWindow(query, e.INVALID_TIME);
  const sign = query.sign ?? "all";
  if (!Object.hasOwn(SIGNS, sign)) throw new ApiError(e.INVALID_SIGN);
  const { tenantId } = ctx;
  const matching = sql`${inSchool("pe", tenantId)} AND pe.student_id = ${input.id} AND ${windowSql(window)} AND ${SIGNS[sign as keyof typeof SIGNS]}
    ${query.source_type ? sql`AND pe.source_type IN (${sql.join(query.source_type.map((type) => sql`${type}`), sql`, `)})` : sql``}
    ${query.reason_search ? sql`AND ${containsText(sql`pe.reason`, query.reason_search)}` : sql``}`;
  const results = await runBatch(ctx, [
    batchable(ctx, visibleStudentSql(ctx, input.id)),
    batchable(
      ctx,
      sql`SELECT pe.id, pe.awarded_at, pe.source_type, pe.target_id, ${targetLabelSql(tenantId, sql`pe.source_type`, sql`pe.target_id`)} AS target_label,
          pe.points_hundredths, pe.rule_id, pe.reason, pe.actor_user_id,
          CASE WHEN a.id IS NULL THEN NULL ELSE a.first_name || ' ' || a.last_name END AS actor_display_name
        FROM point_events pe LEFT JOIN users a ON a.id = pe.actor_user_id
        WHERE ${matching}
        ORDER BY pe.awarded_at DESC, pe.id DESC LIMIT ${query.limit} OFFSET ${query.offset}`,
    ),
    batchable(ctx, sql`SELECT count(*) AS total FROM point_events pe WHERE ${matching}`),
  ]);
  if (rowsOf(results[0]).length === 0) throw new ApiError(e.STUDENT_NOT_FOUND);
  return {
    events: rowsOf<EventRow>(results[1]).map(({ points_hundredths, awarded_at, ...event }) => ({
      id: event.id,
      awarded_at: iso(awarded_at),
      source_type: event.source_type,
      target_id: event.target_id,
      target_label: event.target_label,
      points: formatHundredths(points_hundredths),
      rule_id: event.rule_id,
      reason: event.reason,
      actor_user_id: event.actor_user_id,
      actor_display_name: event.actor_display_name,
    })),
    total: rowsOf<{ total: number }>(results[2])[0]!.total,
    limit: query.limit,
    offset: query.offset,
  };
}
