import type { tenants } from "../../db/schema";
import type { ServiceContext } from "../../core/http/context";
import { effectivePlanState } from "../billing/state";
import { iso, isoOrNull } from "../../core/lib/clock";
import { mediaUrl } from "../media/links";

type TenantRow = typeof tenants.$inferSelect;

/** The full school record (GET /t/tenant, the superadmin's school endpoints). */
export async function tenantRecord(ctx: ServiceContext, row: TenantRow) {
  return {
    id: row.id,
    title: row.title,
    slug: row.slug,
    subdomain: row.subdomain,
    logo: await mediaUrl(ctx, row.id, row.logo),
    color_scheme: row.colorScheme,
    hide_tests: row.hideTests,
    hide_assignments: row.hideAssignments,
    hide_trial_exams: row.hideTrialExams,
    status: row.status,
    timezone: row.timezone,
    storage_cap_bytes: row.storageCapBytes,
    plan_state: effectivePlanState(row, ctx.clock.now()),
    expires_at: isoOrNull(row.expiresAt),
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  };
}
