import { sql, type SQL } from "drizzle-orm";
import { tenants } from "../../db/schema";
import { DAY_MS, daysRemaining, isoOrNull } from "../../core/lib/clock";

/** Money is integer tiyn of the Uzbek sum (docs/decisions/architecture.md, "Architecture"). */
export const CURRENCY = "UZS";

type PlanState = "trial" | "paid" | "suspended";

/**
 * The plan state clients see: an ended period reads as `suspended` from the moment of
 * `expires_at`, exactly like the billing gate, so no answer depends on when the cron last ran.
 */
export function effectivePlanState(row: { planState: string; expiresAt: number | null }, now: number): PlanState {
  // The billing gate (src/platform/auth/billing-gate.ts) blocks exactly when this says `suspended`.
  return row.planState === "suspended" || (row.expiresAt !== null && row.expiresAt <= now) ? "suspended" : (row.planState as PlanState);
}

/** `effectivePlanState` as SQL, for filters over many schools. */
export function effectivePlanStateSql(now: number): SQL<PlanState> {
  return sql<PlanState>`CASE WHEN ${tenants.planState} = 'suspended' OR (${tenants.expiresAt} IS NOT NULL AND ${tenants.expiresAt} <= ${now}) THEN 'suspended' ELSE ${tenants.planState} END`;
}

/**
 * A purchased period starts at the current expiry while that is still ahead (no paid or trial day
 * is lost), otherwise now. Computed inside the UPDATE so concurrent purchases add up.
 */
export function newExpirySql(now: number, days: number): SQL<number> {
  return sql<number>`max(coalesce(${tenants.expiresAt}, 0), ${now}) + ${days * DAY_MS}`;
}

/** The billing summary a school member sees (GET /auth/me, GET /t/me/profile): one rule for both. */
export function billingSummary(tenant: { planState: string; expiresAt: number | null; timezone: string }, now: number) {
  return {
    plan_state: effectivePlanState(tenant, now),
    expires_at: isoOrNull(tenant.expiresAt),
    days_remaining: daysRemaining(tenant.expiresAt, now, tenant.timezone),
  };
}
