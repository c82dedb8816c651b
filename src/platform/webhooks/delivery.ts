import { sql } from "drizzle-orm";
import { batchable, rowsOf, runBatch, type BatchItem } from "../../core/db/batch";
import { inSchool } from "../../core/db/conditions";
import type { SchoolCtx, SystemActor } from "../../core/http/context";
import { HOUR_MS, iso, MINUTE_MS } from "../../core/lib/clock";
import { log } from "../../core/lib/log";
import type { EventDefinition } from "../notifications/catalog";
import { dispatchQueued, enqueue } from "../notifications/enqueue";
import { activeWebhooksCount, clearWebhooksFlag } from "./flag";
import { sendWebhookDispatch } from "./outbox";
import { openWebhookSecret, signatureOf, webhookSecretKey } from "./secrets";

/**
 * Webhook delivery (05 section 5, docs/decisions/webhooks.md, "Delivery"): the consumer claims a
 * school's due deliveries (a lease, so a duplicate message sends nothing twice), POSTs each signed
 * with the Standard Webhooks scheme, and records the answer in one batch per page.
 */

export type FetchFn = (input: string, init: RequestInit) => Promise<Response>;

/** After try n (1-based) fails, try n+1 comes this much later; the 7th failure is final. */
export const RETRY_DELAYS_MS = [MINUTE_MS, 5 * MINUTE_MS, 30 * MINUTE_MS, 2 * HOUR_MS, 8 * HOUR_MS, 24 * HOUR_MS];
export const MAX_TRIES = RETRY_DELAYS_MS.length + 1;
/** Failed tries in a row that disable a webhook. */
export const DISABLE_AFTER_FAILURES = 20;
export const TIMEOUT_MS = 10_000;
const LEASE_MS = 60_000;
const PAGE_SIZE = 50;
const EXCERPT_CHARS = 500;
/** A queue message may wait at most 12 hours; later tries are re-sent by the cron sweep. */
const MAX_DELAY_SECONDS = 43_200;

export const WEBHOOK_DISABLED: EventDefinition = {
  code: "webhook.disabled",
  category: "account",
  name: "Webhook disabled",
  description: "a webhook failed 20 deliveries in a row and was disabled (05 section 5)",
  source: "domain_event",
  recipients: "school_admins",
  aggregateType: "webhook",
  variables: ["url"],
  defaultEnabled: true,
  defaultConfig: {},
  implemented: true,
  templates: {
    ru: { title: "Вебхук отключён", body: "Вебхук {{url}} не принял 20 доставок подряд и отключён." },
    en: { title: "Webhook disabled", body: "The webhook {{url}} failed 20 deliveries in a row and was disabled." },
  },
};

type School = SchoolCtx<SystemActor>;

interface Claimed {
  id: string;
  webhook_id: string;
  event_id: string;
  attempts: number;
}

interface Outcome {
  delivery: Claimed;
  url: string;
  ok: boolean;
  status: number | null;
  durationMs: number;
  excerpt: string | null;
}

/** Delivers what is due in the school now; returns how many tries were made. */
export async function deliverDueWebhooks(school: School, fetchFn: FetchFn): Promise<number> {
  const now = school.clock.now();
  const [claimedResult] = await runBatch(school, [
    batchable(
      school,
      sql`UPDATE webhook_deliveries SET lease_until = ${now + LEASE_MS}, attempts = attempts + 1
        WHERE ${inSchool(school.tenantId)} AND id IN (
          SELECT d.id FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id AND ${inSchool("w", school.tenantId)} AND w.status = 'active'
          WHERE ${inSchool("d", school.tenantId)} AND d.status = 'pending' AND d.next_attempt_at <= ${now} AND (d.lease_until IS NULL OR d.lease_until <= ${now})
          ORDER BY d.next_attempt_at, d.id LIMIT ${PAGE_SIZE})
        RETURNING id, webhook_id, event_id, attempts`,
    ),
  ]);
  const claimed = rowsOf<Claimed>(claimedResult);
  if (claimed.length === 0) return 0;
  const outcomes = await send(school, claimed, fetchFn);
  const next = await record(school, outcomes);
  if (claimed.length === PAGE_SIZE) await sendWebhookDispatch(school, [school.tenantId]);
  else if (next !== null) {
    const delaySeconds = Math.max(1, Math.ceil((next - school.clock.now()) / 1000));
    if (delaySeconds <= MAX_DELAY_SECONDS) await sendWebhookDispatch(school, [school.tenantId], delaySeconds);
  }
  return claimed.length;
}

async function send(school: School, claimed: Claimed[], fetchFn: FetchFn): Promise<Outcome[]> {
  const eventIds = [...new Set(claimed.map((row) => row.event_id))];
  const webhookIds = [...new Set(claimed.map((row) => row.webhook_id))];
  const [eventsResult, webhooksResult] = await runBatch(school, [
    batchable(school, sql`SELECT id, type, data, occurred_at FROM webhook_events WHERE ${inSchool(school.tenantId)} AND id IN (SELECT value FROM json_each(${JSON.stringify(eventIds)}))`),
    batchable(
      school,
      sql`SELECT id, url, secret_ciphertext, previous_secret_ciphertext, previous_secret_expires_at FROM webhooks
        WHERE ${inSchool(school.tenantId)} AND id IN (SELECT value FROM json_each(${JSON.stringify(webhookIds)}))`,
    ),
  ]);
  const events = new Map(rowsOf<{ id: string; type: string; data: string; occurred_at: number }>(eventsResult).map((row) => [row.id, row]));
  const hooks = new Map(
    rowsOf<{ id: string; url: string; secret_ciphertext: string; previous_secret_ciphertext: string | null; previous_secret_expires_at: number | null }>(webhooksResult).map((row) => [row.id, row]),
  );
  const key = await webhookSecretKey(school.env.PUSH_TOKEN_KEY);
  const secrets = new Map<string, string[]>();
  for (const hook of hooks.values()) {
    if (!key) continue;
    const now = school.clock.now();
    const current = await openWebhookSecret(key, hook.secret_ciphertext, school.tenantId, hook.id);
    const previous =
      hook.previous_secret_ciphertext && (hook.previous_secret_expires_at ?? 0) > now
        ? [await openWebhookSecret(key, hook.previous_secret_ciphertext, school.tenantId, hook.id)]
        : [];
    secrets.set(hook.id, [current, ...previous]);
  }
  return Promise.all(
    claimed.map(async (delivery): Promise<Outcome> => {
      const event = events.get(delivery.event_id);
      const hook = hooks.get(delivery.webhook_id);
      const signing = secrets.get(delivery.webhook_id);
      if (!event || !hook || !signing) {
        log.error("webhook delivery without its event, webhook or key", { tenant_id: school.tenantId, delivery_id: delivery.id, key: key !== null });
        return { delivery, url: hook?.url ?? "", ok: false, status: null, durationMs: 0, excerpt: "not sent: the event or the signing key is missing" };
      }
      const body = `{"id":${JSON.stringify(event.id)},"type":${JSON.stringify(event.type)},"school_id":${JSON.stringify(school.tenantId)},"occurred_at":${JSON.stringify(iso(event.occurred_at))},"data":${event.data}}`;
      const timestamp = Math.floor(school.clock.now() / 1000);
      const signatures = await Promise.all(signing.map((secret) => signatureOf(secret, event.id, timestamp, body)));
      const started = Date.now();
      try {
        const res = await fetchFn(hook.url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "webhook-id": event.id,
            "webhook-timestamp": String(timestamp),
            "webhook-signature": signatures.join(" "),
            "user-agent": "lms-webhooks/1",
          },
          body,
          // A redirect is an answer, not a new target: following it could reach a host the URL policy refuses.
          redirect: "manual",
          signal: AbortSignal.timeout(TIMEOUT_MS),
        });
        const text = await res.text();
        return { delivery, url: hook.url, ok: res.status >= 200 && res.status < 300, status: res.status, durationMs: Date.now() - started, excerpt: text.slice(0, EXCERPT_CHARS) };
      } catch (err) {
        const timedOut = err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError");
        return { delivery, url: hook.url, ok: false, status: null, durationMs: Date.now() - started, excerpt: (timedOut ? "timeout after 10 s" : `network error: ${String(err)}`).slice(0, EXCERPT_CHARS) };
      }
    }),
  );
}

/** One batch: each delivery's outcome, the webhooks' failure counts, the pushes of webhooks disabled now. Returns the earliest next try. */
async function record(school: School, outcomes: Outcome[]): Promise<number | null> {
  const now = school.clock.now();
  const statements: BatchItem[] = [];
  let next: number | null = null;
  for (const outcome of outcomes) {
    const { delivery } = outcome;
    const final = outcome.ok || delivery.attempts >= MAX_TRIES;
    const nextAt = final ? null : now + RETRY_DELAYS_MS[delivery.attempts - 1]!;
    if (nextAt !== null) next = next === null ? nextAt : Math.min(next, nextAt);
    statements.push(
      batchable(
        school,
        sql`UPDATE webhook_deliveries SET status = ${outcome.ok ? "delivered" : final ? "failed" : "pending"}, response_status = ${outcome.status},
            duration_ms = ${outcome.durationMs}, response_excerpt = ${outcome.excerpt}, next_attempt_at = ${nextAt}, lease_until = NULL,
            delivered_at = ${outcome.ok ? now : null}
          WHERE ${inSchool(school.tenantId)} AND id = ${delivery.id}`,
      ),
      batchable(
        school,
        outcome.ok
          ? sql`UPDATE webhooks SET consecutive_failures = 0 WHERE ${inSchool(school.tenantId)} AND id = ${delivery.webhook_id}`
          : sql`UPDATE webhooks SET consecutive_failures = consecutive_failures + 1,
              status = CASE WHEN consecutive_failures + 1 >= ${DISABLE_AFTER_FAILURES} THEN 'disabled' ELSE status END,
              disabled_at = CASE WHEN consecutive_failures + 1 >= ${DISABLE_AFTER_FAILURES} THEN ${now} ELSE disabled_at END
            WHERE ${inSchool(school.tenantId)} AND id = ${delivery.webhook_id} AND status = 'active'`,
      ),
    );
  }
  const failedHooks = new Map(outcomes.filter((outcome) => !outcome.ok).map((outcome) => [outcome.delivery.webhook_id, outcome.url]));
  for (const [webhookId, url] of failedHooks) {
    statements.push(
      await enqueue(school, WEBHOOK_DISABLED, { token: "school_admins" }, { url }, { id: webhookId }, `webhook.disabled:${webhookId}:${now}`, {
        when: sql`EXISTS (SELECT 1 FROM webhooks dw WHERE ${inSchool("dw", school.tenantId)} AND dw.id = ${webhookId} AND dw.status = 'disabled' AND dw.disabled_at = ${now})`,
      }),
    );
  }
  // A webhook this batch may have disabled may have been the school's last active one.
  const results = await runBatch(school, failedHooks.size > 0 ? [...statements, activeWebhooksCount(school)] : statements);
  if (failedHooks.size > 0) await clearWebhooksFlag(school, results[statements.length]);
  await dispatchQueued(school);
  return next;
}
