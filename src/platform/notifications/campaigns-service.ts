import { and, desc, eq, sql, type SQL } from "drizzle-orm";
import { auditEntry } from "../audit/write";
import { auditFromRows, jsonValue } from "../audit/from-row";
import { notificationCampaigns } from "../../db/schema";
import { batchable, runBatch } from "../../core/db/batch";
import type { ServiceContext, SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { iso, isoOrNull } from "../../core/lib/clock";
import { uuidv7 } from "../../core/lib/ids";
import { log } from "../../core/lib/log";
import { pageOffset } from "../../core/http/pagination";
import { audienceCondition, parseFilter } from "./audience";
import { isSafeDeepLink } from "./deep-link";
import { campaignProgressStatements } from "./campaign-progress";
import { notificationsErrors as e } from "./errors";
import { BODY_MAX_BYTES, TITLE_MAX_BYTES, utf8Bytes } from "./render";
import { inSchool } from "../../core/db/conditions";

type CampaignRow = typeof notificationCampaigns.$inferSelect;

/** A queue message may wait at most 12 hours; later campaigns are picked up by the cron. */
const MAX_QUEUE_DELAY_SECONDS = 43_200;

export function presentCampaign(row: CampaignRow) {
  return {
    id: row.id,
    status: row.status,
    title: row.title,
    body: row.body,
    deep_link: row.deepLink,
    audience_filter: row.audienceFilter,
    audience_count: row.audienceCount,
    outbox_created_count: row.outboxCreatedCount,
    sent_count: row.sentCount,
    failed_count: row.failedCount,
    scheduled_at: iso(row.scheduledAt),
    started_at: isoOrNull(row.startedAt),
    completed_at: isoOrNull(row.completedAt),
    cancelled_at: isoOrNull(row.cancelledAt),
    created_by_user_id: row.createdByUserId,
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  };
}

function invalid(message: string): ApiError {
  return new ApiError(e.VALIDATION_FAILED, { message });
}

/** Curators see and cancel only the campaigns they created; admins (and the superadmin) all of the school's. */
function visibleTo(ctx: SchoolCtx): SQL | undefined {
  return ctx.actor.role === "curator" ? eq(notificationCampaigns.createdByUserId, ctx.actor.userId) : undefined;
}

export interface CampaignInput {
  title: string;
  body: string;
  deepLink?: string | null;
  filter: unknown;
  scheduledAt?: string | null;
}

/**
 * Creates a campaign with its frozen audience: the recipients are written by one INSERT … SELECT
 * of the compiled filter in the same batch as the campaign, so a campaign to any number of students
 * costs the same few statements and `audience_count` is exactly the snapshot's size. Delivery
 * starts at `scheduled_at` (now when null) through the queue.
 */
export async function createCampaign(ctx: SchoolCtx, input: CampaignInput) {
  const now = ctx.clock.now();
  const title = input.title.trim();
  const body = input.body.trim();
  if (title === "" || utf8Bytes(title) > TITLE_MAX_BYTES) throw invalid(`title must be 1 to ${TITLE_MAX_BYTES} UTF-8 bytes.`);
  if (body === "" || utf8Bytes(body) > BODY_MAX_BYTES) throw invalid(`body must be 1 to ${BODY_MAX_BYTES} UTF-8 bytes.`);
  const deepLink = input.deepLink ?? null;
  if (deepLink !== null && !isSafeDeepLink(deepLink)) {
    throw invalid("deep_link must be a same-origin relative path such as /courses/123 (no scheme, host, backslash, dot segment or encoded separator).");
  }
  let scheduledAt = now;
  if (input.scheduledAt !== undefined && input.scheduledAt !== null) {
    scheduledAt = Date.parse(input.scheduledAt);
    if (!(scheduledAt > now)) throw invalid("scheduled_at must be in the future (or null to send now).");
  }
  const filter = parseFilter(input.filter);
  const condition = audienceCondition(ctx, filter);

  const id = uuidv7(now);
  const [, , rows] = (await runBatch(ctx, [
    ctx.db.insert(notificationCampaigns).values({
      id,
      tenantId: ctx.tenantId,
      createdByUserId: ctx.actor.userId,
      status: "scheduled",
      title,
      body,
      deepLink,
      audienceFilter: filter as unknown as Record<string, unknown>,
      scheduledAt,
      createdAt: now,
      updatedAt: now,
    }),
    batchable(ctx, sql`
      INSERT INTO notification_campaign_recipients (tenant_id, campaign_id, user_id, status)
      SELECT u.tenant_id, ${id}, u.id, 'pending' FROM users u WHERE ${condition}`),
    ctx.db
      .update(notificationCampaigns)
      .set({ audienceCount: sql`(SELECT count(*) FROM notification_campaign_recipients r WHERE r.campaign_id = ${id} AND ${inSchool("r", ctx.tenantId)})` })
      .where(and(eq(notificationCampaigns.id, id), inSchool(notificationCampaigns, ctx.tenantId)))
      .returning(),
    auditEntry(ctx, {
      action: "campaign.created",
      targetType: "campaign",
      targetId: id,
      summary: "Push campaign created",
      changes: { title: [null, title], status: [null, "scheduled"], scheduled_at: [null, iso(scheduledAt)] },
    }),
  ])) as [unknown, unknown, CampaignRow[]];
  await kickCampaign(ctx, { tenantId: ctx.tenantId, campaignId: id, scheduledAt });
  return { campaign: presentCampaign(rows[0]!) };
}

/** The message that starts the fan-out at `scheduled_at`; the cron sweep picks up what this misses. */
export async function kickCampaign(ctx: ServiceContext, input: { tenantId: string; campaignId: string; scheduledAt: number }) {
  const delaySeconds = Math.ceil((input.scheduledAt - ctx.clock.now()) / 1000);
  if (delaySeconds > MAX_QUEUE_DELAY_SECONDS) return;
  try {
    await ctx.env.PUSH_OUTBOX.send({ kind: "campaign", tenant_id: input.tenantId, campaign_id: input.campaignId }, delaySeconds > 0 ? { delaySeconds } : {});
  } catch (err) {
    log.error("campaign message not sent; the cron will start it", { request_id: ctx.requestId, campaign_id: input.campaignId, error: String(err) });
  }
}

export async function listCampaigns(ctx: SchoolCtx, input: { page: number; limit: number }) {
  const where = and(inSchool(notificationCampaigns, ctx.tenantId), visibleTo(ctx));
  const rows = await ctx.db
    .select({ campaign: notificationCampaigns, total: sql<number>`count(*) OVER ()` })
    .from(notificationCampaigns)
    .where(where)
    .orderBy(desc(notificationCampaigns.createdAt), desc(notificationCampaigns.id))
    .limit(input.limit)
    .offset(pageOffset(input.page, input.limit));
  const total = rows[0]?.total ?? (input.page > 1 ? ((await ctx.db.select({ n: sql<number>`count(*)` }).from(notificationCampaigns).where(where))[0]?.n ?? 0) : 0);
  return { campaigns: rows.map((row) => presentCampaign(row.campaign)), total, page: input.page, limit: input.limit };
}

export async function getCampaign(ctx: SchoolCtx, input: { id: string }) {
  const [row] = await ctx.db
    .select()
    .from(notificationCampaigns)
    .where(and(eq(notificationCampaigns.id, input.id), inSchool(notificationCampaigns, ctx.tenantId), visibleTo(ctx)));
  if (!row) throw new ApiError(e.CAMPAIGN_NOT_FOUND);
  return { campaign: presentCampaign(row) };
}

/**
 * Cancels a scheduled or processing campaign: the state changes and every notification not yet
 * delivered is suppressed in one batch; pushes already delivered stay. A finished campaign is 409.
 */
export async function cancelCampaign(ctx: SchoolCtx, input: { id: string }) {
  const now = ctx.clock.now();
  const mine = and(eq(notificationCampaigns.id, input.id), inSchool(notificationCampaigns, ctx.tenantId), visibleTo(ctx));
  const cancelled = sql`EXISTS (SELECT 1 FROM notification_campaigns c WHERE c.id = ${input.id} AND ${inSchool("c", ctx.tenantId)} AND c.status = 'cancelled')`;
  const cancellable = and(mine, sql`${notificationCampaigns.status} IN ('scheduled', 'processing')`);
  const results = (await runBatch(ctx, [
    // Ahead of the update: it reads the status being replaced, and finds nothing to record for a finished campaign.
    auditFromRows(ctx, {
      action: "campaign.cancelled",
      targetType: "campaign",
      rows: sql`${notificationCampaigns} WHERE ${cancellable}`,
      targetId: sql`${notificationCampaigns.id}`,
      summary: "Push campaign cancelled",
      changes: { status: [jsonValue(notificationCampaigns.status), "cancelled"] },
    }),
    ctx.db
      .update(notificationCampaigns)
      .set({ status: "cancelled", cancelledAt: now, updatedAt: now })
      .where(cancellable)
      .returning({ id: notificationCampaigns.id }),
    batchable(ctx, sql`
      UPDATE notification_outbox SET status = 'suppressed', last_error = 'campaign cancelled', lease_until = NULL, settled_at = ${now}
      WHERE campaign_id = ${input.id} AND ${inSchool(ctx.tenantId)} AND status = 'pending' AND sent_at IS NULL AND ${cancelled}`),
    batchable(ctx, sql`
      UPDATE notification_campaign_recipients SET status = 'suppressed'
      WHERE campaign_id = ${input.id} AND ${inSchool(ctx.tenantId)} AND status = 'pending' AND ${cancelled}`),
    ...campaignProgressStatements(ctx, ctx.tenantId, input.id),
    ctx.db.select().from(notificationCampaigns).where(mine),
  ])) as unknown[];
  const changed = results[1] as { id: string }[];
  const [row] = results[results.length - 1] as CampaignRow[];
  if (!row) throw new ApiError(e.CAMPAIGN_NOT_FOUND);
  if (changed.length === 0) throw new ApiError(e.CAMPAIGN_IMMUTABLE, { message: `The campaign is ${row.status}; only a scheduled or processing campaign can be cancelled.` });
  return { campaign: presentCampaign(row) };
}
