import { and, eq, isNull } from "drizzle-orm";
import { authDevices, users } from "../../db/schema";
import { actingSchool, type Actor, type ServiceContext } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";

/** The id of the school a device endpoint acts on (see `actingSchool`). */
export function actingTenantId(actor: Actor): string {
  return actingSchool(actor).id;
}

/** Device endpoints under `/t/users/:id` manage students only; any other id is "not found". */
export function studentTargetQuery(ctx: ServiceContext, tenantId: string, userId: string) {
  return ctx.db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.id, userId), eq(users.tenantId, tenantId), eq(users.role, "student"), isNull(users.deletedAt)))
    .limit(1);
}

export const userNotFound = () => new ApiError(404, "user_not_found", "No student with this id in this school.");
export const deviceNotFound = () => new ApiError(404, "device_not_found", "No such device for this user.");

export function assertFound<T>(rows: T[], error: () => ApiError): T {
  const row = rows[0];
  if (row === undefined) throw error();
  return row;
}

/** A device of one user, in the user's school (null for the platform's own users). */
export function userDeviceQuery(ctx: ServiceContext, tenantId: string | null, userId: string, deviceId: string) {
  return ctx.db
    .select({ id: authDevices.id, blockedAt: authDevices.blockedAt, blockReason: authDevices.blockReason })
    .from(authDevices)
    .where(
      and(
        eq(authDevices.id, deviceId),
        eq(authDevices.userId, userId),
        tenantId === null ? isNull(authDevices.tenantId) : eq(authDevices.tenantId, tenantId),
      ),
    )
    .limit(1);
}
