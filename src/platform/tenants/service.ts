import { and, eq, isNull, ne } from "drizzle-orm";
import { effectivePlanStateSql } from "../billing/state";
import { changedRows, insertWhere, isUniqueViolation, runBatch } from "../../core/db/batch";
import { tenants } from "../../db/schema";
import type { SchoolActor, SchoolCtx, ServiceContext } from "../../core/http/context";
import { controlDb, shardDb } from "../../core/db/client";
import { forSchool, systemActor } from "../../core/school";
import { ApiError } from "../../core/http/errors";
import { isUuid, uuidv7 } from "../../core/lib/ids";
import { imageRef } from "../media/asset-ref";
import { mediaUrl } from "../media/links";
import { personalFilesDeletion } from "../users/personal-data";
import { tenantsErrors } from "./errors";
import { liveTenant, loadSchool, schoolSummary, schoolSummaryColumns } from "../schools/lookup";
import { isReservedSchoolName, newSchoolRow, schoolNamesFree, shardForNewSchool } from "../schools/new-school";
import { tenantRecord } from "./present";
import { auditEntry, diffRows } from "../audit/write";
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
 * a conditional insert. The school is one control row (with its shard, picked here and never
 * changed); its shard holds nothing of it until members and content arrive.
 */
export async function createTenant(
  ctx: ServiceContext,
  input: { title: string; slug: string; subdomain: string; logo?: string | null; color_scheme?: string; timezone?: string },
) {
  if (isReservedSchoolName(input.slug, input.subdomain)) throw new ApiError(tenantsErrors.SLUG_OR_SUBDOMAIN_TAKEN);
  const id = uuidv7(ctx.clock.now());
  const shard = await shardForNewSchool(ctx);
  // A new school has no files yet: a logo can only be a URL (an asset id of any school is refused).
  await imageRef.check({ db: shardDb(ctx.env, shard) }, { tenantId: id, field: "logo", value: input.logo, invalid: tenantsErrors.VALIDATION_ERROR });
  const row = newSchoolRow(ctx, { ...input, id, shard, colorScheme: input.color_scheme });
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

/**
 * PUT /admin/tenants/:id: omitted fields keep their value. A logo given as an asset id must be a
 * confirmed image of that school, checked in its shard (one control read for the shard, only then).
 */
export async function updateTenant(ctx: ServiceContext, input: { tenantId: string; changes: TenantChanges }) {
  if (isUuid(input.changes.logo)) {
    const school = await loadSchool(ctx, input.tenantId);
    if (!school) throw new ApiError(tenantsErrors.TENANT_NOT_FOUND);
    await checkLogo(forSchool(ctx, school, systemActor("school_update")), input.changes);
  }
  return writeTenant(ctx, input);
}

/**
 * PATCH /t/tenant: the school's own record, with the fields a school admin may change. The record
 * is the control database's and the log the shard's, so the entries cannot share the change's
 * batch: they are written after it committed, from the row read in the control batch just ahead
 * of the update (docs/decisions/audit.md, "Written in the batch of the change").
 */
export async function updateOwnTenant(ctx: SchoolCtx, input: { changes: SchoolTenantChanges }) {
  await checkLogo(ctx, input.changes);
  const written = await writeTenantRow(controlCtx(ctx), { tenantId: ctx.tenantId, changes: input.changes, withBefore: true });
  if (written.before) {
    const before = auditView(written.before);
    const after = auditView(written.row);
    const entries = [
      { action: "school.branding_updated", summary: "School branding updated", changes: diffRows(before, after, BRANDING_FIELDS) },
      { action: "school.settings_updated", summary: "School settings updated", changes: diffRows(before, after, SETTINGS_FIELDS) },
    ].filter((entry) => Object.keys(entry.changes).length > 0);
    await runBatch(ctx, entries.map((entry) => auditEntry(ctx, { ...entry, targetType: "school", targetId: ctx.tenantId })));
  }
  return tenantRecord(controlCtx(ctx), written.row);
}

const BRANDING_FIELDS = ["title", "logo", "color_scheme"] as const;
const SETTINGS_FIELDS = ["hide_tests", "hide_assignments", "hide_trial_exams", "timezone"] as const;

/** The audited fields of a school row under the API's names (the logo as stored: a URL or an asset id, never a signed link). */
function auditView(row: typeof tenants.$inferSelect): Record<string, unknown> {
  return {
    title: row.title,
    logo: row.logo,
    color_scheme: row.colorScheme,
    hide_tests: row.hideTests,
    hide_assignments: row.hideAssignments,
    hide_trial_exams: row.hideTrialExams,
    timezone: row.timezone,
  };
}

function checkLogo(ctx: SchoolCtx<SchoolActor>, changes: SchoolTenantChanges): Promise<void> {
  return imageRef.check(ctx, { tenantId: ctx.tenantId, field: "logo", value: changes.logo, invalid: tenantsErrors.VALIDATION_ERROR });
}

/** The school row's update in the control database (`ctx.db` is control); `withBefore` also reads the row ahead of it, in the same batch. */
async function writeTenant(ctx: ServiceContext, input: { tenantId: string; changes: TenantChanges }) {
  const { row } = await writeTenantRow(ctx, { ...input, withBefore: false });
  return tenantRecord(ctx, row);
}

async function writeTenantRow(ctx: ServiceContext, input: { tenantId: string; changes: TenantChanges; withBefore: boolean }) {
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
  const read = ctx.db.select().from(tenants).where(liveTenant(input.tenantId)).limit(1);
  if (Object.keys(set).length === 0) {
    const [row] = await read;
    if (!row) throw new ApiError(tenantsErrors.TENANT_NOT_FOUND);
    return { row, before: undefined };
  }
  const update = ctx.db
    .update(tenants)
    .set({ ...set, updatedAt: ctx.clock.now() })
    .where(liveTenant(input.tenantId))
    .returning();
  const [before, [row]] = input.withBefore ? await ctx.db.batch([read, update]) : [[], await update];
  if (!row) throw new ApiError(tenantsErrors.TENANT_NOT_FOUND);
  return { row, before: before[0] };
}

/**
 * DELETE /admin/tenants/:id (soft). Branding, login and every token of the school stop at once:
 * they all read the school's control row with `deleted_at IS NULL`. Then the members' personal
 * files (avatars) are marked deleted in the school's shard (src/platform/users/personal-data.ts);
 * the school's shared content keeps its files. The control row goes first: were the shard write
 * to fail, the school is already closed, and repeating the call (404 then) is not needed for that.
 */
export async function deleteTenant(ctx: ServiceContext, input: { tenantId: string }) {
  const now = ctx.clock.now();
  const [deleted] = await ctx.db
    .update(tenants)
    .set({ deletedAt: now, updatedAt: now })
    .where(liveTenant(input.tenantId))
    .returning(schoolSummaryColumns);
  if (!deleted) throw new ApiError(tenantsErrors.TENANT_NOT_FOUND);
  const school = forSchool(ctx, schoolSummary(deleted), systemActor("school_deletion"));
  await runBatch(school, personalFilesDeletion(school, {}));
  return { deleted: true as const };
}

/**
 * GET /t/tenant: the addressed school. Authenticate already read it live, so the 404 only
 * answers a deletion between the two reads.
 */
export async function getOwnTenant(ctx: SchoolCtx) {
  const control = controlCtx(ctx);
  const [row] = await control.db.select().from(tenants).where(liveTenant(ctx.tenantId)).limit(1);
  if (!row) throw new ApiError(tenantsErrors.TENANT_NOT_FOUND);
  return tenantRecord(control, row);
}

/** The platform side of a school context: the school row is the control database's, not the shard's. */
function controlCtx(ctx: SchoolCtx): ServiceContext {
  return { ...ctx, db: controlDb(ctx.env) };
}
