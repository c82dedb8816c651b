import { and, eq, gt, inArray, isNull, or } from "drizzle-orm";
import { tenants } from "../db/schema";
import type { ServiceContext } from "../http/context";
import { ApiError } from "../http/errors";
import { DAY_MS } from "../lib/clock";
import { uuidv7 } from "../lib/ids";
import { avatarUrl } from "../media/links";
import { tenantRecord } from "./present";
import type { TenantChanges } from "./schemas";

const TENANT_NOT_FOUND = () => new ApiError(404, "tenant not found", "No such school.");
const TAKEN = () => new ApiError(400, "slug or subdomain already taken", "The slug or subdomain is already taken.");

const live = (id: string) => and(eq(tenants.id, id), isNull(tenants.deletedAt));

/**
 * GET /public/tenant: branding of an active school. Unknown, pending, billing-blocked (suspended
 * or expired) and deleted schools give the same 404, so the answer reveals nothing else.
 */
export async function publicBranding(ctx: ServiceContext, input: { subdomain: string }) {
  const now = ctx.clock.now();
  const [row] = await ctx.db
    .select({ id: tenants.id, title: tenants.title, subdomain: tenants.subdomain, logo: tenants.logo, colorScheme: tenants.colorScheme })
    .from(tenants)
    .where(
      and(
        eq(tenants.subdomain, input.subdomain.toLowerCase()),
        isNull(tenants.deletedAt),
        eq(tenants.status, "active"),
        inArray(tenants.planState, ["trial", "paid"]),
        or(isNull(tenants.expiresAt), gt(tenants.expiresAt, now)),
      ),
    )
    .limit(1);
  if (!row) throw new ApiError(404, "tenant_not_found", "No such school.");
  return { title: row.title, subdomain: row.subdomain, logo: await avatarUrl(ctx, row.id, row.logo), color_scheme: row.colorScheme };
}

/**
 * POST /admin/tenants/: a `pending` school with the same trial period a self-registered school
 * gets; a billing activation makes it `active`. Slugs and subdomains share one namespace.
 */
export async function createTenant(
  ctx: ServiceContext,
  input: { title: string; slug: string; subdomain: string; logo?: string | null; color_scheme?: string; timezone?: string },
) {
  const names = [...new Set([input.slug, input.subdomain])];
  const [taken] = await ctx.db
    .select({ id: tenants.id })
    .from(tenants)
    .where(and(isNull(tenants.deletedAt), or(inArray(tenants.slug, names), inArray(tenants.subdomain, names))))
    .limit(1);
  if (taken) throw TAKEN();

  const now = ctx.clock.now();
  try {
    const [row] = await ctx.db
      .insert(tenants)
      .values({
        id: uuidv7(now),
        title: input.title,
        slug: input.slug,
        subdomain: input.subdomain,
        logo: input.logo ?? null,
        ...(input.color_scheme ? { colorScheme: input.color_scheme } : {}),
        ...(input.timezone ? { timezone: input.timezone } : {}),
        hideTests: false,
        hideAssignments: false,
        hideTrialExams: false,
        status: "pending",
        planState: "trial",
        expiresAt: now + ctx.config.trialDays * DAY_MS,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    return tenantRecord(ctx, row!);
  } catch (err) {
    // A concurrent create won the partial unique index between the check and the insert.
    if (String(err).includes("UNIQUE constraint failed")) throw TAKEN();
    throw err;
  }
}

/** PUT /admin/tenants/:id and PATCH /t/tenant: omitted fields keep their value. */
export async function updateTenant(ctx: ServiceContext, input: { tenantId: string; changes: TenantChanges }) {
  const { changes } = input;
  const set: Partial<typeof tenants.$inferInsert> = {
    ...(changes.title !== undefined ? { title: changes.title } : {}),
    ...(changes.logo !== undefined ? { logo: changes.logo } : {}),
    ...(changes.color_scheme !== undefined ? { colorScheme: changes.color_scheme } : {}),
    ...(changes.hide_tests !== undefined ? { hideTests: changes.hide_tests } : {}),
    ...(changes.hide_assignments !== undefined ? { hideAssignments: changes.hide_assignments } : {}),
    ...(changes.hide_trial_exams !== undefined ? { hideTrialExams: changes.hide_trial_exams } : {}),
    ...(changes.timezone !== undefined ? { timezone: changes.timezone } : {}),
    ...(changes.storage_cap_bytes !== undefined ? { storageCapBytes: changes.storage_cap_bytes } : {}),
  };
  const query =
    Object.keys(set).length === 0
      ? ctx.db.select().from(tenants).where(live(input.tenantId)).limit(1)
      : ctx.db
          .update(tenants)
          .set({ ...set, updatedAt: ctx.clock.now() })
          .where(live(input.tenantId))
          .returning();
  const [row] = await query;
  if (!row) throw TENANT_NOT_FOUND();
  return tenantRecord(ctx, row);
}

/**
 * DELETE /admin/tenants/:id (soft). Branding, login and every token of the school stop at once:
 * they all join the school with `deleted_at IS NULL`.
 */
export async function deleteTenant(ctx: ServiceContext, input: { tenantId: string }) {
  const now = ctx.clock.now();
  const deleted = await ctx.db
    .update(tenants)
    .set({ deletedAt: now, updatedAt: now })
    .where(live(input.tenantId))
    .returning({ id: tenants.id });
  if (deleted.length === 0) throw TENANT_NOT_FOUND();
  return { deleted: true as const };
}

/** GET /t/tenant: the addressed school (authenticate already joined it, live). */
export async function getOwnTenant(ctx: ServiceContext, input: { tenantId: string }) {
  const [row] = await ctx.db.select().from(tenants).where(live(input.tenantId)).limit(1);
  if (!row) throw TENANT_NOT_FOUND();
  return tenantRecord(ctx, row);
}
