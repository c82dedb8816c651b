/**
 * The rows of the webhook delivery sub-bench (./webhooks.mjs), apart from its receiver (node:http)
 * so that test/webhooks/bench-sql.test.ts runs the very SQL in the test runtime.
 */
import { literal } from "../lib/sql.mjs";

/** `name` is what `BENCH_ONLY` matches, as for the endpoints. */
export const WEBHOOKS_BENCH = { name: "webhook delivery throughput (sub-bench)", events: 1_000, timeoutMs: 180_000 };

/** The events and pending deliveries of one run for `webhookId`, due now. */
export function webhooksBenchSql({ tenantId, webhookId, now, events = WEBHOOKS_BENCH.events }) {
  // A prefix of this run (the webhook's id is new each run), so a re-run writes new rows.
  const prefix = `${webhookId.slice(0, 23)}-${(now % 0xffffffff).toString(16).padStart(8, "0")}`;
  const ids = `${literal(prefix)} || printf('%04x', n.i)`;
  return `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${events - 1})
INSERT INTO webhook_events (id, tenant_id, type, data, occurred_at)
SELECT ${ids}, ${literal(tenantId)}, 'enrollment.created', json_object('bench', n.i), ${now} FROM n;
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${events - 1})
INSERT INTO webhook_deliveries (id, tenant_id, webhook_id, event_id, type, status, attempts, next_attempt_at, created_at)
SELECT ${ids}, ${literal(tenantId)}, ${literal(webhookId)}, ${ids}, 'enrollment.created', 'pending', 0, ${now}, ${now} FROM n;
`;
}

