import type { Env } from "../env";
import { serviceContext } from "../http/request-context";
import { sweepOutbox } from "./outbox-sweep";
import { runBillingExpiry } from "./billing-expiry";
import { purgeDeviceEvents } from "./device-events-purge";

/** Every cron run calls the same service verbs the API uses; each job is idempotent. */
export async function runScheduled(_controller: ScheduledController, env: Env): Promise<void> {
  const ctx = serviceContext(env);
  await sweepOutbox(ctx);
  await runBillingExpiry(ctx);
  await purgeDeviceEvents(ctx);
}
