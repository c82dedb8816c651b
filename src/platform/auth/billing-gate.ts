import type { Actor, TenantSummary } from "../../core/http/context";
import { ApiError, coreErrors } from "../../core/http/errors";
import type { BillingRule } from "../../core/http/route";
import { effectivePlanState } from "../billing/state";

function billingBlocked(tenant: TenantSummary, now: number): boolean {
  // The gate compares with the clock, so an ended period blocks at expires_at without waiting for the cron.
  return effectivePlanState(tenant, now) === "suspended";
}

/**
 * The billing half of the guard on `/t/*` routes. The superadmin is never blocked, so the platform
 * can still reach a school it suspended.
 */
export function checkBilling(rule: BillingRule, actor: Actor, now: number): void {
  if (actor.role === "superadmin" || !actor.tenant || rule === "whitelisted") return;
  if (rule === "open_unless_manual") {
    if (actor.tenant.suspendedManually) throw new ApiError(coreErrors.PAYMENT_REQUIRED);
    return;
  }
  if (billingBlocked(actor.tenant, now)) throw new ApiError(coreErrors.PAYMENT_REQUIRED);
}
