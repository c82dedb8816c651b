import { sql, type SQL } from "drizzle-orm";
import { containsText } from "../../core/db/conditions";
import type { ServiceContext, SchoolCtx } from "../../core/http/context";
import { iso } from "../../core/lib/clock";
import { mediaUrl } from "../../platform/media/links";
import { sourceKey } from "../enrollments/sources";
import { memberCountSql } from "./present";

/**
 * Reads of a course's group links. The access counts are about live students whose active
 * enrollment holds the group's `group:<id>` source, measured set-based over the picked links in one
 * statement: `would_remove` those for whom it is the only source (removing the link closes their
 * enrollment, exactly what DELETE answers as `removed_count`), `would_retain` those with another.
 */

/** A live student of the school (alias `u`). */
const liveStudent = (tenantId: string, user: SQL) => sql`${inSchool(user, tenantId)} AND ${user}.role = 'student' AND ${user}.deleted_at IS NULL`;

/**
 * The active enrollments of live students holding the source with this key (SQL) in the course,
 * each with its number of sources. Columns: `source_key`, `student_id`, `sources`.
 */
export function heldSql(tenantId: string, courseId: string, keys: SQL): SQL {
  return sql`SELECT s.source_key, s.student_id, (SELECT count(*) FROM enrollment_sources o WHERE o.enrollment_id = s.enrollment_id) AS sources
    FROM enrollment_sources s
      JOIN enrollments e ON e.id = s.enrollment_id AND ${inSchool("e", tenantId)} AND e.removed_at IS NULL
      JOIN users u ON u.id = s.student_id AND ${liveStudent(tenantId, sql`u`)}
    WHERE ${inSchool("s", tenantId)} AND s.course_id = ${courseId} AND s.source_key IN (${keys})`;
}

/** The group's source key as SQL over a group id column. */
const groupKeySql = (groupId: SQL) => sql`'group:' || ${groupId}`;

export interface LinkFilter {
  groupId?: string;
  q?: string;
  page?: { limit: number; offset: number };
}

/** The course's links to live groups meeting the filter (alias `l` for the link, `g` for the group). */
function linksWhere(tenantId: string, courseId: string, filter: LinkFilter): SQL {
  return sql`${inSchool("l", tenantId)} AND l.course_id = ${courseId}
    ${filter.groupId ? sql`AND l.group_id = ${filter.groupId}` : sql``}
    ${filter.q ? sql`AND ${containsText(sql`g.name`, filter.q)}` : sql``}`;
}

const linksFrom = (tenantId: string) => sql`course_group_enrollments l JOIN groups g ON g.id = l.group_id AND ${liveInSchool("g", tenantId)}`;

/**
 * The links as rows of the list, newest first: the links are picked (and materialized) first, so
 * a page measures its own groups only, then their access counts in one aggregate over the sources.
 */
export function linkRowsSql(tenantId: string, courseId: string, filter: LinkFilter): SQL {
  const window = filter.page ? sql`LIMIT ${filter.page.limit} OFFSET ${filter.page.offset}` : sql``;
  return sql`WITH picked AS MATERIALIZED (
      SELECT l.id, l.course_id, l.group_id, g.name, g.description, g.logo, l.enrolled_at, l.enrolled_by
      FROM ${linksFrom(tenantId)}
      WHERE ${linksWhere(tenantId, courseId, filter)}
      ORDER BY l.enrolled_at DESC, l.id DESC ${window}),
    held AS (
      SELECT h.source_key, count(*) AS enrolled, sum(h.sources = 1) AS only_source, sum(h.sources > 1) AS other_sources
      FROM (${heldSql(tenantId, courseId, sql`SELECT ${groupKeySql(sql`p.group_id`)} FROM picked p`)}) h
      GROUP BY h.source_key)
    SELECT p.*, ${memberCountSql(tenantId, sql`p.group_id`)} AS member_count,
      COALESCE(h.enrolled, 0) AS enrolled_students_count, COALESCE(h.only_source, 0) AS would_remove_count,
      COALESCE(h.other_sources, 0) AS would_retain_count
    FROM picked p LEFT JOIN held h ON h.source_key = ${groupKeySql(sql`p.group_id`)}
    ORDER BY p.enrolled_at DESC, p.id DESC`;
}

/**
 * The list's totals: links matching `q`, and (whatever `q`) every link of the course and the
 * distinct live students who hold access through at least one linked group.
 */
export function linkCountsSql(tenantId: string, courseId: string, q: string | undefined): SQL {
  const linkedKeys = sql`SELECT ${groupKeySql(sql`l.group_id`)} FROM ${linksFrom(tenantId)} WHERE ${linksWhere(tenantId, courseId, {})}`;
  return sql`SELECT
      (SELECT count(*) FROM ${linksFrom(tenantId)} WHERE ${linksWhere(tenantId, courseId, { q })}) AS total,
      (SELECT count(*) FROM ${linksFrom(tenantId)} WHERE ${linksWhere(tenantId, courseId, {})}) AS groups,
      (SELECT count(DISTINCT h.student_id) FROM (${heldSql(tenantId, courseId, linkedKeys)}) h) AS students`;
}

export interface LinkRow {
  id: string;
  course_id: string;
  group_id: string;
  name: string;
  description: string;
  logo: string | null;
  enrolled_at: number;
  enrolled_by: string | null;
  member_count: number;
  enrolled_students_count: number;
  would_remove_count: number;
  would_retain_count: number;
}

/** The course group enrollment resource. */
export async function presentLink(ctx: Pick<ServiceContext, "clock" | "config" | "publicOrigin"> & Pick<SchoolCtx, "tenantId">, row: LinkRow) {
  return {
    id: row.id,
    course_id: row.course_id,
    group_id: row.group_id,
    name: row.name,
    description: row.description,
    logo: row.logo,
    logo_url: await mediaUrl(ctx, ctx.tenantId, row.logo),
    member_count: Number(row.member_count),
    enrolled_students_count: Number(row.enrolled_students_count),
    would_remove_count: Number(row.would_remove_count),
    would_retain_count: Number(row.would_retain_count),
    enrolled_at: iso(row.enrolled_at),
    enrolled_by: row.enrolled_by,
  };
}

/** The group's source key, as the enrollments area spells it. */
export const groupSourceKey = (groupId: string) => sourceKey({ kind: "group", groupId });
