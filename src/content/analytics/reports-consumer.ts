import type { QueueMessage } from "../../core/env";
import type { ServiceContext } from "../../core/http/context";
import { isUuid } from "../../core/lib/ids";
import { log } from "../../core/lib/log";
import { handleSchoolMessages } from "../../platform/schools/school-messages";
import { runReport, sendReportRun } from "./reports";

/** wrangler.toml: the queue a curator analytics read sends `curator_report` runs to. */
export const CURATOR_REPORTS_QUEUE = "lms-curator-reports";
/** Slices per message before the next message takes over: 5,000 students in one message. */
export const SLICES_PER_MESSAGE = 20;

/**
 * Up to `SLICES_PER_MESSAGE` slices of a run per message, then a message for the rest
 * (docs/decisions/heavy-reads-curators.md, "Curator analytics snapshots"). Each slice is its own
 * statements, so the shard is free between them. A run whose messages were lost is started again
 * by a read after the debounce.
 */
export function handleCuratorReportBatch(batch: MessageBatch<QueueMessage>, ctx: ServiceContext): Promise<void> {
  return handleSchoolMessages(batch, ctx, {
    kind: "curator_report",
    name: "curator report",
    valid: (body) => isUuid(body.report_id) && isUuid(body.run_id),
    logged: (body) => ({ report_id: body.report_id }),
    run: async (school, body) => {
      const run = await runReport(school, { reportId: body.report_id, runId: body.run_id, slices: SLICES_PER_MESSAGE });
      if (run.state === "more") await sendReportRun(school, body.report_id, body.run_id);
      // The slowest slice's D1 time is the longest this run held the shard in one statement.
      log.info("curator report slices", { report_id: body.report_id, state: run.state, slices: run.slices, slowest_slice_ms: run.slowestMs });
    },
  });
}
