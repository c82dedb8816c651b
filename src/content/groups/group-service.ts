import { and, asc, count, eq, sql } from "drizzle-orm";
import type { z } from "@hono/zod-openapi";
import { batchable, changedRows, runBatch } from "../../core/db/batch";
import { containsText, inSchool } from "../../core/db/conditions";
import { rebuildCuratorStudents } from "../../platform/schools/curator-students";
import { liveRowWhere } from "../../core/db/live-row";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { iso } from "../../core/lib/clock";
import { uuidv7 } from "../../core/lib/ids";
import { groups } from "../../db/schema";
import { assetRef } from "../../platform/media/asset-ref";
import { groupsErrors } from "./errors";
import { GROUP_NAME_MAX, type CreateGroupBody, type ListGroupsQuery, type UpdateGroupBody } from "./group-schemas";
import { groupSelect, presentGroup, presentGroups } from "./present";
import { groupVisibleSql } from "./scope";
import { groupDeletedMembersAudit } from "./audit";

const visible = (ctx: SchoolCtx) => groupVisibleSql(ctx, sql`${groups}`);

/** 1-120 characters after trimming (the schema trimmed it); anything else is `group_name_required`. */
function checkedName(name: string): string {
  if (name.length === 0 || name.length > GROUP_NAME_MAX) throw new ApiError(groupsErrors.GROUP_NAME_REQUIRED);
  return name;
}

function checkLogo(ctx: SchoolCtx, logo: string | null | undefined): Promise<void> {
  return assetRef("image").check(ctx, { tenantId: ctx.tenantId, field: "logo", value: logo, invalid: groupsErrors.INVALID_LOGO });
}

/**
 * GET /t/groups: the page and the total in one batch. Ordered by name (ASCII case folded), then
 * id, so equal names page stably.
 */
export async function listGroups(ctx: SchoolCtx, input: { query: z.infer<typeof ListGroupsQuery> }) {
  const { q, limit, offset } = input.query;
  const conditions = [visible(ctx), q ? containsText(groups.name, q) : undefined];
  const [rows, totals] = await ctx.db.batch([
    groupSelect(ctx, ...conditions)
      .orderBy(sql`${groups.name} COLLATE NOCASE`, asc(groups.id))
      .limit(limit)
      .offset(offset),
    ctx.db
      .select({ total: count() })
      .from(groups)
      .where(and(inSchool(groups, ctx.tenantId), ...conditions)),
  ]);
  return { groups: await presentGroups(ctx, rows), total: totals[0]?.total ?? 0, limit, offset };
}

/** GET /t/groups/:id: a group the caller does not see answers as a missing one. */
export async function getGroup(ctx: SchoolCtx, input: { id: string }) {
  const [row] = await groupSelect(ctx, eq(groups.id, input.id), visible(ctx)).limit(1);
  if (!row) throw new ApiError(groupsErrors.GROUP_NOT_FOUND);
  return presentGroup(ctx, row);
}

/** POST /t/groups: the author is the caller; a new group has no curator and no members. */
export async function createGroup(ctx: SchoolCtx, input: { body: z.infer<typeof CreateGroupBody> }) {
  const { body } = input;
  const name = checkedName(body.name);
  await checkLogo(ctx, body.logo);
  const now = ctx.clock.now();
  const [row] = await ctx.db
    .insert(groups)
    .values({
      id: uuidv7(now),
      tenantId: ctx.tenantId,
      name,
      description: body.description ?? "",
      logo: body.logo ?? null,
      createdBy: ctx.actor.userId,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  return presentGroup(ctx, {
    ...row!,
    curatorId: null,
    curatorFirstName: null,
    curatorLastName: null,
    curatorEmail: null,
    memberCount: 0,
  });
}

/** PATCH /t/groups/:id: the update and the group's new state in one batch. */
export async function updateGroup(ctx: SchoolCtx, input: { id: string; body: z.infer<typeof UpdateGroupBody> }) {
  const { id, body } = input;
  const changes = {
    ...(body.name !== undefined ? { name: checkedName(body.name) } : {}),
    ...(body.description !== undefined ? { description: body.description } : {}),
    ...(body.logo !== undefined ? { logo: body.logo } : {}),
  };
  await checkLogo(ctx, body.logo);
  if (Object.keys(changes).length === 0) return getGroup(ctx, { id });
  const [, rows] = await ctx.db.batch([
    ctx.db
      .update(groups)
      .set({ ...changes, updatedAt: ctx.clock.now() })
      .where(liveRowWhere(groups, ctx.tenantId, id)),
    groupSelect(ctx, eq(groups.id, id)).limit(1),
  ]);
  if (!rows[0]) throw new ApiError(groupsErrors.GROUP_NOT_FOUND);
  return presentGroup(ctx, rows[0]);
}

/** Course links hold a group: their students' access comes from it. */
const hasCourseLinks = (ctx: SchoolCtx, groupId: string) =>
  sql`EXISTS (SELECT 1 FROM course_group_enrollments cge WHERE ${inSchool("cge", ctx.tenantId)} AND cge.group_id = ${groupId})`;

/**
 * DELETE /t/groups/:id: soft, with its memberships and curator row removed in the same batch. A
 * course link is read once to answer its 409 and repeated as the UPDATE's condition, so a link
 * made in between wins. The group's lesson access rows stay: a deleted group opens no lesson.
 */
export async function deleteGroup(ctx: SchoolCtx, input: { id: string }) {
  const { id } = input;
  const check = async () => {
    const [row] = await ctx.db
      .select({ linked: sql<number>`${hasCourseLinks(ctx, id)}` })
      .from(groups)
      .where(liveRowWhere(groups, ctx.tenantId, id))
      .limit(1);
    if (!row) throw new ApiError(groupsErrors.GROUP_NOT_FOUND);
    if (Number(row.linked) === 1) throw new ApiError(groupsErrors.GROUP_HAS_COURSE_ENROLLMENTS);
  };
  await check();
  const now = ctx.clock.now();
  // The memberships and the curator row go only with a deletion this batch made.
  const deletedNow = sql`(SELECT g.deleted_at FROM groups g WHERE ${inSchool("g", ctx.tenantId)} AND g.id = ${id}) = ${now}`;
  const [deleted] = await runBatch(ctx, [
    batchable(ctx, sql`UPDATE groups SET deleted_at = ${now}, updated_at = ${now}
      WHERE ${inSchool(ctx.tenantId)} AND id = ${id} AND deleted_at IS NULL AND NOT ${hasCourseLinks(ctx, id)}`),
    groupDeletedMembersAudit(ctx, { groupId: id, deletedNow }),
    batchable(ctx, sql`DELETE FROM group_members WHERE ${inSchool(ctx.tenantId)} AND group_id = ${id} AND ${deletedNow}`),
    // While the curator row still names them: the group's curators lose its members (the group is deleted by now).
    ...rebuildCuratorStudents(ctx, { curators: sql`SELECT gc.curator_id FROM group_curators gc WHERE ${inSchool("gc", ctx.tenantId)} AND gc.group_id = ${id}` }),
    batchable(ctx, sql`DELETE FROM group_curators WHERE ${inSchool(ctx.tenantId)} AND group_id = ${id} AND ${deletedNow}`),
  ]);
  // Deleted or linked since the check: it answers as it now stands.
  if (changedRows(deleted) === 0) await check();
  return { deleted: true as const };
}

/**
 * GET /t/users/:id/groups: the student's live groups the caller sees (a restricted curator: the
 * ones they curate), in joining order. An unknown, foreign or non-student id has none.
 */
export async function listUserGroups(ctx: SchoolCtx, input: { id: string }) {
  const rows = await ctx.db.all<{ group_id: string; name: string; description: string; joined_at: number }>(sql`
    SELECT g.id AS group_id, g.name, g.description, gm.joined_at
    FROM group_members gm
    JOIN groups g ON g.id = gm.group_id AND ${groupVisibleSql(ctx, sql`g`)}
    JOIN users s ON s.id = gm.user_id AND ${inSchool("s", ctx.tenantId)} AND s.role = 'student' AND s.deleted_at IS NULL
    WHERE ${inSchool("gm", ctx.tenantId)} AND gm.user_id = ${input.id}
    ORDER BY gm.joined_at, g.id`);
  return { groups: rows.map((row) => ({ group_id: row.group_id, name: row.name, description: row.description, joined_at: iso(row.joined_at) })) };
}
