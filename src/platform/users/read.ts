import { and, desc, eq, isNull, sql, type Placeholder, type SQL } from "drizzle-orm";
import { alias, type SubqueryWithSelection } from "drizzle-orm/sqlite-core";
import { users } from "../../db/schema";
import type { ServiceContext, SchoolCtx } from "../../core/http/context";
import { isoOrNull, iso } from "../../core/lib/clock";
import { mediaUrl } from "../media/links";
import { inSchool, liveInSchool } from "../../core/db/conditions";

/** The columns of the user object (spec, Resources: User). */
export const userColumns = {
  id: users.id,
  tenantId: users.tenantId,
  email: users.email,
  firstName: users.firstName,
  lastName: users.lastName,
  avatar: users.avatar,
  role: users.role,
  isActive: users.isActive,
  lastActiveAt: users.lastActiveAt,
  createdAt: users.createdAt,
  updatedAt: users.updatedAt,
};

export type UserRow = Pick<typeof users.$inferSelect, keyof typeof userColumns>;

const individualCurator = alias(users, "individual_curator");

/** The school a query reads: the caller's, or a placeholder bound to it when a statement is prepared once. */
type School = { tenantId: string | Placeholder };

/** Live (not deleted) users of the caller's school that also meet `conditions`. */
export function liveUsers(school: School, ...conditions: (SQL | undefined)[]): SQL {
  return and(inSchool(users, school.tenantId), isNull(users.deletedAt), ...conditions)!;
}

/**
 * The user detail's columns over `users`: the individual curator's fields (a deleted curator reads
 * as none, joined by `withCurator`) and the user's live groups in join order, as JSON, so one
 * statement answers a whole page.
 */
function detailColumns(tenantId: string | Placeholder) {
  return {
    ...userColumns,
    // Renamed: in a batch D1 returns rows keyed by column name, so a second `id` would overwrite the first.
    curatorId: sql<string | null>`${individualCurator.id}`.as("individual_curator_id"),
    curatorFirstName: sql<string | null>`${individualCurator.firstName}`.as("individual_curator_first_name"),
    curatorLastName: sql<string | null>`${individualCurator.lastName}`.as("individual_curator_last_name"),
    curatorEmail: sql<string | null>`${individualCurator.email}`.as("individual_curator_email"),
    // No ORDER BY inside: a sorted derived table per row costs SQLite a materialization each time;
    // the few memberships of a user are put in join order in JS (`toUserDetails`).
    groupsJson: sql<string>`(SELECT json_group_array(json_array(g.id, g.name, g.logo, gm.joined_at))
        FROM group_members gm
        JOIN groups g ON g.id = gm.group_id AND ${liveInSchool("g", tenantId)}
        WHERE ${inSchool("gm", tenantId)} AND gm.user_id = ${users.id})`.as("groups_json"),
  };
}

const withCurator = and(
  eq(individualCurator.id, users.individualCuratorId),
  eq(individualCurator.tenantId, users.tenantId),
  eq(individualCurator.role, "curator"),
  isNull(individualCurator.deletedAt),
);

/** Live users of the caller's school that also meet `conditions`, with their details. Callers add the limit, never another `where`. */
export function detailQuery(ctx: Pick<SchoolCtx, "db"> & School, conditions?: SQL) {
  return ctx.db
    .select({ ...detailColumns(ctx.tenantId), total: sql<number>`0`.as("total") })
    .from(users)
    .leftJoin(individualCurator, withCurator)
    .where(liveUsers(ctx, conditions));
}

/**
 * The users list's page (docs/decisions/users.md, "The users list at a school's size"): `page`
 * picks the page's users (`r`, their rowids) in list order, reading only an index; the details are
 * then read for those rows alone. SQLite computes a row's columns before it sorts, so details over
 * the whole school, sorted and cut, cost the groups of every user. `total` is the count before paging.
 */
export function detailPageQuery(ctx: Pick<SchoolCtx, "db"> & School, page: DetailPage, total: SQL<number>) {
  return ctx.db
    .select({ ...detailColumns(ctx.tenantId), total: total.as("total") })
    .from(page)
    .innerJoin(users, and(sql`${users}.rowid = ${page.r}`, inSchool(users, ctx.tenantId)))
    .leftJoin(individualCurator, withCurator)
    .orderBy(...listOrder);
}

/** The users list's order: newest first, the id breaking ties. */
export const listOrder = [desc(users.createdAt), desc(users.id)];

/** A page of users as `detailPageQuery` joins it: rowids in list order, and the total when the page counted it. */
export type DetailPage = SubqueryWithSelection<{ r: SQL.Aliased<number>; total: SQL.Aliased<number | null> }, "p">;

type DetailRow = Awaited<ReturnType<ReturnType<typeof detailQuery>["all"]>>[number];

/**
 * A row of `detailQuery` as D1's `run` returns it (keyed by column name), in drizzle's shape. The
 * users list reads its page with `run` rather than drizzle's mapped `all` (which reads with `raw`):
 * D1 reports the statement's own duration only for `run`/`all`, and the list is the read whose
 * statement cost the bench must see (docs/decisions/heavy-reads-bench.md, "The bench's statement timing").
 */
export function detailRowOf(row: Record<string, unknown>): DetailRow {
  // The user's columns as drizzle maps them (`is_active` to a boolean), by their own names.
  const user = Object.fromEntries(
    Object.entries(userColumns).map(([key, column]) => {
      const value = row[column.name];
      return [key, value === null || value === undefined ? null : column.mapFromDriverValue(value)];
    }),
  ) as UserRow;
  return {
    ...user,
    curatorId: row.individual_curator_id as string | null,
    curatorFirstName: row.individual_curator_first_name as string | null,
    curatorLastName: row.individual_curator_last_name as string | null,
    curatorEmail: row.individual_curator_email as string | null,
    groupsJson: row.groups_json as string,
    total: row.total as number,
  };
}

export async function toUserObject(ctx: ServiceContext, row: UserRow) {
  return {
    id: row.id,
    tenant_id: row.tenantId,
    email: row.email,
    first_name: row.firstName,
    last_name: row.lastName,
    avatar: await mediaUrl(ctx, row.tenantId, row.avatar),
    role: row.role,
    is_active: row.isActive,
    last_active_at: isoOrNull(row.lastActiveAt),
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  };
}

/** The user detail object of each row, groups included. */
export async function toUserDetails(ctx: ServiceContext, rows: DetailRow[]) {
  return Promise.all(
    rows.map(async (row) => {
      const memberships = (JSON.parse(row.groupsJson) as [id: string, name: string, logo: string | null, joinedAt: number][])
        .sort((a, b) => a[3] - b[3] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
        .map(([group_id, name, logo]) => ({ group_id, name, logo }));
      return {
        ...(await toUserObject(ctx, row)),
        group_count: memberships.length,
        groups: await Promise.all(memberships.map(async (group) => ({ ...group, logo: await mediaUrl(ctx, row.tenantId, group.logo) }))),
        individual_curator_id: row.curatorId,
        individual_curator_first_name: row.curatorFirstName,
        individual_curator_last_name: row.curatorLastName,
        individual_curator_email: row.curatorEmail,
      };
    }),
  );
}
