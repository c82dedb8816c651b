import type { QueueMessage } from "../../core/env";
import type { ServiceContext } from "../../core/http/context";
import { isUuid } from "../../core/lib/ids";
import { handleSchoolMessages } from "../../platform/schools/school-messages";
import { recomputeSnapshot } from "./service";

/** wrangler.toml: the queue a stale item analysis read sends `item_analysis` messages to. */
export const ITEM_ANALYSIS_QUEUE = "lms-item-analysis";

/**
 * One quiz's snapshot per message (docs/decisions/item-analysis.md, "Snapshot and freshness"). A
 * message lost for good is asked for again by a read after the debounce.
 */
export function handleItemAnalysisBatch(batch: MessageBatch<QueueMessage>, ctx: ServiceContext): Promise<void> {
  return handleSchoolMessages(batch, ctx, {
    kind: "item_analysis",
    name: "item analysis",
    valid: (body) => isUuid(body.quiz_id),
    logged: (body) => ({ quiz_id: body.quiz_id }),
    run: (school, body) => recomputeSnapshot(school, body.quiz_id),
  });
}
