import { is, SQL, sql } from "drizzle-orm";
import { batchable, type BatchItem } from "../../core/db/batch";
import { inSchool } from "../../core/db/conditions";
import { sqlUuidv7 } from "../../core/db/sql-ids";
import type { SchoolActor, SchoolCtx, ServiceContext } from "../../core/http/context";
import { log } from "../../core/lib/log";
import { markWebhooksDue } from "../notifications/enqueue";

/** The events a webhook may subscribe to (05 section 5); `*` is every one. */
export const WEBHOOK_EVENTS = [
  "user.created",
  "user.updated",
  "user.deleted",
  "enrollment.created",
  "enrollment.removed",
  "course.completed",
  "quiz_attempt.submitted",
  "quiz_attempt.graded",
  "exam_attempt.submitted",
  "submission.submitted",
  "submission.reviewed",
  "certificate.issued",
  "certificate.revoked",
  "rating.points_changed",
  "import.applied",
  "webhook.test",
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number];

/**
 * Where each event's `data` names the person it is about, stored as the event's `subject_user_id`
 * so a permanent deletion finds the copies of their data (docs/decisions/webhooks.md, "Personal
 * data in events"). `user.deleted` carries no personal data and must outlive the purge that wrote
 * it; an import or a test names no one.
 */
const SUBJECT_PATH: Record<WebhookEventType, string | null> = {
  "user.created": "$.id",
  "user.updated": "$.id",
  "user.deleted": null,
  "enrollment.created": "$.student_id",
  "enrollment.removed": "$.student_id",
  "course.completed": "$.student_id",
  "quiz_attempt.submitted": "$.student_id",
  "quiz_attempt.graded": "$.student_id",
  "exam_attempt.submitted": "$.student_id",
  "submission.submitted": "$.student_id",
  "submission.reviewed": "$.student_id",
  "certificate.issued": "$.student_id",
  "certificate.revoked": "$.student_id",
  "rating.points_changed": "$.student_id",
  "import.applied": null,
  "webhook.test": null,
};

/** SQL over a `webhooks` alias: the webhook is active and subscribed to `type`. */
export function subscribedSql(alias: string, type: string): SQL {
  const w = sql.raw(alias);
  return sql`${w}.status = 'active' AND EXISTS (SELECT 1 FROM json_each(${w}.events) je WHERE je.value IN ('*', ${type}))`;
}

/**
 * The outbox write of one event occurrence, for the caller's own batch
 * (docs/decisions/webhooks.md, "The outbox"): the event row (only when an active webhook of the school subscribes to `type`) and
 * its deliveries, one per such webhook, due now. `data` is the resource as the API shows it to an
 * admin, as a value or as SQL yielding JSON text the batch computes; `when` is the source change's
 * condition, so a refused or repeated change writes no event. Two statements, no round trip of their
 * own, and none at all in a school whose flag says it has no active webhook ("The school's webhook
 * flag"). Other areas (certificates, imports, users, rating) call this from their own batch.
 */
export function webhookOutboxStatements(
  ctx: SchoolCtx<SchoolActor>,
  type: WebhookEventType,
  data: Record<string, unknown> | SQL,
  /**
   * `webhookId`: this webhook only, whatever it subscribes to (the test event). `occurrence`: the
   * occurrence's key (SQL or text), when a repeat of the source cannot be told by `when`.
   */
  options: { when?: SQL; webhookId?: string; occurrence?: string | SQL } = {},
): BatchItem[] {
  const dataSql = is(data, SQL) ? data : sql`${JSON.stringify(data)}`;
  const rows = sql`SELECT ${dataSql} AS data, ${options.occurrence ?? null} AS occurrence ${options.when ? sql`WHERE (${options.when})` : sql``}`;
  return webhookOutboxRowsStatements(ctx, type, rows, options.webhookId);
}

/**
 * As `webhookOutboxStatements`, one event per row of `rows` (a SELECT of `data`, JSON text, and
 * `occurrence`, the key a repeat would write again or NULL, evaluated where the statements stand in
 * the batch; an event whose key the school already has is not written): a bulk enrollment is one
 * `enrollment.created` per student. The events of one call share a random prefix (about 70 bits)
 * and end in the row's number, so the deliveries' INSERT finds them by key range.
 */
export function webhookOutboxRowsStatements(ctx: SchoolCtx<SchoolActor>, type: WebhookEventType, rows: SQL, webhookId?: string): BatchItem[] {
  if (!webhookId && !ctx.tenant.webhooksActive) return [];
  const now = ctx.clock.now();
  const prefix = crypto.randomUUID().slice(0, 24);
  const target = webhookId ? sql`w.id = ${webhookId}` : subscribedSql("w", type);
  const subscribers = sql`FROM webhooks w WHERE ${inSchool("w", ctx.tenantId)} AND ${target}`;
  const path = SUBJECT_PATH[type];
  const subject = path === null ? sql`NULL` : sql`json_extract(r.data, ${path})`;
  markWebhooksDue(ctx, ctx.tenantId);
  return [
    batchable(
      ctx,
      sql`INSERT INTO webhook_events (id, tenant_id, type, data, occurred_at, occurrence, subject_user_id)
        SELECT ${prefix} || printf('%012x', row_number() OVER ()), ${ctx.tenantId}, ${type}, json(r.data), ${now}, r.occurrence, ${subject}
        FROM (${rows}) r WHERE EXISTS (SELECT 1 ${subscribers})
        ON CONFLICT DO NOTHING`,
    ),
    batchable(
      ctx,
      sql`INSERT INTO webhook_deliveries (id, tenant_id, webhook_id, event_id, type, status, attempts, next_attempt_at, created_at)
        SELECT ${sqlUuidv7(now)}, w.tenant_id, w.id, e.id, e.type, 'pending', 0, ${now}, ${now}
        FROM webhooks w JOIN webhook_events e ON e.id >= ${prefix} AND e.id < ${`${prefix}g`} AND ${inSchool("e", ctx.tenantId)}
        WHERE ${inSchool("w", ctx.tenantId)} AND ${target}`,
    ),
  ];
}

/** One "deliveries due" message per school; a lost one costs a delay only (the cron sweep re-sends). */
export async function sendWebhookDispatch(ctx: ServiceContext, tenantIds: readonly string[], delaySeconds?: number): Promise<void> {
  if (tenantIds.length === 0) return;
  try {
    await ctx.env.WEBHOOKS.sendBatch(tenantIds.map((tenantId) => ({ body: { kind: "webhooks" as const, tenant_id: tenantId }, ...(delaySeconds ? { delaySeconds } : {}) })));
  } catch (err) {
    log.error("webhook dispatch message not sent; the sweep will deliver", { request_id: ctx.requestId, schools: tenantIds.length, error: String(err) });
  }
}
