import { and, eq, isNull } from "drizzle-orm";
import { tenants, users } from "../../db/schema";
import type { ServiceContext, TenantSummary } from "../../core/http/context";
import { forSchool, systemActor } from "../../core/school";
import { schoolSummary, schoolSummaryColumns } from "../tenants/lookup";

/** The live school a subdomain names (control database), as sign-in and password reset read it first. */
export function schoolBySubdomainQuery(ctx: ServiceContext, subdomain: string) {
  return ctx.db
    .select(schoolSummaryColumns)
    .from(tenants)
    .where(and(eq(tenants.subdomain, subdomain), isNull(tenants.deletedAt)))
    .limit(1);
}

/**
 * The account an email names: in the school `tenantId` (on that school's shard), or the platform's
 * superadmin (control database) when `tenantId` is null. Sign-in and password reset alike.
 */
export function accountFilter(tenantId: string | null, email: string) {
  return tenantId === null
    ? and(eq(users.email, email), isNull(users.tenantId), eq(users.role, "superadmin"), isNull(users.deletedAt))
    : and(eq(users.email, email), eq(users.tenantId, tenantId), isNull(users.deletedAt));
}

/**
 * Where the account of a sign-in or password reset lives: the school a subdomain names (its school
 * context on its shard) or, for an empty subdomain, the platform (the control database). Null when
 * the subdomain names no live school. Sign-in reads the school in its own batch; this is for the rest.
 */
export async function accountHome(ctx: ServiceContext, subdomain: string): Promise<{ ctx: ServiceContext; school: TenantSummary | null } | null> {
  if (subdomain === "") return { ctx, school: null };
  const [row] = await schoolBySubdomainQuery(ctx, subdomain);
  if (!row) return null;
  const school = schoolSummary(row);
  return { ctx: forSchool(ctx, school, systemActor("account")), school };
}
