import { sql } from "drizzle-orm";
import { batchable, rowsOf, type BatchItem } from "../../core/db/batch";
import { controlDb } from "../../core/db/client";
import { inSchool } from "../../core/db/conditions";
import type { SchoolActor, SchoolCtx } from "../../core/http/context";

/**
 * The school's webhook flag (docs/decisions/webhooks.md, "The school's webhook flag"):
 * `tenants.webhooks_active` on the control database, read by the auth read (`TenantSummary`), tells
 * the sources whether to write outbox statements at all. The webhooks live on the school's shard,
 * so the flag cannot be written in their batch; it may be true with no active webhook (a few
 * statements that write nothing), never false with one that was active when its change answered.
 */

/**
 * Before and after a change that leaves a webhook active (a creation, a re-enable): on before, so
 * the webhook never exists with the flag off; on again after, with the epoch bumped, so a clear
 * that counted before this change's shard write fails its compare.
 */
export async function markWebhooksActive(ctx: SchoolCtx<SchoolActor>): Promise<void> {
  await controlDb(ctx.env).run(sql`UPDATE tenants SET webhooks_active = 1, webhooks_epoch = webhooks_epoch + 1 WHERE id = ${ctx.tenantId}`);
}

/** For the batch of a change that may leave no active webhook: the count of active ones after it. */
export function activeWebhooksCount(ctx: SchoolCtx<SchoolActor>): BatchItem {
  return batchable(ctx, sql`SELECT count(*) AS active FROM webhooks WHERE ${inSchool(ctx.tenantId)} AND status = 'active'`);
}

/**
 * After a delete, a disable or an auto-disable whose batch counted no active webhook: clear the
 * flag, unless a webhook became active since the school row was read (the epoch the context's auth
 * read saw, which precedes the count).
 */
export async function clearWebhooksFlag(ctx: SchoolCtx<SchoolActor>, countResult: unknown): Promise<void> {
  const [row] = rowsOf<{ active: number }>(countResult);
  if (!row || row.active > 0 || !ctx.tenant.webhooksActive) return;
  await controlDb(ctx.env).run(sql`UPDATE tenants SET webhooks_active = 0 WHERE id = ${ctx.tenantId} AND webhooks_epoch = ${ctx.tenant.webhooksEpoch}`);
}
