import type { QueueMessage } from "../../core/env";
import type { ServiceContext } from "../../core/http/context";
import { isUuid } from "../../core/lib/ids";
import { log } from "../../core/lib/log";
import { systemActor } from "../../core/school";
import { forSchoolId } from "../../platform/schools/lookup";
import { recomputeSnapshot } from "./service";

/** wrangler.toml: the queue a stale item analysis read sends `item_analysis` messages to. */
export const ITEM_ANALYSIS_QUEUE = "lms-item-analysis";

/**
 * One quiz's snapshot per message (docs/decisions/item-analysis.md, "Snapshot and freshness"). A
 * message the Worker cannot use is dropped with a log line; a crash (D1 unavailable) is retried by
 * the queue, and a message lost for good is asked for again by a read after the debounce.
 */
export async function handleItemAnalysisBatch(batch: MessageBatch<QueueMessage>, ctx: ServiceContext): Promise<void> {
  for (const message of batch.messages) {
    const body = message.body;
    if (body?.kind !== "item_analysis" || !isUuid(body.tenant_id) || !isUuid(body.quiz_id)) {
      log.warn("item analysis message dropped", { message_id: message.id });
      message.ack();
      continue;
    }
    try {
      const school = await forSchoolId(ctx, body.tenant_id, systemActor("item_analysis"));
      if (school) await recomputeSnapshot(school, body.quiz_id);
      message.ack();
    } catch (err) {
      log.error("item analysis recompute crashed", { quiz_id: body.quiz_id, message_attempts: message.attempts, error: String(err) });
      message.retry();
    }
  }
}
