import type { Actor, TenantSummary } from "../../core/http/context";
import { effectivePlanState } from "../billing/state";
import { ApiError } from "../../core/http/errors";

/**
 * `enforced`: blocked while billing is suspended or expired.
 * `whitelisted`: the school read/branding endpoints, always open.
 * `open_unless_manual`: GET /t/billing/me, open on expiry but closed by a manual suspension.
 */
export type BillingRule = "enforced" | "whitelisted" | "open_unless_manual";

function billingBlocked(tenant: TenantSummary, now: number): boolean {
  // The gate compares with the clock, so an ended period blocks at expires_at without waiting for the cron.
  return effectivePlanState(tenant, now) === "suspended";
}

export function checkBilling(rule: BillingRule, actor: Actor, now: number): void {
  if (actor.role === "superadmin" || !actor.tenant || rule === "whitelisted") return;
  if (rule === "open_unless_manual") {
    if (actor.tenant.suspendedManually) throw new ApiError(403, "PAYMENT_REQUIRED");
    return;
  }
  if (billingBlocked(actor.tenant, now)) throw new ApiError(403, "PAYMENT_REQUIRED");
}
