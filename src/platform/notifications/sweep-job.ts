import { sql } from "drizzle-orm";
import { batchable, rowsOf, runBatch } from "../../core/db/batch";
import type { SchoolCtx, ServiceContext, SystemActor } from "../../core/http/context";
import { MINUTE_MS } from "../../core/lib/clock";
import { log } from "../../core/lib/log";
import { schoolChunks } from "../schools/school-chunks";
import { campaignProgressStatements } from "./campaign-progress";
import { kickCampaign } from "./campaigns-service";
import { MAX_PUSH_ATTEMPTS } from "./delivery";
import { sendDispatch } from "./enqueue";
import { inSchool } from "../../core/db/conditions";

/** A row older than this without a delivery has lost its message (or the message was never sent). */
const STALE_AFTER_MS = 2 * MINUTE_MS;
const MAX_SCHOOLS_PER_RUN = 500;
const MAX_CAMPAIGNS_PER_RUN = 200;

type School = SchoolCtx<SystemActor>;

/** Rows that used up their attempts (their consumer kept crashing) become `failed`; answers their campaigns. */
function failExhausted(school: School, now: number) {
  return batchable(school, sql`
    UPDATE notification_outbox SET status = 'failed', settled_at = ${now}, lease_until = NULL,
      last_error = 'gave up after ' || attempts || ' attempts' || coalesce(': ' || last_error, '')
    WHERE ${inSchool(school.tenantId)} AND status = 'pending' AND attempts >= ${MAX_PUSH_ATTEMPTS} AND (lease_until IS NULL OR lease_until <= ${now})
    RETURNING campaign_id`);
}

/**
 * What else is due in one school, in one statement run after the failing UPDATE of its batch:
 * `due` when rows wait for delivery more than two minutes, `start` per campaign whose time has
 * come (or whose fan-out stalled), `finish` per campaign whose last rows were failed or whose end a
 * crash skipped.
 */
function dueWork(school: School, now: number) {
  const tenantId = school.tenantId;
  return batchable(school, sql`
    SELECT 'due' AS kind, NULL AS id, NULL AS scheduled_at WHERE EXISTS (
      SELECT 1 FROM notification_outbox WHERE ${inSchool(tenantId)} AND status = 'pending' AND created_at <= ${now - STALE_AFTER_MS}
        AND attempts < ${MAX_PUSH_ATTEMPTS} AND (lease_until IS NULL OR lease_until <= ${now}))
    UNION ALL SELECT * FROM (
      SELECT 'start', id, scheduled_at FROM notification_campaigns
      WHERE ${inSchool(tenantId)} AND ((status = 'scheduled' AND scheduled_at <= ${now})
         OR (status = 'processing' AND fanned_out_at IS NULL AND updated_at <= ${now - STALE_AFTER_MS}))
      ORDER BY scheduled_at LIMIT ${MAX_CAMPAIGNS_PER_RUN})
    UNION ALL SELECT * FROM (
      SELECT 'finish', c.id, NULL FROM notification_campaigns c
      WHERE ${inSchool("c", tenantId)} AND c.status = 'processing' AND c.fanned_out_at IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM notification_outbox o WHERE o.campaign_id = c.id AND o.status = 'pending')
      LIMIT ${MAX_CAMPAIGNS_PER_RUN})`);
}

/**
 * Cron safety net of push delivery, shard by shard and school by school (one batch per chunk of
 * schools, two statements per school): rows that used up their attempts are failed; schools with
 * rows due for more than two minutes get a dispatch message; campaigns whose time has come (or
 * whose fan-out stalled) get their next step, and campaigns left without pending rows are closed.
 * Idempotent.
 */
export async function sweepPushes(ctx: ServiceContext): Promise<{ failed: number; schools: number; campaigns: number }> {
  const now = ctx.clock.now();
  let failed = 0;
  const dueSchools: string[] = [];
  const campaigns: { id: string; tenant_id: string; scheduled_at: number }[] = [];
  for await (const { schools } of schoolChunks(ctx, "push_sweep")) {
    const results = await runBatch(schools[0]!, [...schools.map((school) => failExhausted(school, now)), ...schools.map((school) => dueWork(school, now))]);
    const progress = schools.flatMap((school, i) => {
      const failedRows = rowsOf<{ campaign_id: string | null }>(results[i]);
      const work = rowsOf<{ kind: "due" | "start" | "finish"; id: string | null; scheduled_at: number | null }>(results[schools.length + i]);
      failed += failedRows.length;
      if (work.some((row) => row.kind === "due") && dueSchools.length < MAX_SCHOOLS_PER_RUN) dueSchools.push(school.tenantId);
      for (const row of work) {
        if (row.kind === "start" && campaigns.length < MAX_CAMPAIGNS_PER_RUN) campaigns.push({ id: row.id!, tenant_id: school.tenantId, scheduled_at: row.scheduled_at! });
      }
      const touched = new Set([...failedRows.map((row) => row.campaign_id), ...work.filter((row) => row.kind === "finish").map((row) => row.id)]);
      return [...touched].flatMap((campaignId) => (campaignId ? campaignProgressStatements(school, school.tenantId, campaignId) : []));
    });
    if (progress.length > 0) await runBatch(schools[0]!, progress);
  }

  await sendDispatch(ctx, dueSchools);
  for (const campaign of campaigns) await kickCampaign(ctx, { tenantId: campaign.tenant_id, campaignId: campaign.id, scheduledAt: Math.min(campaign.scheduled_at, now) });
  if (failed > 0) log.warn("push rows failed after their attempts", { rows: failed });
  return { failed, schools: dueSchools.length, campaigns: campaigns.length };
}
