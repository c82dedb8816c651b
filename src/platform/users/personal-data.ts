import { and, eq, getTableColumns, getTableName } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import { forgetPairStatement } from "../auth/login-guard";
import type { BatchItem } from "../../core/db/batch";
import {
  authDevices,
  curatorPermissions,
  deviceEvents,
  deviceLimitOverrides,
  deviceReplacementTokens,
  emailOutbox,
  emailVerificationTokens,
  groupCurators,
  groupMembers,
  notificationOutbox,
  passwordResetCodes,
  payments,
  pushDevices,
  sessions,
  users,
} from "../../db/schema";
import type { ServiceContext } from "../../core/http/context";

/**
 * What a permanent user deletion does to every column that refers to a user.
 * `delete`: the rows are the user's personal data and go with the account.
 * `clear`: the rows are shared school content (or someone else's history); only the reference is
 * set to NULL, so the content stays without an author.
 *
 * Every table with a column named `user_id` or ending in `_user_id`, `curator_id` or `author_id`
 * must appear here: test/users/personal-data.test.ts reads the live schema and fails otherwise.
 * An area that adds such a table adds its line here in the same change.
 */
interface PersonalDataRule {
  table: SQLiteTable;
  column: SQLiteColumn;
  action: "delete" | "clear";
}

const rule = <T extends SQLiteTable>(table: T, column: SQLiteColumn, action: PersonalDataRule["action"]): PersonalDataRule => ({
  table,
  column,
  action,
});

export const PERSONAL_DATA: readonly PersonalDataRule[] = [
  // Sign-in state and devices.
  rule(sessions, sessions.userId, "delete"),
  rule(authDevices, authDevices.userId, "delete"),
  rule(deviceEvents, deviceEvents.userId, "delete"),
  rule(deviceEvents, deviceEvents.actorUserId, "clear"),
  rule(deviceLimitOverrides, deviceLimitOverrides.userId, "delete"),
  rule(deviceLimitOverrides, deviceLimitOverrides.createdByUserId, "clear"),
  rule(deviceReplacementTokens, deviceReplacementTokens.userId, "delete"),
  rule(emailVerificationTokens, emailVerificationTokens.userId, "delete"),
  rule(passwordResetCodes, passwordResetCodes.userId, "delete"),
  // Notifications.
  rule(pushDevices, pushDevices.userId, "delete"),
  rule(notificationOutbox, notificationOutbox.userId, "delete"),
  // Groups and curation.
  rule(groupMembers, groupMembers.userId, "delete"),
  rule(groupCurators, groupCurators.curatorId, "delete"),
  rule(curatorPermissions, curatorPermissions.userId, "delete"),
  rule(users, users.individualCuratorId, "clear"),
  // Billing history stays; the operator reference goes.
  rule(payments, payments.createdByUserId, "clear"),
];

/** `table.column` names of the registry, as the database spells them. */
export function registeredColumns(): { table: string; column: string; action: PersonalDataRule["action"] }[] {
  return PERSONAL_DATA.map((entry) => ({ table: getTableName(entry.table), column: entry.column.name, action: entry.action }));
}

/** The column names the registry must cover (the schema test applies the same rule). */
export function isUserReferenceColumn(name: string): boolean {
  return name === "user_id" || name.endsWith("_user_id") || name.endsWith("curator_id") || name.endsWith("author_id");
}

function propertyOf(table: SQLiteTable, column: SQLiteColumn): string {
  const entry = Object.entries(getTableColumns(table)).find(([, candidate]) => candidate === column);
  if (!entry) throw new Error(`${column.name} is not a column of ${getTableName(table)}`);
  return entry[0];
}

/**
 * All writes of a permanent deletion, for one `db.batch`: the registry's rules, the user's queued
 * emails (they hold the address and name), the sign-in counter keyed by the email, then the account.
 */
export function permanentDeletionStatements(ctx: ServiceContext, target: { id: string; tenantId: string; email: string }): BatchItem[] {
  const statements: BatchItem[] = PERSONAL_DATA.map((entry) =>
    entry.action === "delete"
      ? ctx.db.delete(entry.table).where(eq(entry.column, target.id))
      : ctx.db
          .update(entry.table)
          .set({ [propertyOf(entry.table, entry.column)]: null })
          .where(eq(entry.column, target.id)),
  );
  statements.push(ctx.db.delete(emailOutbox).where(and(eq(emailOutbox.tenantId, target.tenantId), eq(emailOutbox.toEmail, target.email))));
  statements.push(forgetPairStatement(ctx, target));
  statements.push(ctx.db.delete(users).where(and(eq(users.id, target.id), eq(users.tenantId, target.tenantId))));
  return statements;
}
