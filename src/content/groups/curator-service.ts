import { eq, sql, type SQL } from "drizzle-orm";
import { batchable, insertWhere, runBatch, type BatchItem } from "../../core/db/batch";
import { liveRowWhere } from "../../core/db/live-row";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { groupCurators, groups } from "../../db/schema";
import { eventDefinition, type EventCode } from "../../platform/notifications/catalog";
import { dispatchQueued, enqueue } from "../../platform/notifications/enqueue";
import { prefetchSchoolEvents } from "../../platform/notifications/settings";
import { groupsErrors } from "./errors";
import { groupSelect, memberCountSql, presentGroup } from "./present";
import { inSchool, liveInSchool } from "../../core/db/conditions";
import { rebuildCuratorStudents } from "../../platform/schools/curator-students";

const CURATOR_EVENTS = (["group.curator_assigned", "group.curator_changed"] as const).map((code) => eventDefinition(code as EventCode)!);

/** A live, active curator of the school. */
const eligibleCurator = (ctx: SchoolCtx, curatorId: string) =>
  sql`EXISTS (SELECT 1 FROM users c WHERE c.id = ${curatorId} AND ${inSchool("c", ctx.tenantId)} AND c.role = 'curator'
    AND c.deleted_at IS NULL AND c.is_active = 1)`;

const liveGroup = (ctx: SchoolCtx, groupId: string) =>
  sql`EXISTS (SELECT 1 FROM groups g WHERE g.id = ${groupId} AND ${liveInSchool("g", ctx.tenantId)})`;

/** The curator is not already the group's: only then is the call news. */
const notYetCurator = (ctx: SchoolCtx, groupId: string, curatorId: string) =>
  sql`NOT EXISTS (SELECT 1 FROM group_curators gc WHERE ${inSchool("gc", ctx.tenantId)} AND gc.group_id = ${groupId} AND gc.curator_id = ${curatorId})`;

/**
 * PUT /t/groups/:id/curator: the group's one curator row is replaced (null removes it); setting
 * the same curator again changes nothing. The first batch reads the group, the curator's
 * eligibility and the push settings; the second writes under the same conditions, so a curator
 * deactivated or a group deleted in between leaves the group as it was.
 */
export async function setGroupCurator(ctx: SchoolCtx, input: { id: string; curatorId: string | null }) {
  const { id, curatorId } = input;
  const { tenantId } = ctx;
  const prefetch = prefetchSchoolEvents(ctx, tenantId, curatorId === null ? [] : CURATOR_EVENTS);
  const [found, ...settings] = await runBatch(ctx, [
    ctx.db
      // Named: D1 keys batch rows by column name, and a bare `1` would sort ahead of the others.
      .select({ name: groups.name, eligible: (curatorId === null ? sql<number>`1` : sql<number>`${eligibleCurator(ctx, curatorId)}`).as("eligible") })
      .from(groups)
      .where(liveRowWhere(groups, tenantId, id))
      .limit(1),
    ...(prefetch.statements as BatchItem[]),
  ]);
  prefetch.remember(settings);
  const group = (found as { name: string; eligible: number }[])[0];
  if (!group) throw new ApiError(groupsErrors.GROUP_NOT_FOUND);
  if (Number(group.eligible) !== 1) throw new ApiError(groupsErrors.CURATOR_NOT_ELIGIBLE);

  const now = ctx.clock.now();
  const writable = curatorId === null ? liveGroup(ctx, id) : sql`${liveGroup(ctx, id)} AND ${eligibleCurator(ctx, curatorId)}`;
  const changing = curatorId === null ? sql`EXISTS (SELECT 1 FROM group_curators gc WHERE ${inSchool("gc", tenantId)} AND gc.group_id = ${id})` : notYetCurator(ctx, id, curatorId);
  // Ahead of the writes: they read the curator row as it was.
  const notices = curatorId === null ? [] : await curatorPushes(ctx, { groupId: id, groupName: group.name, curatorId, now, when: sql`${writable} AND ${changing}` });
  const results = await runBatch(ctx, [
    ...notices,
    batchable(ctx, sql`UPDATE groups SET updated_at = ${now} WHERE ${inSchool(tenantId)} AND id = ${id} AND deleted_at IS NULL AND ${writable} AND ${changing}`),
    batchable(ctx, sql`DELETE FROM group_curators WHERE ${inSchool(tenantId)} AND group_id = ${id} AND ${writable}
      ${curatorId === null ? sql`` : sql`AND curator_id <> ${curatorId}`}`),
    ...(curatorId === null
      ? []
      : [insertWhere(ctx, groupCurators, { tenantId, groupId: id, curatorId, createdAt: now }, sql`${writable} AND ${notYetCurator(ctx, id, curatorId)}`)]),
    // The members' pairs follow the group's curator (the old one's go, the new one's come).
    ...rebuildCuratorStudents(ctx, { students: sql`SELECT gm.user_id FROM group_members gm WHERE ${inSchool("gm", tenantId)} AND gm.group_id = ${id}` }),
    groupSelect(ctx, eq(groups.id, id)).limit(1),
  ]);
  const [row] = results[results.length - 1] as Awaited<ReturnType<ReturnType<typeof groupSelect>["all"]>>;
  if (!row) throw new ApiError(groupsErrors.GROUP_NOT_FOUND);
  // Deactivated or demoted since the first read: nothing was written.
  if (curatorId !== null && row.curatorId !== curatorId) throw new ApiError(groupsErrors.CURATOR_NOT_ELIGIBLE);
  await dispatchQueued(ctx);
  return presentGroup(ctx, row);
}

/**
 * `group.curator_assigned` to the new curator and `group.curator_changed` to the group's members.
 * The dedupe keys carry the instant the curator row is written, so a retry writes nothing and a
 * later reassignment is news again.
 */
async function curatorPushes(ctx: SchoolCtx, input: { groupId: string; groupName: string; curatorId: string; now: number; when: SQL }) {
  const { groupId, curatorId, now, when } = input;
  const curatorName = sql`(SELECT u.first_name || ' ' || u.last_name FROM users u WHERE u.id = ${curatorId} AND ${inSchool("u", ctx.tenantId)})`;
  return [
    await enqueue(
      ctx,
      "group.curator_assigned",
      { token: "curator", curatorId },
      { group_name: input.groupName, member_count: memberCountSql(ctx.tenantId, sql`${groupId}`) },
      { id: groupId },
      `group.curator_assigned:${groupId}:${now}`,
      { when },
    ),
    await enqueue(
      ctx,
      "group.curator_changed",
      { token: "group_members", groupId },
      { group_name: input.groupName, curator_name: curatorName },
      { id: groupId },
      `group.curator_changed:${groupId}:${now}`,
      { when },
    ),
  ];
}
