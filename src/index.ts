import { app } from "./app";
import type { EmailMessage, Env, PushMessage, QueueMessage, WebhookMessage } from "./core/env";
import { log } from "./core/lib/log";
import { runScheduled } from "./scheduled";
import { jobContext } from "./contributors";
import { handleMediaMetadataBatch, MEDIA_METADATA_QUEUE } from "./platform/media/metadata-consumer";
import { handleOutboxBatch, handleOutboxDeadLetters, OUTBOX_DLQ, OUTBOX_QUEUE } from "../queues/outbox-consumer";
import { handlePushBatch, PUSH_QUEUE } from "../queues/push-consumer";
import { handleWebhookBatch, WEBHOOKS_QUEUE } from "../queues/webhook-consumer";
import { DATA_EXPORT_QUEUE, handleDataExportBatch } from "./platform/data-export/consumer";
import { handleItemAnalysisBatch, ITEM_ANALYSIS_QUEUE } from "./content/item-analysis/consumer";
import { handleRegradeBatch, REGRADE_QUEUE } from "./content/regrade/consumer";
import { handleRatingWindowBatch, RATING_WINDOWS_QUEUE } from "./content/rating/windows-consumer";
import { CURATOR_REPORTS_QUEUE, handleCuratorReportBatch } from "./content/analytics/reports-consumer";

export { SessionFamily } from "../durable-objects/session-family";
export { AttemptJournal } from "../durable-objects/attempt-journal";
export { ExamAttemptTimer } from "../durable-objects/exam-attempt-timer";

/** One consumer per queue name (wrangler.toml `[[queues.consumers]]`). */
const QUEUE_CONSUMERS: Record<string, (batch: MessageBatch<QueueMessage>, env: Env) => Promise<void>> = {
  // The outbox queues carry email messages only; their consumer checks each one's outbox id.
  [OUTBOX_QUEUE]: (batch, env) => handleOutboxBatch(batch as MessageBatch<EmailMessage>, env),
  [OUTBOX_DLQ]: (batch, env) => handleOutboxDeadLetters(batch as MessageBatch<EmailMessage>, env),
  [MEDIA_METADATA_QUEUE]: (batch, env) => handleMediaMetadataBatch(batch, jobContext(env)),
  [PUSH_QUEUE]: (batch, env) => handlePushBatch(batch as MessageBatch<PushMessage>, env),
  [WEBHOOKS_QUEUE]: (batch, env) => handleWebhookBatch(batch as MessageBatch<WebhookMessage>, env),
  [DATA_EXPORT_QUEUE]: (batch, env) => handleDataExportBatch(batch, jobContext(env)),
  [ITEM_ANALYSIS_QUEUE]: (batch, env) => handleItemAnalysisBatch(batch, jobContext(env)),
  [REGRADE_QUEUE]: (batch, env) => handleRegradeBatch(batch, jobContext(env)),
  [RATING_WINDOWS_QUEUE]: (batch, env) => handleRatingWindowBatch(batch, jobContext(env)),
  [CURATOR_REPORTS_QUEUE]: (batch, env) => handleCuratorReportBatch(batch, jobContext(env)),
};

async function dispatchQueue(batch: MessageBatch<QueueMessage>, env: Env): Promise<void> {
  const consume = QUEUE_CONSUMERS[batch.queue];
  if (consume) return consume(batch, env);
  // A queue bound in wrangler.toml without a consumer here: keep its messages for a later deploy.
  log.error("no consumer for queue", { queue: batch.queue, messages: batch.messages.length });
  batch.retryAll();
}

export default {
  fetch: app.fetch,
  queue: dispatchQueue,
  scheduled: (controller, env, ctx) => {
    ctx.waitUntil(runScheduled(controller, env));
  },
} satisfies ExportedHandler<Env, QueueMessage>;
