import { log } from "./core/lib/log";
import { purgeStaleLoginFailures } from "./platform/auth/login-guard";
import type { Env } from "./core/env";
import type { ServiceContext } from "./core/http/context";
import { jobContext } from "./contributors";
import { runDeadlineScan } from "./content/schedule/deadline-scan";
import { runProgressScan } from "./content/enrollments/progress-scan";
import { runBillingExpiry } from "./platform/billing/expiry-job";
import { purgeDeviceEvents } from "./platform/devices/events-purge-job";
import { purgeAuditEntries } from "./platform/audit/retention-job";
import { sweepOutbox } from "./platform/email/outbox-sweep-job";
import { sweepMedia } from "./platform/media/sweep-job";
import { sweepPushes } from "./platform/notifications/sweep-job";
import { sweepImports } from "./content/imports/expiry-job";
import { sweepWebhooks } from "./platform/webhooks/sweep-job";
import { sweepDataExports } from "./platform/data-export/sweep-job";

const JOBS: [name: string, run: (ctx: ServiceContext) => Promise<unknown>][] = [
  ["outbox_sweep", sweepOutbox],
  ["billing_expiry", runBillingExpiry],
  ["deadline_scan", runDeadlineScan],
  ["progress_scan", runProgressScan],
  // After the billing job, so the pushes it queued are looked at in the same run if their message was lost.
  ["push_sweep", sweepPushes],
  ["device_events_purge", purgeDeviceEvents],
  ["audit_retention", purgeAuditEntries],
  ["webhook_sweep", sweepWebhooks],
  ["login_failures_purge", purgeStaleLoginFailures],
  ["media_sweep", sweepMedia],
  ["imports_sweep", sweepImports],
  ["data_export_sweep", sweepDataExports],
];

/**
 * Every cron run calls the same service verbs the API uses; each job is idempotent. A failing job
 * is logged and does not keep the others from running (they would fail the same way every run).
 */
export async function runScheduled(_controller: ScheduledController, env: Env): Promise<void> {
  const ctx = jobContext(env);
  const failed: string[] = [];
  for (const [name, run] of JOBS) {
    try {
      await run(ctx);
    } catch (err) {
      failed.push(name);
      log.error("cron job failed", { job: name, error: String(err) });
    }
  }
  // Still a failed invocation in the Workers dashboard, after every job had its turn.
  if (failed.length > 0) throw new Error(`cron jobs failed: ${failed.join(", ")}`);
}
