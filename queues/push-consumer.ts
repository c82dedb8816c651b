import type { Env, PushMessage } from "../src/core/env";
import { jobContext } from "../src/contributors";
import { systemActor } from "../src/core/school";
import { forSchoolId } from "../src/platform/schools/lookup";
import { log } from "../src/core/lib/log";
import { fanOutCampaign } from "../src/platform/notifications/campaign-fanout";
import { deliverDue } from "../src/platform/notifications/delivery";
import { pushProvider } from "./push-providers";
import type { FetchFn } from "./providers/types";

/** wrangler.toml: the push queue, its messages (`push`, `campaign`) and their consumer. */
export const PUSH_QUEUE = "lms-push";

/** A queue message may wait at most 12 hours; the cron picks up campaigns scheduled further out. */
const MAX_DELAY_SECONDS = 43_200;

interface PushDeps {
  fetch: FetchFn;
}

const defaultDeps: PushDeps = { fetch: (input, init) => fetch(input, init) };

/**
 * Push delivery and campaign fan-out. Messages only point at work ("school X has rows due",
 * "campaign Y has recipients left"); the rows decide what is done, so duplicates, redeliveries and
 * the cron sweep's extra messages are harmless. A crash retries the message; the rows' leases and
 * the per-device delivery records keep a push from going out twice.
 */
export async function handlePushBatch(batch: MessageBatch<PushMessage>, env: Env, deps: PushDeps = defaultDeps): Promise<void> {
  const ctx = jobContext(env);
  const provider = pushProvider(ctx.config, deps.fetch);
  for (const message of batch.messages) {
    const body = message.body as Partial<PushMessage> | null;
    try {
      // A school deleted meanwhile has nobody left to push to: the message is dropped.
      const school = typeof body?.tenant_id === "string" ? await forSchoolId(ctx, body.tenant_id, systemActor(`push_${body.kind}`)) : null;
      if (body?.kind === "push" && typeof body.tenant_id === "string") {
        if (school) await deliverDue(school, provider);
      } else if (body?.kind === "campaign" && typeof body.tenant_id === "string" && typeof body.campaign_id === "string") {
        const step: Awaited<ReturnType<typeof fanOutCampaign>> = school ? await fanOutCampaign(school, { campaignId: body.campaign_id }) : { outcome: "not_found" as const };
        if (step.outcome === "not_due" && step.scheduledAt !== undefined) {
          // Delivered early (or the schedule moved): come back at scheduled_at, or let the cron do it.
          const delaySeconds = Math.ceil((step.scheduledAt - ctx.clock.now()) / 1000);
          if (delaySeconds <= MAX_DELAY_SECONDS) {
            message.retry({ delaySeconds: Math.max(1, delaySeconds) });
            continue;
          }
        }
      } else {
        log.warn("push message of unknown shape dropped", { message_id: message.id });
      }
      message.ack();
    } catch (err) {
      log.error("push message crashed", { message_id: message.id, kind: body?.kind, message_attempts: message.attempts, error: String(err) });
      message.retry();
    }
  }
}
