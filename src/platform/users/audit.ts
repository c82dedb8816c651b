import { and, eq, sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "../../core/db/batch";
import { inSchool } from "../../core/db/conditions";
import type { PermissionSet, SchoolCtx } from "../../core/http/context";
import { auditFromRows, jsonBool, jsonValue, type RowChange } from "../audit/from-row";
import { curatorPermissions, users } from "../../db/schema";
import { liveUsers } from "./read";

/**
 * The audit entries of user management (docs/decisions/audit.md), each an INSERT … SELECT over the
 * live users the change is about, to place just ahead of the change in its batch: it reads the
 * before-values there, and writes nothing for a user the change would not touch or not change.
 * Summaries name no person: the entry outlives a permanent deletion.
 */
function userEntry(ctx: SchoolCtx, input: { action: string; summary: string; where: SQL | undefined; changes: Record<string, RowChange> }): BatchItem {
  return auditFromRows(ctx, {
    action: input.action,
    targetType: "user",
    rows: sql`${users} WHERE ${liveUsers(ctx, input.where)}`,
    targetId: sql`${users.id}`,
    summary: input.summary,
    changes: input.changes,
  });
}

/** PUT /t/users/:id: names and avatar as `user.updated`, the active flag as `user.deactivated` / `user.reactivated`. */
export function userUpdateEntries(ctx: SchoolCtx, input: { id: string; body: { first_name?: string; last_name?: string; avatar?: string | null; is_active?: boolean } }) {
  const { id, body } = input;
  const fields: Record<string, RowChange> = {};
  if (body.first_name !== undefined) fields.first_name = [jsonValue(users.firstName), body.first_name];
  if (body.last_name !== undefined) fields.last_name = [jsonValue(users.lastName), body.last_name];
  if (body.avatar !== undefined) fields.avatar = [jsonValue(users.avatar), body.avatar];
  const entries: BatchItem[] = [];
  if (Object.keys(fields).length > 0) entries.push(userEntry(ctx, { action: "user.updated", summary: "User updated", where: eq(users.id, id), changes: fields }));
  if (body.is_active !== undefined) entries.push(activeEntry(ctx, { where: eq(users.id, id), active: body.is_active }));
  return entries;
}

/** One entry per listed user whose active flag the change turns. */
export function activeEntry(ctx: SchoolCtx, input: { where: SQL | undefined; active: boolean }) {
  return userEntry(ctx, {
    action: input.active ? "user.reactivated" : "user.deactivated",
    summary: input.active ? "User reactivated" : "User deactivated",
    where: input.where,
    changes: { is_active: [jsonBool(users.isActive), input.active] },
  });
}

export function userDeletedEntry(ctx: SchoolCtx, input: { id: string }) {
  return userEntry(ctx, { action: "user.deleted", summary: "User deleted", where: eq(users.id, input.id), changes: { deleted: [jsonBool(users.deletedAt), true] } });
}

export function roleChangedEntry(ctx: SchoolCtx, input: { id: string; role: string }) {
  return userEntry(ctx, { action: "user.role_changed", summary: "Role changed", where: eq(users.id, input.id), changes: { role: [jsonValue(users.role), input.role] } });
}

/** Only when the curator is eligible (`eligible`, the assignment's own condition) and differs from the current one. */
export function curatorAssignedEntry(ctx: SchoolCtx, input: { id: string; curatorId: string | null; eligible: SQL | undefined }) {
  return userEntry(ctx, {
    action: "user.curator_assigned",
    summary: input.curatorId === null ? "Individual curator removed" : "Individual curator assigned",
    where: and(eq(users.id, input.id), eq(users.role, "student"), input.eligible),
    changes: { curator_id: [jsonValue(users.individualCuratorId), input.curatorId] },
  });
}

const FLAGS = ["can_manage_courses", "can_manage_students", "can_manage_groups", "can_view_analytics", "can_manage_exams", "can_manage_notifications"] as const;

/** The six flags of a live curator, before from their set (null for each when there was none). */
export function permissionsChangedEntry(ctx: SchoolCtx, input: { userId: string; flags: PermissionSet }) {
  return auditFromRows(ctx, {
    action: "user.permissions_changed",
    targetType: "user",
    rows: sql`${users} LEFT JOIN ${curatorPermissions} cp ON cp.user_id = ${users.id} AND ${inSchool("cp", ctx.tenantId)} WHERE ${liveUsers(ctx, eq(users.id, input.userId), eq(users.role, "curator"))}`,
    targetId: sql`${users.id}`,
    summary: "Curator permissions changed",
    changes: Object.fromEntries(FLAGS.map((flag) => [flag, [jsonBool(sql.raw(`cp.${flag}`)), input.flags[flag]] as RowChange])),
  });
}
