import type { Env, WebhookMessage } from "../src/core/env";
import { jobContext } from "../src/contributors";
import { systemActor } from "../src/core/school";
import { log } from "../src/core/lib/log";
import { forSchoolId } from "../src/platform/schools/lookup";
import { deliverDueWebhooks, type FetchFn } from "../src/platform/webhooks/delivery";

/** wrangler.toml: the webhook delivery queue. */
export const WEBHOOKS_QUEUE = "lms-webhooks";

const defaultFetch: FetchFn = (input, init) => fetch(input, init);

/**
 * "School X has webhook deliveries due": the rows decide what is sent (claimed under a lease), so
 * duplicate messages and the cron sweep's extra ones are harmless. A crash retries the message.
 */
export async function handleWebhookBatch(batch: MessageBatch<WebhookMessage>, env: Env, deps: { fetch: FetchFn } = { fetch: defaultFetch }): Promise<void> {
  const ctx = jobContext(env);
  for (const message of batch.messages) {
    const body = message.body as Partial<WebhookMessage> | null;
    try {
      if (body?.kind === "webhooks" && typeof body.tenant_id === "string") {
        // A school deleted meanwhile has nothing left to deliver: the message is dropped.
        const school = await forSchoolId(ctx, body.tenant_id, systemActor("webhooks"));
        if (school) await deliverDueWebhooks(school, deps.fetch);
      } else {
        log.warn("webhook message of unknown shape dropped", { message_id: message.id });
      }
      message.ack();
    } catch (err) {
      log.error("webhook message crashed", { message_id: message.id, message_attempts: message.attempts, error: String(err) });
      message.retry();
    }
  }
}
