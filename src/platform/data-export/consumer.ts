import type { QueueMessage } from "../../core/env";
import type { ServiceContext } from "../../core/http/context";
import { isUuid } from "../../core/lib/ids";
import { log } from "../../core/lib/log";
import { systemActor } from "../../core/school";
import { forSchoolId } from "../schools/lookup";
import { buildExport } from "./build";

/** wrangler.toml: the queue POST …/data-export sends `data_export` messages to. */
export const DATA_EXPORT_QUEUE = "lms-data-export";

/**
 * The export queue's consumer: one export per message. A message the Worker cannot use is dropped
 * with a log line; a crash before the build started (D1 unavailable) is retried by the queue; a
 * build that fails marks its export failed (src/platform/data-export/build.ts).
 */
export async function handleDataExportBatch(batch: MessageBatch<QueueMessage>, ctx: ServiceContext): Promise<void> {
  for (const message of batch.messages) {
    const body = message.body;
    if (body?.kind !== "data_export" || !isUuid(body.tenant_id) || !isUuid(body.export_id)) {
      log.warn("data export message dropped", { message_id: message.id });
      message.ack();
      continue;
    }
    try {
      const school = await forSchoolId(ctx, body.tenant_id, systemActor("data_export"));
      if (school) await buildExport(school, { exportId: body.export_id });
      message.ack();
    } catch (err) {
      log.error("data export crashed", { export_id: body.export_id, message_attempts: message.attempts, error: String(err) });
      message.retry();
    }
  }
}
