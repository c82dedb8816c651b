import { sql } from "drizzle-orm";
import { batchable, runBatch } from "../../core/db/batch";
import type { ServiceContext } from "../../core/http/context";
import { MINUTE_MS } from "../../core/lib/clock";
import { log } from "../../core/lib/log";
import { campaignProgressStatements } from "./campaign-progress";
import { kickCampaign } from "./campaigns-service";
import { MAX_PUSH_ATTEMPTS } from "./delivery";
import { sendDispatch } from "./enqueue";

/** A row older than this without a delivery has lost its message (or the message was never sent). */
const STALE_AFTER_MS = 2 * MINUTE_MS;
const MAX_SCHOOLS_PER_RUN = 500;
const MAX_CAMPAIGNS_PER_RUN = 200;

/**
 * Cron safety net of push delivery: rows that used up their attempts (their consumer kept
 * crashing) are failed; schools with rows due for more than two minutes get a dispatch message;
 * campaigns whose time has come (or whose fan-out stalled) get their next step. Idempotent.
 */
export async function sweepPushes(ctx: ServiceContext): Promise<{ failed: number; schools: number; campaigns: number }> {
  const now = ctx.clock.now();
  const [failedRows, dueSchools, dueCampaigns] = (await runBatch(ctx, [
    batchable(ctx, sql`
      UPDATE notification_outbox SET status = 'failed', settled_at = ${now}, lease_until = NULL,
        last_error = 'gave up after ' || attempts || ' attempts' || coalesce(': ' || last_error, '')
      WHERE status = 'pending' AND attempts >= ${MAX_PUSH_ATTEMPTS} AND (lease_until IS NULL OR lease_until <= ${now})
      RETURNING tenant_id, campaign_id`),
    batchable(ctx, sql`
      SELECT DISTINCT tenant_id FROM notification_outbox
      WHERE status = 'pending' AND created_at <= ${now - STALE_AFTER_MS} AND attempts < ${MAX_PUSH_ATTEMPTS}
        AND (lease_until IS NULL OR lease_until <= ${now})
      LIMIT ${MAX_SCHOOLS_PER_RUN}`),
    batchable(ctx, sql`
      SELECT id, tenant_id, scheduled_at FROM notification_campaigns
      WHERE (status = 'scheduled' AND scheduled_at <= ${now})
         OR (status = 'processing' AND fanned_out_at IS NULL AND updated_at <= ${now - STALE_AFTER_MS})
      ORDER BY scheduled_at LIMIT ${MAX_CAMPAIGNS_PER_RUN}`),
  ])) as { results: Record<string, unknown>[] }[];

  const failed = failedRows!.results as { tenant_id: string; campaign_id: string | null }[];
  const touched = new Map<string, string>();
  for (const row of failed) if (row.campaign_id) touched.set(row.campaign_id, row.tenant_id);
  // Campaigns whose last rows were failed here, or whose end a crash skipped.
  const finishing = (await ctx.db.all<{ id: string; tenant_id: string }>(sql`
    SELECT c.id, c.tenant_id FROM notification_campaigns c
    WHERE c.status = 'processing' AND c.fanned_out_at IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM notification_outbox o WHERE o.campaign_id = c.id AND o.status = 'pending')
    LIMIT ${MAX_CAMPAIGNS_PER_RUN}`)) as { id: string; tenant_id: string }[];
  for (const row of finishing) touched.set(row.id, row.tenant_id);
  await runBatch(ctx, [...touched].flatMap(([campaignId, tenantId]) => campaignProgressStatements(ctx, tenantId, campaignId)));

  const schools = (dueSchools!.results as { tenant_id: string }[]).map((row) => row.tenant_id);
  await sendDispatch(ctx, schools);
  const campaigns = dueCampaigns!.results as { id: string; tenant_id: string; scheduled_at: number }[];
  for (const campaign of campaigns) await kickCampaign(ctx, { tenantId: campaign.tenant_id, campaignId: campaign.id, scheduledAt: Math.min(campaign.scheduled_at, now) });
  if (failed.length > 0) log.warn("push rows failed after their attempts", { rows: failed.length });
  return { failed: failed.length, schools: schools.length, campaigns: campaigns.length };
}
