import { and, eq, inArray, isNull, isNotNull, sql } from "drizzle-orm";
import { notificationDeliveries, notificationOutbox, pushDevices, pushPreferences, users } from "../../db/schema";
import { batchable, runBatch, type BatchItem } from "../../core/db/batch";
import { idIn, inSchool } from "../../core/db/conditions";
import type { SchoolActor, SchoolCtx } from "../../core/http/context";
import { uuidv7 } from "../../core/lib/ids";
import { log } from "../../core/lib/log";
import { openPushToken, pushTokenBinding, pushTokenKeys } from "./push-token-crypto";
import { campaignProgressStatements } from "./campaign-progress";
import { sendDispatch } from "./enqueue";

/** One push to one device, as a provider needs it. */
export interface OutgoingPush {
  /** The delivery id: unique per (notification, device). */
  id: string;
  token: string;
  title: string;
  body: string;
  /** String values only (FCM's data map): `event_code`, `notification_id`, `deep_link` and the event's data. */
  data: Record<string, string>;
}

export type PushResult =
  | { ok: true; providerMessageId: string | null }
  /**
   * `retryable`: the same push may go through later (429, 5xx, network). `disableDevice`: the
   * provider says the token is dead or malformed, so the binding is switched off.
   */
  | { ok: false; retryable: boolean; disableDevice: boolean; error: string; retryAfterSeconds?: number };

export interface PushProvider {
  name: string;
  send(push: OutgoingPush): Promise<PushResult>;
}

/** The one push provider the contract allows; it is the default of every registration. */
export const PUSH_PROVIDER_ID = "fcm";

/** Delivery attempts per notification; the last failure settles it as `failed`. */
export const MAX_PUSH_ATTEMPTS = 5;
/** Longer than a page of provider calls can take. */
export const PUSH_LEASE_MS = 120_000;
/** Rows claimed at once; a message works through pages until none is due or the budget is spent. */
const PAGE_SIZE = 50;
const PAGES_PER_MESSAGE = 20;
/** Provider calls in flight at once (a Worker keeps six connections open). */
const PARALLEL_SENDS = 6;

/** 60 s, 120 s, 240 s, 480 s: the email outbox's schedule. */
export function pushBackoffSeconds(attempts: number): number {
  return Math.min(900, 60 * 2 ** Math.max(0, attempts - 1));
}

/** Delivery runs for one school (a queue message names it), on the school's shard. */
type School = SchoolCtx<SchoolActor>;

type OutboxRow = typeof notificationOutbox.$inferSelect;
type DeliveryRow = typeof notificationDeliveries.$inferSelect;
type DeviceRow = typeof pushDevices.$inferSelect;

/**
 * Delivers the school's due notifications: claims a page of pending rows (a conditional UPDATE,
 * so concurrent consumers and redelivered messages never share a row), fans each out to the
 * recipient's enabled devices and settles it. Returns the number of rows handled; when the
 * budget runs out with rows still due, another message continues.
 */
export async function deliverDue(ctx: School, provider: PushProvider): Promise<number> {
  const { tenantId } = ctx;
  let handled = 0;
  for (let page = 0; page < PAGES_PER_MESSAGE; page++) {
    const rows = await claimPage(ctx, tenantId);
    if (rows.length === 0) return handled;
    await deliverRows(ctx, tenantId, rows, provider);
    handled += rows.length;
  }
  await sendDispatch(ctx, [tenantId]);
  return handled;
}

async function claimPage(ctx: School, tenantId: string): Promise<OutboxRow[]> {
  const now = ctx.clock.now();
  return ctx.db
    .update(notificationOutbox)
    .set({ leaseUntil: now + PUSH_LEASE_MS, attempts: sql`${notificationOutbox.attempts} + 1` })
    .where(
      inArray(
        notificationOutbox.id,
        sql`(SELECT id FROM notification_outbox WHERE ${inSchool(tenantId)} AND status = 'pending' AND attempts < ${MAX_PUSH_ATTEMPTS}
              AND (lease_until IS NULL OR lease_until <= ${now}) ORDER BY created_at, id LIMIT ${PAGE_SIZE})`,
      ),
    )
    .returning();
}

interface RowPlan {
  row: OutboxRow;
  /** Devices to push to in this attempt. */
  targets: DeviceRow[];
  /** Earlier outcomes of this row, by device. */
  earlier: DeliveryRow[];
  suppressed: string | null;
}

async function deliverRows(ctx: School, tenantId: string, rows: OutboxRow[], provider: PushProvider): Promise<void> {
  const now = ctx.clock.now();
  const rowIds = rows.map((row) => row.id);
  const userIds = [...new Set(rows.map((row) => row.userId))];

  // The row's lease was free, so any call still marked `sending` belongs to a run that died: its
  // outcome is unknown and it is never repeated (one push per device per notification, ever).
  const [, people, devices, earlier] = (await runBatch(ctx, [
    ctx.db
      .update(notificationDeliveries)
      .set({ status: "failed", lastError: "interrupted: outcome unknown, not repeated", updatedAt: now })
      .where(and(idIn(notificationDeliveries.outboxId, rowIds), eq(notificationDeliveries.status, "sending"))),
    ctx.db
      .select({ id: users.id, pushEnabled: pushPreferences.pushEnabled })
      .from(users)
      .leftJoin(pushPreferences, and(inSchool(pushPreferences, tenantId), eq(pushPreferences.userId, users.id)))
      .where(and(idIn(users.id, userIds), inSchool(users, tenantId), isNull(users.deletedAt), eq(users.isActive, true))),
    ctx.db
      .select()
      .from(pushDevices)
      .where(
        and(
          inSchool(pushDevices, tenantId),
          idIn(pushDevices.userId, userIds),
          isNull(pushDevices.deletedAt),
          eq(pushDevices.enabled, true),
          isNotNull(pushDevices.tokenCiphertext),
        ),
      ),
    ctx.db.select().from(notificationDeliveries).where(idIn(notificationDeliveries.outboxId, rowIds)),
  ])) as [unknown, { id: string; pushEnabled: boolean | null }[], DeviceRow[], DeliveryRow[]];

  const reachable = new Map(people.map((person) => [person.id, person.pushEnabled ?? true]));
  const plans: RowPlan[] = rows.map((row) => {
    const before = earlier.filter((delivery) => delivery.outboxId === row.id);
    const settledDevices = new Set(before.filter((delivery) => delivery.status !== "retry").map((delivery) => delivery.pushDeviceId));
    if (!reachable.has(row.userId)) return { row, targets: [], earlier: before, suppressed: "recipient is no longer an active member" };
    if (reachable.get(row.userId) === false) return { row, targets: [], earlier: before, suppressed: "push switched off" };
    const exclude = typeof row.data.exclude_installation_id === "string" ? row.data.exclude_installation_id : null;
    const targets = devices.filter((device) => device.userId === row.userId && device.installationId !== exclude && !settledDevices.has(device.id));
    return { row, targets, earlier: before, suppressed: null };
  });

  const claimed = await claimDeliveries(ctx, tenantId, plans, provider.name, now);
  const results = await sendAll(ctx, tenantId, plans, claimed, provider);
  await settle(ctx, tenantId, plans, results, provider.name);
}

interface Attempt {
  deliveryId: string;
  row: OutboxRow;
  device: DeviceRow;
  result: PushResult;
}

/**
 * Records each (notification, device) call before it is made, for the whole page in one
 * statement: a new pair is inserted as `sending`, a pair waiting for a retry moves back to
 * `sending`, a settled pair is left alone and not called. Only the pairs it claimed are sent.
 */
async function claimDeliveries(ctx: School, tenantId: string, plans: RowPlan[], providerName: string, now: number): Promise<Map<string, string>> {
  const pairs = plans.flatMap((plan) => plan.targets.map((device) => ({ id: uuidv7(now), outbox_id: plan.row.id, device_id: device.id, user_id: plan.row.userId })));
  // "<outbox id> <device id>" → delivery id, for the pairs this attempt may call.
  const claimed = new Map<string, string>();
  if (pairs.length === 0) return claimed;
  const rows = (await ctx.db.all<{ id: string; outbox_id: string; push_device_id: string }>(sql`
    INSERT INTO notification_deliveries (id, tenant_id, outbox_id, push_device_id, user_id, provider, status, attempts, created_at, updated_at)
    SELECT json_extract(value, '$.id'), ${tenantId}, json_extract(value, '$.outbox_id'), json_extract(value, '$.device_id'), json_extract(value, '$.user_id'),
           ${providerName}, 'sending', 1, ${now}, ${now}
    FROM json_each(${JSON.stringify(pairs)}) WHERE 1
    ON CONFLICT (outbox_id, push_device_id) DO UPDATE SET status = 'sending', attempts = notification_deliveries.attempts + 1,
      provider = excluded.provider, updated_at = excluded.updated_at
    WHERE notification_deliveries.status = 'retry'
    RETURNING id, outbox_id, push_device_id`)) as { id: string; outbox_id: string; push_device_id: string }[];
  for (const row of rows) claimed.set(`${row.outbox_id} ${row.push_device_id}`, row.id);
  return claimed;
}

async function sendAll(ctx: School, tenantId: string, plans: RowPlan[], claimed: Map<string, string>, provider: PushProvider): Promise<Attempt[]> {
  const keys = await pushTokenKeys(ctx.env.PUSH_TOKEN_KEY);
  const jobs: (() => Promise<Attempt>)[] = [];
  for (const plan of plans) {
    for (const device of plan.targets) {
      const pair = `${plan.row.id} ${device.id}`;
      const deliveryId = claimed.get(pair);
      if (!deliveryId) continue;
      jobs.push(async () => {
        const result = await sendOne(ctx, tenantId, provider, keys, deliveryId, plan.row, device);
        return { deliveryId, row: plan.row, device, result };
      });
    }
  }
  const attempts: Attempt[] = [];
  for (let i = 0; i < jobs.length; i += PARALLEL_SENDS) {
    attempts.push(...(await Promise.all(jobs.slice(i, i + PARALLEL_SENDS).map((job) => job()))));
  }
  return attempts;
}

async function sendOne(
  ctx: School,
  tenantId: string,
  provider: PushProvider,
  keys: Awaited<ReturnType<typeof pushTokenKeys>>,
  deliveryId: string,
  row: OutboxRow,
  device: DeviceRow,
): Promise<PushResult> {
  if (!keys) return { ok: false, retryable: true, disableDevice: false, error: "config: PUSH_TOKEN_KEY missing or not 32 bytes" };
  let token: string;
  try {
    token = await openPushToken(keys, device.tokenCiphertext!, pushTokenBinding(tenantId, device.installationId));
  } catch {
    return { ok: false, retryable: false, disableDevice: false, error: "stored token does not open under PUSH_TOKEN_KEY" };
  }
  try {
    return await provider.send({ id: deliveryId, token, title: row.title, body: row.body, data: messageData(row) });
  } catch (err) {
    log.error("push provider crashed", { delivery_id: deliveryId, provider: provider.name, error: String(err) });
    return { ok: false, retryable: true, disableDevice: false, error: `provider error: ${String(err)}` };
  }
}

/** The data map a device receives: strings only, the internal delivery hint left out. */
function messageData(row: OutboxRow): Record<string, string> {
  const data: Record<string, string> = {};
  for (const [key, value] of Object.entries(row.data)) {
    if (key === "exclude_installation_id" || value === null || value === undefined) continue;
    data[key] = typeof value === "string" ? value : JSON.stringify(value);
  }
  data.event_code = row.eventCode;
  data.notification_id = row.id;
  if (row.deepLink) data.deep_link = row.deepLink;
  return data;
}

/**
 * Writes every outcome and settles each row: `sent` once every device has an outcome and one was
 * reached, `failed` when none was, `suppressed` when there was nobody or nothing to push to, still
 * `pending` (with its lease as "not before") while a device waits for a retry.
 */
async function settle(ctx: School, tenantId: string, plans: RowPlan[], attempts: Attempt[], providerName: string): Promise<void> {
  const now = ctx.clock.now();
  const statements: BatchItem[] = [];
  const disable: string[] = [];
  const outcomes: { id: string; status: string; message_id: string | null; error: string | null }[] = [];
  for (const attempt of attempts) {
    const { result } = attempt;
    const lastAttempt = attempt.row.attempts >= MAX_PUSH_ATTEMPTS;
    const status = result.ok ? "sent" : result.retryable && !lastAttempt ? "retry" : "failed";
    outcomes.push({ id: attempt.deliveryId, status, message_id: result.ok ? result.providerMessageId : null, error: result.ok ? null : result.error });
    if (!result.ok && result.disableDevice) disable.push(attempt.device.id);
    if (!result.ok) log.warn("push not delivered", { delivery_id: attempt.deliveryId, outbox_id: attempt.row.id, provider: providerName, status, error: result.error });
  }
  if (outcomes.length > 0) {
    statements.push(
      batchable(ctx, sql`
        UPDATE notification_deliveries SET status = o.status, provider_message_id = o.message_id, last_error = o.error,
          delivered_at = CASE WHEN o.status = 'sent' THEN ${now} END, updated_at = ${now}
        FROM (SELECT json_extract(value, '$.id') AS id, json_extract(value, '$.status') AS status, json_extract(value, '$.message_id') AS message_id,
                     json_extract(value, '$.error') AS error FROM json_each(${JSON.stringify(outcomes)})) AS o
        WHERE notification_deliveries.id = o.id`),
    );
  }
  if (disable.length > 0) {
    statements.push(ctx.db.update(pushDevices).set({ enabled: false, updatedAt: now }).where(and(inSchool(pushDevices, tenantId), idIn(pushDevices.id, disable))));
  }

  const delivered = new Set(attempts.filter((a) => a.result.ok).map((a) => a.row.id));
  if (delivered.size > 0) {
    statements.push(
      ctx.db
        .update(notificationOutbox)
        .set({ sentAt: sql`COALESCE(${notificationOutbox.sentAt}, ${now})` })
        .where(idIn(notificationOutbox.id, [...delivered])),
    );
  }

  let retryDelay: number | null = null;
  const campaigns = new Set<string>();
  const settled: { id: string; status: string; error: string | null; not_before: number | null }[] = [];
  for (const plan of plans) {
    const { row } = plan;
    const outcomes = new Map<string, string>(plan.earlier.map((d) => [d.pushDeviceId, d.status]));
    for (const attempt of attempts.filter((a) => a.row.id === row.id)) {
      outcomes.set(attempt.device.id, attempt.result.ok ? "sent" : attempt.result.retryable && row.attempts < MAX_PUSH_ATTEMPTS ? "retry" : "failed");
    }
    // Devices that waited for a retry but are gone or disabled now cannot be reached any more.
    const targeted = new Set(plan.targets.map((device) => device.id));
    for (const [deviceId, status] of outcomes) if (status === "retry" && !targeted.has(deviceId)) outcomes.set(deviceId, "failed");
    const statuses = [...outcomes.values()];
    const errors = attempts.filter((a) => a.row.id === row.id && !a.result.ok).map((a) => (a.result.ok ? "" : a.result.error));

    const joined = errors.join("; ").slice(0, 1000) || null;
    if (plan.suppressed !== null || statuses.length === 0) {
      settled.push({ id: row.id, status: "suppressed", error: plan.suppressed ?? "no enabled push device", not_before: null });
    } else if (statuses.includes("retry")) {
      const delay = Math.max(
        pushBackoffSeconds(row.attempts),
        ...attempts.filter((a) => a.row.id === row.id && !a.result.ok).map((a) => (a.result.ok ? 0 : (a.result.retryAfterSeconds ?? 0))),
      );
      retryDelay = retryDelay === null ? delay : Math.min(retryDelay, delay);
      settled.push({ id: row.id, status: "pending", error: joined, not_before: now + delay * 1000 - 1000 });
    } else if (statuses.includes("sent")) {
      settled.push({ id: row.id, status: "sent", error: joined, not_before: null });
    } else {
      settled.push({ id: row.id, status: "failed", error: joined ?? row.lastError ?? "no device accepted the push", not_before: null });
    }
    if (row.campaignId) campaigns.add(row.campaignId);
  }
  // One statement for the page. A row a cancel suppressed meanwhile keeps that state.
  if (settled.length > 0) {
    statements.push(
      batchable(ctx, sql`
        UPDATE notification_outbox SET status = r.status, last_error = r.error, lease_until = r.not_before,
          settled_at = CASE WHEN r.status = 'pending' THEN NULL ELSE ${now} END
        FROM (SELECT json_extract(value, '$.id') AS id, json_extract(value, '$.status') AS status, json_extract(value, '$.error') AS error,
                     json_extract(value, '$.not_before') AS not_before FROM json_each(${JSON.stringify(settled)})) AS r
        WHERE notification_outbox.id = r.id AND notification_outbox.status = 'pending'`),
    );
  }
  for (const campaignId of campaigns) statements.push(...campaignProgressStatements(ctx, tenantId, campaignId));
  await runBatch(ctx, statements);
  if (retryDelay !== null) await sendDispatch(ctx, [tenantId], retryDelay);
}
