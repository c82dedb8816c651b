import type { QueueMessage } from "../../core/env";
import type { ServiceContext } from "../../core/http/context";
import { isUuid } from "../../core/lib/ids";
import { log } from "../../core/lib/log";
import { systemActor } from "../../core/school";
import { forSchoolId } from "../../platform/schools/lookup";
import { applyChunk } from "./chunk";
import { sendChunk } from "./service";

/** wrangler.toml: the queue a regrade above one chunk sends `regrade` messages to. */
export const REGRADE_QUEUE = "lms-regrade";

/**
 * The regrade queue's consumer (docs/decisions/regrade.md, "Chunks and the queue"): one chunk per
 * message, then a message for the next chunk while attempts are left. A chunk is safe to run again
 * (a crash is retried by the queue; a duplicate message re-scores nothing twice).
 */
export async function handleRegradeBatch(batch: MessageBatch<QueueMessage>, ctx: ServiceContext): Promise<void> {
  for (const message of batch.messages) {
    const body = message.body;
    if (body?.kind !== "regrade" || !isUuid(body.tenant_id) || !isUuid(body.regrade_id) || !isUuid(body.question_id)) {
      log.warn("regrade message dropped", { message_id: message.id });
      message.ack();
      continue;
    }
    try {
      const school = await forSchoolId(ctx, body.tenant_id, systemActor("regrade"));
      if (school) {
        const input = { regradeId: body.regrade_id, questionId: body.question_id };
        const { done } = await applyChunk(school, input);
        if (!done) await sendChunk(school, input);
      }
      message.ack();
    } catch (err) {
      log.error("regrade chunk crashed", { regrade_id: body.regrade_id, message_attempts: message.attempts, error: String(err) });
      message.retry();
    }
  }
}
