import { and, eq, isNull, sql, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import type { ServiceContext, SchoolCtx } from "../../core/http/context";
import { iso } from "../../core/lib/clock";
import { groups, users } from "../../db/schema";
import { mediaUrl } from "../../platform/media/links";
import { inSchool } from "../../core/db/conditions";

const curator = alias(users, "group_curator");

/**
 * The group's curator: its one group_curators row. Taken by a scalar subquery (earliest row) so a
 * stray second row could never multiply the group's row.
 */
function curatorIdSql(tenantId: string, groupId: SQL): SQL {
  return sql`(SELECT gc.curator_id FROM group_curators gc WHERE ${inSchool("gc", tenantId)} AND gc.group_id = ${groupId}
    ORDER BY gc.created_at, gc.curator_id LIMIT 1)`;
}

/** Members of the group (its id as SQL) who are live students of the school. */
export function memberCountSql(tenantId: string, groupId: SQL): SQL<number> {
  return sql<number>`(SELECT count(*) FROM group_members gm
    JOIN users ms ON ms.id = gm.user_id AND ${inSchool("ms", tenantId)} AND ms.role = 'student' AND ms.deleted_at IS NULL
    WHERE ${inSchool("gm", tenantId)} AND gm.group_id = ${groupId})`;
}

/**
 * Live groups of the caller's school meeting `conditions`, each with its curator's fields (a
 * deleted or demoted curator reads as none) and member count: one statement for any number of groups.
 * Columns are renamed where a join could repeat a name (D1 keys batch rows by column name).
 * Callers add visibility (`groupVisibleSql(ctx, sql\`groups\`)`) as a condition when it applies,
 * then order and paging, never another `where`.
 */
export function groupSelect(ctx: Pick<SchoolCtx, "db" | "tenantId">, ...conditions: (SQL | undefined)[]) {
  const { tenantId } = ctx;
  return ctx.db
    .select({
      id: groups.id,
      name: groups.name,
      description: groups.description,
      logo: groups.logo,
      createdBy: groups.createdBy,
      createdAt: groups.createdAt,
      updatedAt: groups.updatedAt,
      curatorId: sql<string | null>`${curator.id}`.as("curator_id"),
      curatorFirstName: sql<string | null>`${curator.firstName}`.as("curator_first_name"),
      curatorLastName: sql<string | null>`${curator.lastName}`.as("curator_last_name"),
      curatorEmail: sql<string | null>`${curator.email}`.as("curator_email"),
      memberCount: memberCountSql(tenantId, sql`${groups.id}`).as("member_count"),
    })
    .from(groups)
    .leftJoin(
      curator,
      and(eq(curator.id, curatorIdSql(tenantId, sql`${groups.id}`)), inSchool(curator, tenantId), eq(curator.role, "curator"), isNull(curator.deletedAt)),
    )
    .where(and(inSchool(groups, tenantId), isNull(groups.deletedAt), ...conditions));
}

export type GroupRow = Awaited<ReturnType<ReturnType<typeof groupSelect>["all"]>>[number];

/** The group object of the contract. */
export async function presentGroup(ctx: Pick<ServiceContext, "clock" | "config" | "publicOrigin"> & { tenantId: string }, row: GroupRow) {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    logo: row.logo,
    logo_url: await mediaUrl(ctx, ctx.tenantId, row.logo),
    created_by: row.createdBy,
    curator_id: row.curatorId,
    curator_first_name: row.curatorFirstName,
    curator_last_name: row.curatorLastName,
    curator_email: row.curatorEmail,
    member_count: Number(row.memberCount),
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  };
}

export function presentGroups(ctx: Pick<ServiceContext, "clock" | "config" | "publicOrigin"> & { tenantId: string }, rows: readonly GroupRow[]) {
  return Promise.all(rows.map((row) => presentGroup(ctx, row)));
}
