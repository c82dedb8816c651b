import { sql } from "drizzle-orm";
import { batchable, type BatchItem } from "../../core/db/batch";
import type { ServiceContext } from "../../core/http/context";
import { inSchool } from "../../core/db/conditions";

/**
 * A campaign's counters, recounted from its outbox rows (so no increment can be lost or applied
 * twice), and its end: once the fan-out is over and no row is pending, `failed` when recipients
 * could only fail and none was reached, else `completed` (none deliverable included). A cancelled
 * campaign keeps its state; its counters still move for pushes already on their way.
 */
export function campaignProgressStatements(ctx: ServiceContext, tenantId: string, campaignId: string): BatchItem[] {
  const now = ctx.clock.now();
  return [
    batchable(ctx, sql`
      UPDATE notification_campaigns SET
        outbox_created_count = (SELECT count(*) FROM notification_outbox o WHERE o.campaign_id = ${campaignId}),
        sent_count = (SELECT count(*) FROM notification_outbox o WHERE o.campaign_id = ${campaignId} AND o.sent_at IS NOT NULL),
        failed_count = (SELECT count(*) FROM notification_outbox o WHERE o.campaign_id = ${campaignId} AND o.status = 'failed' AND o.sent_at IS NULL),
        updated_at = ${now}
      WHERE id = ${campaignId} AND ${inSchool(tenantId)}`),
    batchable(ctx, sql`
      UPDATE notification_campaigns SET
        status = CASE WHEN failed_count > 0 AND sent_count = 0 THEN 'failed' ELSE 'completed' END,
        completed_at = ${now}, updated_at = ${now}
      WHERE id = ${campaignId} AND ${inSchool(tenantId)} AND status = 'processing' AND fanned_out_at IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM notification_outbox o WHERE o.campaign_id = ${campaignId} AND o.status = 'pending')`),
  ];
}
