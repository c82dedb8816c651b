import type { QueueMessage } from "../../core/env";
import type { ServiceContext } from "../../core/http/context";
import { isUuid } from "../../core/lib/ids";
import { handleSchoolMessages } from "../schools/school-messages";
import { buildExport } from "./build";

/** wrangler.toml: the queue POST …/data-export sends `data_export` messages to. */
export const DATA_EXPORT_QUEUE = "lms-data-export";

/**
 * The export queue's consumer: one export per message (the shared loop: `handleSchoolMessages`).
 * A build that fails marks its export failed (src/platform/data-export/build.ts).
 */
export function handleDataExportBatch(batch: MessageBatch<QueueMessage>, ctx: ServiceContext): Promise<void> {
  return handleSchoolMessages(batch, ctx, {
    kind: "data_export",
    name: "data export",
    valid: (body) => isUuid(body.export_id),
    logged: (body) => ({ export_id: body.export_id }),
    run: (school, body) => buildExport(school, { exportId: body.export_id }),
  });
}
