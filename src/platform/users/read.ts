import { and, asc, eq, isNull, sql, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import { groupMembers, groups, users } from "../../db/schema";
import { idIn } from "../../core/db/conditions";
import type { ServiceContext, TenantCtx } from "../../core/http/context";
import { isoOrNull, iso } from "../../core/lib/clock";
import { mediaUrl } from "../media/links";

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

/** Live (not deleted) users of the caller's school that also meet `conditions`. */
export function liveUsers(ctx: Pick<TenantCtx, "tenantId">, ...conditions: (SQL | undefined)[]): SQL {
  return and(eq(users.tenantId, ctx.tenantId), isNull(users.deletedAt), ...conditions)!;
}

/**
 * Live users of the caller's school meeting `conditions`, each with the individual curator's
 * fields; a deleted curator reads as none. Callers add order and paging, never another `where`.
 */
export function detailQuery(ctx: TenantCtx, conditions?: SQL) {
  return ctx.db
    .select({
      ...userColumns,
      // Renamed: in a batch D1 returns rows keyed by column name, so a second `id` would overwrite the first.
      curatorId: sql<string | null>`${individualCurator.id}`.as("individual_curator_id"),
      curatorFirstName: sql<string | null>`${individualCurator.firstName}`.as("individual_curator_first_name"),
      curatorLastName: sql<string | null>`${individualCurator.lastName}`.as("individual_curator_last_name"),
      curatorEmail: sql<string | null>`${individualCurator.email}`.as("individual_curator_email"),
    })
    .from(users)
    .leftJoin(
      individualCurator,
      and(
        eq(individualCurator.id, users.individualCuratorId),
        eq(individualCurator.tenantId, users.tenantId),
        eq(individualCurator.role, "curator"),
        isNull(individualCurator.deletedAt),
      ),
    )
    .where(liveUsers(ctx, conditions));
}

type DetailRow = Awaited<ReturnType<ReturnType<typeof detailQuery>["all"]>>[number];

/** Live groups of the given users of the caller's school, each user's in join order: one query for a whole page. */
export function groupsQuery(ctx: TenantCtx, userIds: readonly string[]) {
  const { tenantId } = ctx;
  return ctx.db
    .select({ userId: groupMembers.userId, groupId: groups.id, name: groups.name, logo: groups.logo })
    .from(groupMembers)
    .innerJoin(groups, and(eq(groups.id, groupMembers.groupId), eq(groups.tenantId, tenantId), isNull(groups.deletedAt)))
    .where(and(eq(groupMembers.tenantId, tenantId), idIn(groupMembers.userId, userIds)))
    .orderBy(asc(groupMembers.joinedAt), asc(groups.id));
}

type GroupRow = Awaited<ReturnType<ReturnType<typeof groupsQuery>["all"]>>[number];

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

/** Detail rows with their groups; `groupRows` may hold other users' groups too (a page's worth). */
export async function toUserDetails(ctx: ServiceContext, rows: DetailRow[], groupRows: GroupRow[]) {
  const byUser = new Map<string, GroupRow[]>();
  for (const group of groupRows) {
    const list = byUser.get(group.userId);
    if (list) list.push(group);
    else byUser.set(group.userId, [group]);
  }
  return Promise.all(
    rows.map(async (row) => {
      const memberships = byUser.get(row.id) ?? [];
      return {
        ...(await toUserObject(ctx, row)),
        group_count: memberships.length,
        groups: await Promise.all(
          memberships.map(async (group) => ({ group_id: group.groupId, name: group.name, logo: await mediaUrl(ctx, row.tenantId, group.logo) })),
        ),
        individual_curator_id: row.curatorId,
        individual_curator_first_name: row.curatorFirstName,
        individual_curator_last_name: row.curatorLastName,
        individual_curator_email: row.curatorEmail,
      };
    }),
  );
}
