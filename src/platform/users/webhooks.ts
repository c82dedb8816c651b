import { and, eq, isNull, or, sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "../../core/db/batch";
import { inSchool } from "../../core/db/conditions";
import { isoTimeSql } from "../../core/db/sql-time";
import type { SchoolCtx } from "../../core/http/context";
import { users } from "../../db/schema";
import { webhookOutboxRowsStatements } from "../webhooks/outbox";

/**
 * `user.created`, `user.updated`, `user.deleted` (05 section 5; docs/decisions/webhooks.md,
 * "Producers"): one event per user the batch created, changed or deleted, none for a repeat or a
 * refusal, no statement in a school without an active webhook. `data` is the user object as the
 * API answers it to an admin, without `avatar` (a media link is signed and expires; the receiver
 * reads it through the API). A deletion carries no personal data, since the event outlives a
 * permanent deletion.
 */

/** The fields a change may set, as the API spells them. */
export interface UserChange {
  first_name?: string;
  last_name?: string;
  avatar?: string | null;
  role?: string;
  is_active?: boolean;
}

/** The user object of the `users` row with `change` applied (`now` its update time when given). */
function userJson(change: UserChange, now?: number): SQL {
  const text = (value: string | undefined, column: SQL) => (value === undefined ? column : sql`${value}`);
  const active = change.is_active === undefined ? sql`${users.isActive}` : sql`${change.is_active ? 1 : 0}`;
  return sql`json_object('id', ${users.id}, 'tenant_id', ${users.tenantId}, 'email', ${users.email},
    'first_name', ${text(change.first_name, sql`${users.firstName}`)}, 'last_name', ${text(change.last_name, sql`${users.lastName}`)},
    'role', ${text(change.role, sql`${users.role}`)}, 'is_active', json(CASE WHEN ${active} THEN 'true' ELSE 'false' END),
    'last_active_at', ${isoTimeSql(sql`${users.lastActiveAt}`)}, 'created_at', ${isoTimeSql(sql`${users.createdAt}`)},
    'updated_at', ${isoTimeSql(now === undefined ? sql`${users.updatedAt}` : sql`${now}`)})`;
}

/** SQL: the `users` row differs from `change` in a field the change sets. */
function differs(change: UserChange): SQL {
  const checks: SQL[] = [];
  if (change.first_name !== undefined) checks.push(sql`${users.firstName} IS NOT ${change.first_name}`);
  if (change.last_name !== undefined) checks.push(sql`${users.lastName} IS NOT ${change.last_name}`);
  if (change.avatar !== undefined) checks.push(sql`${users.avatar} IS NOT ${change.avatar}`);
  if (change.role !== undefined) checks.push(sql`${users.role} IS NOT ${change.role}`);
  if (change.is_active !== undefined) checks.push(sql`${users.isActive} IS NOT ${change.is_active ? 1 : 0}`);
  return checks.length === 0 ? sql`0` : or(...checks)!;
}

const liveOf = (ctx: SchoolCtx, where: SQL) => and(inSchool(users, ctx.tenantId), isNull(users.deletedAt), where)!;

/** `user.created` for the users of `ids` that exist after the batch's INSERTs (placed after them: a refused INSERT writes none). */
export function userCreatedWebhooks(ctx: SchoolCtx, ids: readonly string[]): BatchItem[] {
  if (ids.length === 0) return [];
  const where = ids.length === 1 ? eq(users.id, ids[0]!) : sql`${users.id} IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`;
  return webhookOutboxRowsStatements(
    ctx,
    "user.created",
    sql`SELECT ${userJson({})} AS data, 'user:' || ${users.id} || ':created' AS occurrence FROM ${users} WHERE ${liveOf(ctx, where)} ORDER BY ${users.id}`,
  );
}

/**
 * `user.updated` for the live users matching `where` whom `change` really changes, with the user as
 * the change leaves it: placed AHEAD of the UPDATE (it reads the row before), whose own condition
 * must be no narrower than `where` and liveness and set `updated_at` to `now`.
 */
export function userChangeWebhooks(ctx: SchoolCtx, where: SQL, change: UserChange, now: number): BatchItem[] {
  return webhookOutboxRowsStatements(
    ctx,
    "user.updated",
    sql`SELECT ${userJson(change, now)} AS data, NULL AS occurrence FROM ${users} WHERE ${liveOf(ctx, and(where, differs(change))!)} ORDER BY ${users.id}`,
  );
}

/** `user.updated` for the live users of `ids` the batch's earlier UPDATEs changed at `now` (their `updated_at`). */
export function userUpdatedWebhooks(ctx: SchoolCtx, ids: readonly string[], now: number): BatchItem[] {
  if (ids.length === 0) return [];
  return webhookOutboxRowsStatements(
    ctx,
    "user.updated",
    sql`SELECT ${userJson({})} AS data, NULL AS occurrence FROM ${users}
      WHERE ${liveOf(ctx, sql`${users.id} IN (SELECT value FROM json_each(${JSON.stringify(ids)})) AND ${users.updatedAt} = ${now}`)} ORDER BY ${users.id}`,
  );
}

/**
 * `user.deleted` for the user if live now: placed AHEAD of the soft delete or the purge. Keyed by
 * the user, so a purge of a user whose soft delete was announced writes no second event.
 */
export function userDeletedWebhooks(ctx: SchoolCtx, id: string, permanent: boolean, now: number): BatchItem[] {
  return webhookOutboxRowsStatements(
    ctx,
    "user.deleted",
    sql`SELECT json_object('id', ${users.id}, 'tenant_id', ${users.tenantId}, 'role', ${users.role}, 'deleted_at', ${isoTimeSql(sql`${now}`)},
        'permanent', json(${permanent ? "true" : "false"})) AS data, 'user:' || ${users.id} || ':deleted' AS occurrence
      FROM ${users} WHERE ${liveOf(ctx, eq(users.id, id))}`,
  );
}
