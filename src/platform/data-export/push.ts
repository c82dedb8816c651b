import { sql } from "drizzle-orm";
import type { BatchItem } from "../../core/db/batch";
import { inSchool } from "../../core/db/conditions";
import type { SchoolActor, SchoolCtx } from "../../core/http/context";
import type { EventDefinition } from "../notifications/catalog";
import { enqueue } from "../notifications/enqueue";

/**
 * `account.data_export_ready` (05 section 7), outside the 63: its own code, fixed ru/en templates,
 * always on, not listed by GET /admin/events. It goes to whoever asked for the export, the one
 * exception to "no push to the actor" this area has: the export is built by the queue, so the
 * context's actor is a system job and nobody is left out.
 */
export const DATA_EXPORT_READY: EventDefinition = {
  code: "account.data_export_ready",
  category: "account",
  name: "Your data export is ready",
  description: "the personal-data export someone asked for (POST /t/me/data-export, POST /t/users/:id/data-export) is ready to download",
  source: "domain_event",
  recipients: "user",
  aggregateType: "data_export",
  variables: [],
  defaultEnabled: true,
  defaultConfig: {},
  implemented: true,
  templates: {
    ru: { title: "Выгрузка данных готова", body: "Файл с персональными данными готов. Скачать его можно в течение 7 дней." },
    en: { title: "Your data export is ready", body: "The file with the personal data is ready. It can be downloaded for 7 days." },
  },
};

/** The push for the batch that marks the export ready; the dedupe key names the export, so a rebuilt one tells nobody twice. */
export async function exportReadyPush(ctx: SchoolCtx<SchoolActor>, input: { exportId: string; requestedBy: string }): Promise<BatchItem> {
  return enqueue(
    ctx,
    DATA_EXPORT_READY,
    { token: "user", userId: input.requestedBy },
    {},
    { id: input.exportId, type: "data_export" },
    `${DATA_EXPORT_READY.code}:${input.exportId}`,
    { when: sql`EXISTS (SELECT 1 FROM data_exports x WHERE ${inSchool("x", ctx.tenantId)} AND x.id = ${input.exportId} AND x.status = 'ready')` },
  );
}
