import { and, eq, isNull, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { authDevices, users } from "../../db/schema";
import { liveRowWhere } from "../../core/db/live-row";
import type { ServiceContext, SchoolCtx } from "../../core/http/context";
import { ApiError, type ErrorEntry } from "../../core/http/errors";

/** Rows of one school; `null` is the platform's own (the superadmin's devices, sessions and events). */
export function ofSchool(column: SQLiteColumn, tenantId: string | null): SQL {
  return tenantId === null ? isNull(column) : eq(column, tenantId);
}

/**
 * The school of the caller's own devices, sessions and events (`/t/me/*`). For a school member it is
 * the addressed school (`ctx.tenantId`, the guard refuses any other); the superadmin's own belong to
 * no school, whichever school the request addresses.
 */
export function ownSchool(ctx: SchoolCtx): string | null {
  return ctx.actor.homeTenantId;
}

/** Device endpoints under `/t/users/:id` manage students of the caller's school only; any other id is "not found". */
export function studentTargetQuery(ctx: SchoolCtx, userId: string) {
  return ctx.db
    .select({ id: users.id })
    .from(users)
    .where(and(liveRowWhere(users, ctx.tenantId, userId), eq(users.role, "student")))
    .limit(1);
}

/** The first row of a batched lookup, or the entry's error. */
export function found<T>(rows: T[], notFound: ErrorEntry): T {
  const row = rows[0];
  if (row === undefined) throw new ApiError(notFound);
  return row;
}

/** A device of one user, in the given school. */
export function userDeviceQuery(ctx: ServiceContext, tenantId: string | null, userId: string, deviceId: string) {
  return ctx.db
    .select({ id: authDevices.id, blockedAt: authDevices.blockedAt, blockReason: authDevices.blockReason })
    .from(authDevices)
    .where(and(eq(authDevices.id, deviceId), eq(authDevices.userId, userId), ofSchool(authDevices.tenantId, tenantId)))
    .limit(1);
}
