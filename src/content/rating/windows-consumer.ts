import type { QueueMessage } from "../../core/env";
import type { ServiceContext } from "../../core/http/context";
import { isUuid } from "../../core/lib/ids";
import { handleSchoolMessages } from "../../platform/schools/school-messages";
import { buildWindowRun, removeStaleWindows, sendWindowRun } from "./windows";

/** wrangler.toml: the queue a board read without a window snapshot sends `rating_window` runs to. */
export const RATING_WINDOWS_QUEUE = "lms-rating-windows";
/** Runs of `WINDOW_RUN` students per message before the next message takes over. */
export const RUNS_PER_MESSAGE = 10;

/**
 * Up to `RUNS_PER_MESSAGE` runs of a window's build per message, then a message for the next ones
 * while students are left (docs/decisions/heavy-reads-rating.md, "Window snapshots"). A window's first run also removes
 * the school's windows nobody asked for lately. A window whose messages were lost is asked for
 * again by a read after the debounce.
 */
export function handleRatingWindowBatch(batch: MessageBatch<QueueMessage>, ctx: ServiceContext): Promise<void> {
  return handleSchoolMessages(batch, ctx, {
    kind: "rating_window",
    name: "rating window",
    valid: (body) => isUuid(body.window_id) && typeof body.after === "string" && (body.after === "" || isUuid(body.after)),
    logged: (body) => ({ window_id: body.window_id }),
    run: async (school, body) => {
      if (body.after === "") await removeStaleWindows(school);
      // Several runs per message, each its own statement, so the shard is free between them and a
      // school of 5,000 students is built in one message rather than a queue delay per run.
      let after = body.after;
      for (let runs = 0; runs < RUNS_PER_MESSAGE; runs += 1) {
        const run = await buildWindowRun(school, { windowId: body.window_id, after });
        if (run.done || run.last === null) break;
        after = run.last;
        if (runs === RUNS_PER_MESSAGE - 1) await sendWindowRun(school, body.window_id, after);
      }
    },
  });
}
