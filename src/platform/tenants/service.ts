import { and, eq, isNull, ne, sql } from "drizzle-orm";
import { effectivePlanStateSql } from "../billing/state";
import { changedRows, insertWhere, isUniqueViolation, runBatch } from "../../core/db/batch";
import { tenants } from "../../db/schema";
import type { ServiceContext, SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { uuidv7 } from "../../core/lib/ids";
import { imageRef } from "../media/asset-ref";
import { mediaUrl } from "../media/links";
import { personalFilesDeletion } from "../users/personal-data";
import { tenantsErrors } from "./errors";
import { liveTenant } from "./lookup";
import { isReservedSchoolName, newSchoolRow, schoolNamesFree, shardForNewSchool } from "./new-school";
import { tenantRecord } from "./present";
import type { SchoolTenantChanges, TenantChanges } from "./schemas";

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
        ne(effectivePlanStateSql(now), "suspended"),
      ),
    )
    .limit(1);
  if (!row) throw new ApiError(tenantsErrors.BRANDING_NOT_FOUND);
  return { title: row.title, subdomain: row.subdomain, logo: await mediaUrl(ctx, row.id, row.logo), color_scheme: row.colorScheme };
}

/**
 * POST /admin/tenants/: a `pending` school with the same trial period a self-registered school
 * gets; a billing activation makes it `active`. Slugs and subdomains share one namespace, held by
 * a conditional insert.
 */
export async function createTenant(
  ctx: ServiceContext,
  input: { title: string; slug: string; subdomain: string; logo?: string | null; color_scheme?: string; timezone?: string },
) {
  if (isReservedSchoolName(input.slug, input.subdomain)) throw new ApiError(tenantsErrors.SLUG_OR_SUBDOMAIN_TAKEN);
  const id = uuidv7(ctx.clock.now());
  // A new school has no files yet: a logo can only be a URL (an asset id of any school is refused).
  await imageRef.check(ctx, { tenantId: id, field: "logo", value: input.logo, invalid: tenantsErrors.VALIDATION_ERROR });
  const row = newSchoolRow(ctx, { ...input, id, shard: await shardForNewSchool(ctx), colorScheme: input.color_scheme });
  try {
    const [inserted, created] = await ctx.db.batch([
      insertWhere(ctx, tenants, row, schoolNamesFree(input.slug, input.subdomain)),
      ctx.db.select().from(tenants).where(eq(tenants.id, id)).limit(1),
    ]);
    if (changedRows(inserted) !== 1 || !created[0]) throw new ApiError(tenantsErrors.SLUG_OR_SUBDOMAIN_TAKEN);
    return tenantRecord(ctx, created[0]);
  } catch (err) {
    if (isUniqueViolation(err)) throw new ApiError(tenantsErrors.SLUG_OR_SUBDOMAIN_TAKEN);
    throw err;
  }
}

/** PUT /admin/tenants/:id: omitted fields keep their value. A logo given as an asset id must be a confirmed image of that school. */
export async function updateTenant(ctx: ServiceContext, input: { tenantId: string; changes: TenantChanges }) {
  const { changes } = input;
  await imageRef.check(ctx, { tenantId: input.tenantId, field: "logo", value: changes.logo, invalid: tenantsErrors.VALIDATION_ERROR });
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
      ? ctx.db.select().from(tenants).where(liveTenant(input.tenantId)).limit(1)
      : ctx.db
          .update(tenants)
          .set({ ...set, updatedAt: ctx.clock.now() })
          .where(liveTenant(input.tenantId))
          .returning();
  const [row] = await query;
  if (!row) throw new ApiError(tenantsErrors.TENANT_NOT_FOUND);
  return tenantRecord(ctx, row);
}

/** PATCH /t/tenant: the school's own record, with the fields a school admin may change. */
export async function updateOwnTenant(ctx: SchoolCtx, input: { changes: SchoolTenantChanges }) {
  return updateTenant(ctx, { tenantId: ctx.tenantId, changes: input.changes });
}

/**
 * DELETE /admin/tenants/:id (soft). Branding, login and every token of the school stop at once:
 * they all join the school with `deleted_at IS NULL`. The members' personal files (avatars) go in
 * the same batch (src/platform/users/personal-data.ts); the school's shared content keeps its files.
 */
export async function deleteTenant(ctx: ServiceContext, input: { tenantId: string }) {
  const now = ctx.clock.now();
  const [deleted] = await runBatch(ctx, [
    ctx.db.update(tenants).set({ deletedAt: now, updatedAt: now }).where(liveTenant(input.tenantId)).returning({ id: tenants.id }),
    ...personalFilesDeletion(ctx, {
      tenantId: input.tenantId,
      onlyIf: sql`EXISTS (SELECT 1 FROM tenants AS t WHERE t.id = ${input.tenantId} AND t.deleted_at = ${now})`,
    }),
  ]);
  if ((deleted as unknown[]).length === 0) throw new ApiError(tenantsErrors.TENANT_NOT_FOUND);
  return { deleted: true as const };
}

/**
 * GET /t/tenant: the addressed school. Authenticate already joined it live, so the 404 only
 * answers a deletion between the two reads.
 */
export async function getOwnTenant(ctx: SchoolCtx) {
  const [row] = await ctx.db.select().from(tenants).where(liveTenant(ctx.tenantId)).limit(1);
  if (!row) throw new ApiError(tenantsErrors.TENANT_NOT_FOUND);
  return tenantRecord(ctx, row);
}
