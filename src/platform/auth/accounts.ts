import { and, eq, isNull } from "drizzle-orm";
import { tenants, users } from "../../db/schema";

/** Joins a user to their live school (left join: the platform's superadmin has none). */
export const liveSchoolOfUser = and(eq(tenants.id, users.tenantId), isNull(tenants.deletedAt));

/**
 * The account an email names: in the live school of `subdomain`, or the platform's superadmin
 * when `subdomain` is empty (sign-in and password reset alike). Use with `liveSchoolOfUser`.
 */
export function accountFilter(subdomain: string, email: string) {
  return subdomain === ""
    ? and(eq(users.email, email), isNull(users.tenantId), eq(users.role, "superadmin"), isNull(users.deletedAt))
    : and(eq(users.email, email), isNull(users.deletedAt), eq(tenants.subdomain, subdomain));
}
