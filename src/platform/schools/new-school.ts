import { sql, type SQL } from "drizzle-orm";
import { tenants } from "../../db/schema";
import type { ServiceContext } from "../../core/http/context";
import { shardNames } from "../../core/db/client";
import { DAY_MS } from "../../core/lib/clock";

// Here, not in tenants: self-registration (auth) uses it too (docs/decisions/platform-layers.md, "The school directory holds what every area reaches").

/** Labels the platform itself answers on (the API host, the main site): no school may take them. */
const RESERVED_NAMES = new Set(["api", "www", "app", "admin", "auth", "mail", "static", "cdn", "docs", "status", "platform"]);

export function isReservedSchoolName(...names: string[]): boolean {
  return names.some((name) => RESERVED_NAMES.has(name.toLowerCase()));
}

/**
 * Slugs and subdomains share one namespace among live schools. The partial unique indexes cover
 * each column alone, so creation inserts on this condition (`insertWhere`) instead of reading first.
 */
export function schoolNamesFree(slug: string, subdomain: string): SQL {
  return sql`NOT EXISTS (SELECT 1 FROM tenants WHERE deleted_at IS NULL
    AND (slug IN (${slug}, ${subdomain}) OR subdomain IN (${slug}, ${subdomain})))`;
}

/** A new school: `pending`, on the trial period (self-registration and superadmin creation alike). */
export function newSchoolRow(
  ctx: ServiceContext,
  input: { id: string; shard: string; title: string; slug: string; subdomain: string; logo?: string | null; colorScheme?: string; timezone?: string },
): typeof tenants.$inferInsert {
  const now = ctx.clock.now();
  return {
    id: input.id,
    shard: input.shard,
    title: input.title,
    slug: input.slug,
    subdomain: input.subdomain,
    logo: input.logo ?? null,
    ...(input.colorScheme ? { colorScheme: input.colorScheme } : {}),
    ...(input.timezone ? { timezone: input.timezone } : {}),
    hideTests: false,
    hideAssignments: false,
    hideTrialExams: false,
    status: "pending",
    planState: "trial",
    expiresAt: now + ctx.config.trialDays * DAY_MS,
    createdAt: now,
    updatedAt: now,
  };
}

/**
 * The shard a new school goes to: the bound school database with the fewest live schools (the
 * lowest-numbered on a tie). One control read; two schools created at once may land on the same
 * shard, which only delays the balance by one school. Stored on the school and never recomputed.
 */
export async function shardForNewSchool(ctx: ServiceContext): Promise<string> {
  const names = shardNames(ctx.env);
  const [row] = await ctx.db.all<{ shard: string }>(sql`
    SELECT s.value AS shard FROM json_each(${JSON.stringify(names)}) s
    LEFT JOIN tenants t ON t.shard = s.value AND t.deleted_at IS NULL
    GROUP BY s.key ORDER BY count(t.id), s.key LIMIT 1`);
  return row!.shard;
}
