/**
 * The school directory of the control database: a school row as the summary a school context carries,
 * and the school context of work that knows only a school id. Its own area (it imports only core and
 * the schema), so every area may reach it without an import cycle.
 */
import { and, eq, isNull } from "drizzle-orm";
import { tenants } from "../../db/schema";
import type { SchoolActor, SchoolCtx, ServiceContext, TenantSummary } from "../../core/http/context";
import { forSchool } from "../../core/school";

/** The school with this id, unless soft-deleted. */
export const liveTenant = (id: string) => and(eq(tenants.id, id), isNull(tenants.deletedAt));

/** What a school context needs of a school row (`forSchool`); the control database's columns. */
export const schoolSummaryColumns = {
  id: tenants.id,
  subdomain: tenants.subdomain,
  title: tenants.title,
  status: tenants.status,
  planState: tenants.planState,
  expiresAt: tenants.expiresAt,
  suspendedManually: tenants.suspendedManually,
  timezone: tenants.timezone,
  shard: tenants.shard,
  storageCapBytes: tenants.storageCapBytes,
  webhooksActive: tenants.webhooksActive,
  webhooksEpoch: tenants.webhooksEpoch,
};

/** A school row selected with `schoolSummaryColumns` as the summary a school context carries. */
export function schoolSummary(row: { [K in keyof typeof schoolSummaryColumns]: unknown }): TenantSummary {
  return {
    id: row.id as string,
    subdomain: row.subdomain as string,
    title: row.title as string,
    status: row.status as string,
    planState: row.planState as string,
    expiresAt: (row.expiresAt as number | null) ?? null,
    suspendedManually: row.suspendedManually === true,
    timezone: row.timezone as string,
    shard: row.shard as string,
    storageCapBytes: row.storageCapBytes as number,
    webhooksActive: row.webhooksActive === true,
    webhooksEpoch: (row.webhooksEpoch as number | null) ?? 0,
  };
}

/** The live school with this id as a summary, or null (deleted or unknown). One control read. */
export async function loadSchool(ctx: ServiceContext, id: string): Promise<TenantSummary | null> {
  const [row] = await ctx.db.select(schoolSummaryColumns).from(tenants).where(liveTenant(id)).limit(1);
  return row ? schoolSummary(row) : null;
}

/**
 * The school context of work that knows only a school id (a queued message, a Durable Object
 * alarm): one control read for the school's shard, then `forSchool`. Null when the school is gone,
 * so the work can be dropped.
 */
export async function forSchoolId<A extends SchoolActor>(ctx: ServiceContext, id: string, actor: A): Promise<SchoolCtx<A> | null> {
  const school = await loadSchool(ctx, id);
  return school ? forSchool(ctx, school, actor) : null;
}
