import { sql } from "drizzle-orm";
import { batchable, rowsOf, runBatch, type BatchItem } from "../../core/db/batch";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { eventDefinition } from "../../platform/notifications/catalog";
import { dispatchQueued, enqueue } from "../../platform/notifications/enqueue";
import { prefetchSchoolEvents } from "../../platform/notifications/settings";
import { groupsErrors } from "../groups/errors";
import { assignmentsErrors } from "./errors";
import { inSchool, liveInSchool } from "../../core/db/conditions";

/**
 * An assignment's group targets: the allow-list of groups whose students may submit. Only targets
 * naming live groups count (a deleted group targets nobody), so that is what GET shows.
 */

const liveAssignmentSql = (tenantId: string, id: string) =>
  sql`EXISTS (SELECT 1 FROM assignments a WHERE a.id = ${id} AND ${liveInSchool("a", tenantId)})`;

function targetsStatement(ctx: SchoolCtx, id: string): BatchItem {
  const t = ctx.tenantId;
  return batchable(
    ctx,
    sql`SELECT agt.group_id FROM assignment_group_targets agt JOIN groups g ON g.id = agt.group_id AND ${liveInSchool("g", t)}
      WHERE ${inSchool("agt", t)} AND agt.assignment_id = ${id} AND ${liveAssignmentSql(t, id)}
      ORDER BY agt.group_id`,
  );
}

const groupIdsOf = (result: unknown) => rowsOf<{ group_id: string }>(result).map((row) => row.group_id);

/** GET /t/assignments/:id/group-targets: one batch. */
export async function getGroupTargets(ctx: SchoolCtx, input: { id: string }): Promise<{ group_ids: string[] }> {
  const [assignment, targets] = await runBatch(ctx, [
    batchable(ctx, sql`SELECT 1 AS found WHERE ${liveAssignmentSql(ctx.tenantId, input.id)}`),
    targetsStatement(ctx, input.id),
  ]);
  if (rowsOf(assignment).length === 0) throw new ApiError(assignmentsErrors.ASSIGNMENT_NOT_FOUND);
  return { group_ids: groupIdsOf(targets) };
}

const ASSIGNED = eventDefinition("assignment.assigned")!;

/**
 * PUT /t/assignments/:id/group-targets: replaces the allow-list. One read batch (the assignment,
 * the named groups, the current targets and the event's settings), then one write batch: the
 * DELETE of the targets not in the set, the INSERT of the missing ones, `assignment.assigned`
 * (#46) to the members of each group this write added, and the read-back. Every write holds only
 * while the assignment is live; a push holds only when this batch's INSERT wrote its group's row
 * (its `created_at` is this write's time), so a group already targeted, or added by a concurrent
 * PUT, is not told twice. The dedupe key names the assignment, the group and this write.
 */
export async function putGroupTargets(ctx: SchoolCtx, input: { id: string; body: { group_ids?: string[] } }): Promise<{ group_ids: string[] }> {
  const { id } = input;
  const t = ctx.tenantId;
  const wanted = [...new Set(input.body.group_ids ?? [])];
  const wantedJson = JSON.stringify(wanted);
  const prefetch = prefetchSchoolEvents(ctx, t, [ASSIGNED]);
  const reads = await runBatch(ctx, [
    batchable(ctx, sql`SELECT a.title FROM assignments a WHERE a.id = ${id} AND ${liveInSchool("a", t)}`),
    batchable(ctx, sql`SELECT g.id, g.name FROM groups g WHERE ${liveInSchool("g", t)} AND g.id IN (SELECT value FROM json_each(${wantedJson}))`),
    targetsStatement(ctx, id),
    ...(prefetch.statements as BatchItem[]),
  ]);
  const assignment = rowsOf<{ title: string }>(reads[0])[0];
  if (!assignment) throw new ApiError(assignmentsErrors.ASSIGNMENT_NOT_FOUND);
  const groups = new Map(rowsOf<{ id: string; name: string }>(reads[1]).map((group) => [group.id, group.name]));
  const missing = wanted.find((groupId) => !groups.has(groupId));
  if (missing !== undefined) throw new ApiError(groupsErrors.GROUP_NOT_FOUND, { message: `No such group: ${missing}.` });
  prefetch.remember(reads.slice(3));
  const current = new Set(groupIdsOf(reads[2]));

  const now = ctx.clock.now();
  const live = liveAssignmentSql(t, id);
  const pushes = await Promise.all(
    wanted
      .filter((groupId) => !current.has(groupId))
      .map((groupId) =>
        enqueue(
          ctx,
          "assignment.assigned",
          { token: "group_members", groupId },
          { assignment_title: assignment.title, group_name: groups.get(groupId)! },
          { id },
          `assignment.assigned:${id}:${groupId}:${now}`,
          {
            when: sql`EXISTS (SELECT 1 FROM assignment_group_targets nt WHERE ${inSchool("nt", t)} AND nt.assignment_id = ${id} AND nt.group_id = ${groupId} AND nt.created_at = ${now})`,
          },
        ),
      ),
  );
  const results = await runBatch(ctx, [
    batchable(
      ctx,
      sql`DELETE FROM assignment_group_targets WHERE ${inSchool(t)} AND assignment_id = ${id}
        AND group_id NOT IN (SELECT value FROM json_each(${wantedJson})) AND ${live}`,
    ),
    batchable(
      ctx,
      sql`INSERT INTO assignment_group_targets (tenant_id, assignment_id, group_id, created_at)
        SELECT ${t}, ${id}, j.value, ${now} FROM json_each(${wantedJson}) j
        WHERE ${live} AND EXISTS (SELECT 1 FROM groups g WHERE g.id = j.value AND ${liveInSchool("g", t)})
        ON CONFLICT (tenant_id, assignment_id, group_id) DO NOTHING`,
    ),
    ...pushes,
    batchable(ctx, sql`SELECT 1 AS found WHERE ${live}`),
    targetsStatement(ctx, id),
  ]);
  const [found, targets] = results.slice(-2);
  if (rowsOf(found).length === 0) throw new ApiError(assignmentsErrors.ASSIGNMENT_NOT_FOUND);
  if (pushes.length > 0) await dispatchQueued(ctx);
  return { group_ids: groupIdsOf(targets) };
}
