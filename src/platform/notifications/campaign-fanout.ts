import { and, eq, sql } from "drizzle-orm";
import { notificationCampaigns } from "../../db/schema";
import { batchable, runBatch } from "../../core/db/batch";
import type { SchoolActor, SchoolCtx } from "../../core/http/context";
import { log } from "../../core/lib/log";
import { campaignProgressStatements } from "./campaign-progress";
import { CAMPAIGN_EVENT_CODE } from "./catalog";
import { sqlUuidv7 } from "../../core/db/sql-ids";
import { billingOpen, reachableSql, sendDispatch } from "./enqueue";
import { inSchool, liveInSchool } from "../../core/db/conditions";

/** Recipients turned into outbox rows per queue message. */
export const FANOUT_CHUNK = 500;

export type FanoutOutcome = "not_found" | "not_due" | "finished" | "more" | "done";

/**
 * One step of a campaign's fan-out, run by the push consumer: at `scheduled_at` the campaign moves
 * from `scheduled` to `processing`, then each step turns the next chunk of its frozen recipients
 * into outbox rows (recipients with push off, no enabled device or no longer active are
 * suppressed), all in one batch. Steps are safe to repeat: the dedupe key allows one row per
 * recipient, and only `pending` recipients of a `processing` campaign are taken.
 */
export async function fanOutCampaign(ctx: SchoolCtx<SchoolActor>, input: { campaignId: string }): Promise<{ outcome: FanoutOutcome; scheduledAt?: number }> {
  const now = ctx.clock.now();
  const { tenantId } = ctx;
  const { campaignId } = input;
  // The school's billing gate, as the control database had it when the context was built: a closed
  // gate writes no rows (the recipients end up suppressed), as the producer helper does.
  const open = billingOpen(ctx.tenant, now);
  const [started] = (await runBatch(ctx, [
    ctx.db
      .update(notificationCampaigns)
      .set({ status: "processing", startedAt: now, updatedAt: now })
      .where(
        and(
          eq(notificationCampaigns.id, campaignId),
          inSchool(notificationCampaigns, tenantId),
          eq(notificationCampaigns.status, "scheduled"),
          sql`${notificationCampaigns.scheduledAt} <= ${now}`,
        ),
      ),
    ctx.db.select().from(notificationCampaigns).where(and(eq(notificationCampaigns.id, campaignId), inSchool(notificationCampaigns, tenantId))),
  ])).slice(1) as [(typeof notificationCampaigns.$inferSelect)[]];
  const campaign = started[0];
  if (!campaign) return { outcome: "not_found" };
  if (campaign.status === "scheduled") return { outcome: "not_due", scheduledAt: campaign.scheduledAt };
  if (campaign.status !== "processing" || campaign.fannedOutAt !== null) return { outcome: "finished" };

  const processing = sql`EXISTS (SELECT 1 FROM notification_campaigns c WHERE c.id = ${campaignId} AND ${inSchool("c", tenantId)} AND c.status = 'processing')`;
  const chunk = sql`SELECT user_id FROM notification_campaign_recipients
    WHERE campaign_id = ${campaignId} AND ${inSchool(tenantId)} AND status = 'pending' ORDER BY user_id LIMIT ${FANOUT_CHUNK}`;
  const dedupePrefix = `${CAMPAIGN_EVENT_CODE}:${campaignId}:`;
  const data = JSON.stringify({ event_code: CAMPAIGN_EVENT_CODE, campaign_id: campaignId });
  const results = await runBatch(ctx, [
    batchable(ctx, sql`
      INSERT INTO notification_outbox (id, tenant_id, user_id, event_code, category, title, body, deep_link, data, aggregate_type, aggregate_id, dedupe_key, status, attempts, created_at, campaign_id)
      SELECT ${sqlUuidv7(now)}, u.tenant_id, u.id, ${CAMPAIGN_EVENT_CODE}, 'campaign', ${campaign.title}, ${campaign.body}, ${campaign.deepLink},
             ${data}, 'campaign', ${campaignId}, ${dedupePrefix} || u.id, 'pending', 0, ${now}, ${campaignId}
      FROM users u
      WHERE u.id IN (${chunk}) AND ${liveInSchool("u", tenantId)} AND u.is_active = 1
        AND ${reachableSql(sql`u`, tenantId)}
        AND ${open ? sql`1` : sql`0`}
        AND ${processing}
      ON CONFLICT (dedupe_key) DO NOTHING`),
    batchable(ctx, sql`
      UPDATE notification_campaign_recipients
      SET status = CASE WHEN EXISTS (SELECT 1 FROM notification_outbox o WHERE o.dedupe_key = ${dedupePrefix} || notification_campaign_recipients.user_id)
                        THEN 'queued' ELSE 'suppressed' END
      WHERE campaign_id = ${campaignId} AND ${inSchool(tenantId)} AND status = 'pending' AND user_id IN (${chunk}) AND ${processing}`),
    batchable(ctx, sql`
      UPDATE notification_campaigns SET fanned_out_at = ${now}, updated_at = ${now}
      WHERE id = ${campaignId} AND ${inSchool(tenantId)} AND status = 'processing' AND fanned_out_at IS NULL
        AND NOT EXISTS (SELECT 1 FROM notification_campaign_recipients r WHERE r.campaign_id = ${campaignId} AND r.status = 'pending')`),
    ...campaignProgressStatements(ctx, tenantId, campaignId),
    ctx.db
      .select({ status: notificationCampaigns.status, fannedOutAt: notificationCampaigns.fannedOutAt })
      .from(notificationCampaigns)
      .where(eq(notificationCampaigns.id, campaignId)),
  ]);
  const [after] = results[results.length - 1] as { status: string; fannedOutAt: number | null }[];
  await sendDispatch(ctx, [tenantId]);
  // Cancelled meanwhile: nothing is left to fan out.
  if (after?.status !== "processing" && after?.fannedOutAt == null) return { outcome: "finished" };
  if (after?.fannedOutAt == null) {
    try {
      await ctx.env.PUSH_OUTBOX.send({ kind: "campaign", tenant_id: tenantId, campaign_id: campaignId });
    } catch (err) {
      log.error("next campaign chunk not queued; the cron will continue it", { campaign_id: campaignId, error: String(err) });
    }
    return { outcome: "more" };
  }
  return { outcome: "done" };
}
