import { sql } from "drizzle-orm";
import { batchable, changedRows, rowsOf, runBatch } from "../../core/db/batch";
import { inSchool } from "../../core/db/conditions";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { DAY_MS, iso, isoOrNull } from "../../core/lib/clock";
import { uuidv7 } from "../../core/lib/ids";
import { log } from "../../core/lib/log";
import { parsePublicHttpsUrl } from "../../core/lib/public-url";
import { auditEntry, diffRows } from "../audit/write";
import { webhooksErrors as e } from "./errors";
import { activeWebhooksCount, clearWebhooksFlag, markWebhooksActive } from "./flag";
import { sendWebhookDispatch, WEBHOOK_EVENTS, webhookOutboxStatements } from "./outbox";
import type { CreateWebhookBody, UpdateWebhookBody } from "./schemas";
import { newWebhookSecret, sealWebhookSecret, webhookSecretKey } from "./secrets";

/**
 * Webhook endpoints of a school (05 section 5, docs/decisions/webhooks.md). A read is one statement;
 * a change is that read and one batch with its audit entry, conditional on the row it read.
 */

export const MAX_WEBHOOKS = 10;
/** The previous secret keeps signing this long after a rotation. */
export const ROTATION_OVERLAP_MS = DAY_MS;

interface WebhookRow {
  id: string;
  url: string;
  events: string;
  description: string | null;
  status: "active" | "disabled";
  consecutive_failures: number;
  created_at: number;
  updated_at: number;
}

interface DeliveryRow {
  id: string;
  event_id: string;
  type: string;
  status: "pending" | "delivered" | "failed";
  attempts: number;
  response_status: number | null;
  duration_ms: number | null;
  response_excerpt: string | null;
  next_attempt_at: number | null;
  created_at: number;
  delivered_at: number | null;
}

const COLUMNS = sql`id, url, events, description, status, consecutive_failures, created_at, updated_at`;
const DELIVERY_COLUMNS = sql`id, event_id, type, status, attempts, response_status, duration_ms, response_excerpt, next_attempt_at, created_at, delivered_at`;

function present(row: WebhookRow) {
  return {
    id: row.id,
    url: row.url,
    events: JSON.parse(row.events) as string[],
    description: row.description,
    status: row.status,
    consecutive_failures: row.consecutive_failures,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

export function presentDelivery(row: DeliveryRow) {
  return {
    id: row.id,
    event_id: row.event_id,
    type: row.type,
    status: row.status,
    attempts: row.attempts,
    response_status: row.response_status,
    duration_ms: row.duration_ms,
    response_excerpt: row.response_excerpt,
    next_attempt_at: row.status === "pending" ? isoOrNull(row.next_attempt_at) : null,
    created_at: iso(row.created_at),
    delivered_at: isoOrNull(row.delivered_at),
  };
}

const LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "[::1]"];

/**
 * The URL policy (docs/decisions/webhooks.md, "URL policy"): the project's one URL rule (https, a
 * public DNS host, no IP literal, no credentials), and loopback over http(s) only where the
 * deployment allows it for local development.
 */
export function webhookUrl(ctx: SchoolCtx, raw: string): string {
  if (ctx.config.webhooksAllowLoopback) {
    try {
      const url = new URL(raw);
      if ((url.protocol === "http:" || url.protocol === "https:") && LOOPBACK_HOSTS.includes(url.hostname) && url.username === "" && url.password === "") return url.href;
    } catch {
      // refused by the public rule below
    }
  }
  const parsed = parsePublicHttpsUrl(raw);
  if (!parsed.ok) throw new ApiError(e.INVALID_WEBHOOK_URL, { message: `The URL ${parsed.reason}.` });
  return parsed.url;
}

/** The names as stored: `["*"]` when it is among them, otherwise the distinct names in order. */
function eventNames(names: readonly string[]): string[] {
  const unknown = names.find((name) => name !== "*" && !(WEBHOOK_EVENTS as readonly string[]).includes(name));
  if (unknown !== undefined) throw new ApiError(e.UNKNOWN_WEBHOOK_EVENT, { message: `Unknown webhook event "${unknown.slice(0, 100)}".` });
  return names.includes("*") ? ["*"] : [...new Set(names)];
}

async function secretKey(ctx: SchoolCtx): Promise<CryptoKey> {
  const key = await webhookSecretKey(ctx.env.PUSH_TOKEN_KEY);
  if (!key) {
    log.error("PUSH_TOKEN_KEY missing or not 32 bytes; webhook secrets cannot be sealed", { request_id: ctx.requestId });
    throw new Error("PUSH_TOKEN_KEY missing or not 32 bytes");
  }
  return key;
}

const byIdSql = (ctx: SchoolCtx, id: string) => batchable(ctx, sql`SELECT ${COLUMNS} FROM webhooks WHERE ${inSchool(ctx.tenantId)} AND id = ${id}`);

async function readWebhook(ctx: SchoolCtx, id: string): Promise<WebhookRow> {
  const [row] = rowsOf<WebhookRow>((await runBatch(ctx, [byIdSql(ctx, id)]))[0]);
  if (!row) throw new ApiError(e.WEBHOOK_NOT_FOUND);
  return row;
}

/** POST /t/webhooks: the secret is in this answer only. */
export async function createWebhook(ctx: SchoolCtx, input: { body: CreateWebhookBody }) {
  const url = webhookUrl(ctx, input.body.url);
  const events = eventNames(input.body.events);
  const description = input.body.description ?? null;
  const id = uuidv7();
  const now = ctx.clock.now();
  const secret = newWebhookSecret();
  const sealed = await sealWebhookSecret(await secretKey(ctx), secret, ctx.tenantId, id);
  // The limit holds under races: the insert counts the school's webhooks in its own statement.
  const underLimit = sql`(SELECT count(*) FROM webhooks c WHERE ${inSchool("c", ctx.tenantId)}) < ${MAX_WEBHOOKS}`;
  await markWebhooksActive(ctx);
  const results = await runBatch(ctx, [
    batchable(
      ctx,
      sql`INSERT INTO webhooks (id, tenant_id, url, events, description, status, secret_ciphertext, consecutive_failures, created_at, updated_at)
        SELECT ${id}, ${ctx.tenantId}, ${url}, ${JSON.stringify(events)}, ${description}, 'active', ${sealed}, 0, ${now}, ${now} WHERE ${underLimit}`,
    ),
    auditEntry(ctx, {
      action: "webhook.created",
      targetType: "webhook",
      targetId: id,
      summary: `Webhook created for ${url}`.slice(0, 300),
      changes: diffRows({ url: null, events: null, description: null, status: null }, { url, events, description, status: "active" }, ["url", "events", "description", "status"]),
      when: sql`EXISTS (SELECT 1 FROM webhooks x WHERE ${inSchool("x", ctx.tenantId)} AND x.id = ${id})`,
    }),
  ]);
  if (changedRows(results[0]) === 0) throw new ApiError(e.WEBHOOK_LIMIT_REACHED);
  await markWebhooksActive(ctx);
  return { ...present({ id, url, events: JSON.stringify(events), description, status: "active", consecutive_failures: 0, created_at: now, updated_at: now }), secret };
}

/** GET /t/webhooks: at most 10, newest first. */
export async function listWebhooks(ctx: SchoolCtx) {
  const [result] = await runBatch(ctx, [batchable(ctx, sql`SELECT ${COLUMNS} FROM webhooks WHERE ${inSchool(ctx.tenantId)} ORDER BY created_at DESC, id DESC`)]);
  return { webhooks: rowsOf<WebhookRow>(result).map(present) };
}

export async function getWebhook(ctx: SchoolCtx, input: { id: string }) {
  return present(await readWebhook(ctx, input.id));
}

const FIELDS = ["url", "events", "description", "status"] as const;

/** PATCH /t/webhooks/:id: re-enabling resets the failure count. */
export async function updateWebhook(ctx: SchoolCtx, input: { id: string; body: UpdateWebhookBody }) {
  const { body } = input;
  const url = body.url === undefined ? undefined : webhookUrl(ctx, body.url);
  const events = body.events === undefined ? undefined : eventNames(body.events);
  const before = await readWebhook(ctx, input.id);
  const shown = present(before);
  const after = {
    url: url ?? shown.url,
    events: events ?? shown.events,
    description: body.description === undefined ? shown.description : body.description,
    status: body.status ?? shown.status,
  };
  const changes = diffRows(shown, after, FIELDS);
  if (Object.keys(changes).length === 0) return shown;
  const now = ctx.clock.now();
  const reenabled = before.status === "disabled" && after.status === "active";
  const disabled = before.status === "active" && after.status === "disabled";
  const unchanged = sql`updated_at = ${before.updated_at}`;
  if (reenabled) await markWebhooksActive(ctx);
  const results = await runBatch(ctx, [
    auditEntry(ctx, {
      action: "webhook.updated",
      targetType: "webhook",
      targetId: input.id,
      summary: `Webhook ${after.url} updated`.slice(0, 300),
      changes,
      when: sql`EXISTS (SELECT 1 FROM webhooks x WHERE ${inSchool("x", ctx.tenantId)} AND x.id = ${input.id} AND x.updated_at = ${before.updated_at})`,
    }),
    batchable(
      ctx,
      sql`UPDATE webhooks SET url = ${after.url}, events = ${JSON.stringify(after.events)}, description = ${after.description}, status = ${after.status},
          consecutive_failures = ${reenabled ? 0 : sql`consecutive_failures`}, disabled_at = ${after.status === "disabled" ? sql`coalesce(disabled_at, ${now})` : null},
          updated_at = max(${now}, updated_at + 1)
        WHERE ${inSchool(ctx.tenantId)} AND id = ${input.id} AND ${unchanged}`,
    ),
    byIdSql(ctx, input.id),
    ...(disabled ? [activeWebhooksCount(ctx)] : []),
  ]);
  const [row] = rowsOf<WebhookRow>(results[2]);
  if (!row) throw new ApiError(e.WEBHOOK_NOT_FOUND);
  if (reenabled) await markWebhooksActive(ctx);
  if (disabled) await clearWebhooksFlag(ctx, results[3]);
  // Re-enabled: deliveries that waited while it was disabled go out now.
  if (reenabled && changedRows(results[1]) > 0) await sendWebhookDispatch(ctx, [ctx.tenantId]);
  return present(row);
}

/** DELETE /t/webhooks/:id: its deliveries go with it (pending ones are dropped). */
export async function deleteWebhook(ctx: SchoolCtx, input: { id: string }): Promise<void> {
  const before = await readWebhook(ctx, input.id);
  const shown = present(before);
  const results = await runBatch(ctx, [
    auditEntry(ctx, {
      action: "webhook.deleted",
      targetType: "webhook",
      targetId: input.id,
      summary: `Webhook ${shown.url} deleted`.slice(0, 300),
      changes: diffRows(shown, { url: null, events: null, description: null, status: null }, FIELDS),
      when: sql`EXISTS (SELECT 1 FROM webhooks x WHERE ${inSchool("x", ctx.tenantId)} AND x.id = ${input.id})`,
    }),
    batchable(ctx, sql`DELETE FROM webhook_deliveries WHERE ${inSchool(ctx.tenantId)} AND webhook_id = ${input.id}`),
    batchable(ctx, sql`DELETE FROM webhooks WHERE ${inSchool(ctx.tenantId)} AND id = ${input.id}`),
    activeWebhooksCount(ctx),
  ]);
  await clearWebhooksFlag(ctx, results[3]);
}

/** POST /t/webhooks/:id/rotate-secret: the previous secret keeps signing for 24 hours. */
export async function rotateWebhookSecret(ctx: SchoolCtx, input: { id: string }) {
  const before = await readWebhook(ctx, input.id);
  const secret = newWebhookSecret();
  const sealed = await sealWebhookSecret(await secretKey(ctx), secret, ctx.tenantId, input.id);
  const now = ctx.clock.now();
  const results = await runBatch(ctx, [
    auditEntry(ctx, {
      action: "webhook.secret_rotated",
      targetType: "webhook",
      targetId: input.id,
      summary: `Webhook ${before.url} signing secret rotated`.slice(0, 300),
      when: sql`EXISTS (SELECT 1 FROM webhooks x WHERE ${inSchool("x", ctx.tenantId)} AND x.id = ${input.id})`,
    }),
    batchable(
      ctx,
      sql`UPDATE webhooks SET previous_secret_ciphertext = secret_ciphertext, previous_secret_expires_at = ${now + ROTATION_OVERLAP_MS},
          secret_ciphertext = ${sealed}, updated_at = max(${now}, updated_at + 1)
        WHERE ${inSchool(ctx.tenantId)} AND id = ${input.id}`,
    ),
  ]);
  if (changedRows(results[1]) === 0) throw new ApiError(e.WEBHOOK_NOT_FOUND);
  return { secret };
}

/** POST /t/webhooks/:id/test: a `webhook.test` event for this webhook only, delivered now. */
export async function testWebhook(ctx: SchoolCtx, input: { id: string }) {
  const before = await readWebhook(ctx, input.id);
  const [event, delivery] = webhookOutboxStatements(ctx, "webhook.test", { webhook_id: before.id, url: before.url }, { webhookId: before.id });
  const results = await runBatch(ctx, [
    event!,
    delivery!,
    batchable(ctx, sql`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE ${inSchool(ctx.tenantId)} AND webhook_id = ${input.id} AND type = 'webhook.test' ORDER BY created_at DESC, id DESC LIMIT 1`),
  ]);
  const [row] = rowsOf<DeliveryRow>(results[2]);
  if (!row || changedRows(results[1]) === 0) throw new ApiError(e.WEBHOOK_NOT_FOUND);
  await sendWebhookDispatch(ctx, [ctx.tenantId]);
  return presentDelivery(row);
}

/** GET /t/webhooks/:id/deliveries: newest first. */
export async function listDeliveries(ctx: SchoolCtx, input: { id: string; status?: "pending" | "delivered" | "failed"; page: number; limit: number }) {
  const status = input.status ? sql`AND status = ${input.status}` : sql``;
  const where = sql`${inSchool(ctx.tenantId)} AND webhook_id = ${input.id} ${status}`;
  const results = await runBatch(ctx, [
    byIdSql(ctx, input.id),
    batchable(ctx, sql`SELECT count(*) AS total FROM webhook_deliveries WHERE ${where}`),
    batchable(ctx, sql`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT ${input.limit} OFFSET ${(input.page - 1) * input.limit}`),
  ]);
  if (rowsOf(results[0]).length === 0) throw new ApiError(e.WEBHOOK_NOT_FOUND);
  return { deliveries: rowsOf<DeliveryRow>(results[2]).map(presentDelivery), total: rowsOf<{ total: number }>(results[1])[0]!.total, page: input.page, limit: input.limit };
}

/** POST /t/webhooks/:id/deliveries/:delivery_id/redeliver: one more try, now. */
export async function redeliver(ctx: SchoolCtx, input: { id: string; deliveryId: string }) {
  const now = ctx.clock.now();
  const results = await runBatch(ctx, [
    byIdSql(ctx, input.id),
    batchable(
      ctx,
      sql`UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ${now}, lease_until = NULL
        WHERE ${inSchool(ctx.tenantId)} AND id = ${input.deliveryId} AND webhook_id = ${input.id}
        RETURNING ${DELIVERY_COLUMNS}`,
    ),
  ]);
  if (rowsOf(results[0]).length === 0) throw new ApiError(e.WEBHOOK_NOT_FOUND);
  const [row] = rowsOf<DeliveryRow>(results[1]);
  if (!row) throw new ApiError(e.WEBHOOK_DELIVERY_NOT_FOUND);
  await sendWebhookDispatch(ctx, [ctx.tenantId]);
  return presentDelivery(row);
}
