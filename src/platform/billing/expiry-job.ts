import { queueExpiryReminders, suspendEndedPeriods } from "./expiry-service";
import type { ServiceContext } from "../../core/http/context";

/** Cron: write down ended periods, then queue the expiry reminders. Both steps are idempotent. */
export async function runBillingExpiry(ctx: ServiceContext): Promise<{ suspended: number; reminders: number }> {
  const suspended = await suspendEndedPeriods(ctx);
  const reminders = await queueExpiryReminders(ctx);
  return { suspended, reminders };
}
