import type { QueueMessage } from "../../core/env";
import type { ServiceContext } from "../../core/http/context";
import { isUuid } from "../../core/lib/ids";
import { handleSchoolMessages } from "../../platform/schools/school-messages";
import { applyChunk } from "./chunk";
import { sendChunk } from "./service";

/** wrangler.toml: the queue a regrade above one chunk sends `regrade` messages to. */
export const REGRADE_QUEUE = "lms-regrade";

/**
 * The regrade queue's consumer (docs/decisions/regrade.md, "Chunks and the queue"): one chunk per
 * message, then a message for the next chunk while attempts are left. A duplicate message
 * re-scores nothing twice.
 */
export function handleRegradeBatch(batch: MessageBatch<QueueMessage>, ctx: ServiceContext): Promise<void> {
  return handleSchoolMessages(batch, ctx, {
    kind: "regrade",
    name: "regrade",
    valid: (body) => isUuid(body.regrade_id) && isUuid(body.question_id),
    logged: (body) => ({ regrade_id: body.regrade_id }),
    run: async (school, body) => {
      const input = { regradeId: body.regrade_id, questionId: body.question_id };
      const { done } = await applyChunk(school, input);
      if (!done) await sendChunk(school, input);
    },
  });
}
