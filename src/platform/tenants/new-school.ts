import { sql, type SQL } from "drizzle-orm";
import { tenants } from "../../db/schema";
import type { ServiceContext } from "../../core/http/context";
import { DAY_MS } from "../../core/lib/clock";

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
  input: { id: string; title: string; slug: string; subdomain: string; logo?: string | null; colorScheme?: string; timezone?: string },
): typeof tenants.$inferInsert {
  const now = ctx.clock.now();
  return {
    id: input.id,
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
