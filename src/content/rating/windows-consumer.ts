import type { QueueMessage } from "../../core/env";
import type { ServiceContext } from "../../core/http/context";
import { isUuid } from "../../core/lib/ids";
import { log } from "../../core/lib/log";
import { systemActor } from "../../core/school";
import { forSchoolId } from "../../platform/schools/lookup";
import { buildWindowRun, removeStaleWindows, sendNextWindowRun } from "./windows";

/** wrangler.toml: the queue a board read without a window snapshot sends `rating_window` runs to. */
export const RATING_WINDOWS_QUEUE = "lms-rating-windows";

/**
 * One run of a window's build per message, then a message for the next run while students are
 * left (docs/decisions/heavy-reads-rating.md, "Window snapshots"). A window's first run also removes
 * the school's windows nobody asked for lately. A run is safe to repeat; a crash is retried by the
 * queue, and a window whose messages were lost is asked for again by a read after the debounce.
 */
export async function handleRatingWindowBatch(batch: MessageBatch<QueueMessage>, ctx: ServiceContext): Promise<void> {
  for (const message of batch.messages) {
    const body = message.body;
    if (body?.kind !== "rating_window" || !isUuid(body.tenant_id) || !isUuid(body.window_id) || typeof body.after !== "string" || (body.after !== "" && !isUuid(body.after))) {
      log.warn("rating window message dropped", { message_id: message.id });
      message.ack();
      continue;
    }
    try {
      const school = await forSchoolId(ctx, body.tenant_id, systemActor("rating_window"));
      if (school) {
        if (body.after === "") await removeStaleWindows(school);
        const run = await buildWindowRun(school, { windowId: body.window_id, after: body.after });
        if (!run.done && run.last !== null) await sendNextWindowRun(school, body.window_id, run.last);
      }
      message.ack();
    } catch (err) {
      log.error("rating window run crashed", { window_id: body.window_id, message_attempts: message.attempts, error: String(err) });
      message.retry();
    }
  }
}
