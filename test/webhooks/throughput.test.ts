import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "../helpers/factories";
import { schoolWithAdmin } from "../helpers/users";
import { deliverHooks, deliveryRows, hookOf, receiver } from "./helpers";

/**
 * The consumer delivers 1,000 queued events to a receiver without a failure (issue 36,
 * "Performance"): the events and their deliveries are written straight to D1 (1,000 source requests
 * would measure the sources), then the consumer runs on "deliveries due" messages, 50 a claim,
 * until none is left.
 */
describe("webhook delivery throughput", () => {
  it("delivers 1,000 queued events, each once, without a failure", async () => {
    const { school, admin } = await schoolWithAdmin();
    const hook = await hookOf(admin, { events: ["*"] });
    const prefix = crypto.randomUUID().slice(0, 24);
    const now = Date.now() - 1000;
    await db().run(
      sql`INSERT INTO webhook_events (id, tenant_id, type, data, occurred_at)
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
        SELECT ${prefix} || printf('%012x', i), ${school.id}, 'enrollment.created', json_object('n', i), ${now} FROM n`,
    );
    await db().run(
      sql`INSERT INTO webhook_deliveries (id, tenant_id, webhook_id, event_id, type, status, attempts, next_attempt_at, created_at)
        SELECT e.id, e.tenant_id, ${hook.id}, e.id, e.type, 'pending', 0, ${now}, ${now} FROM webhook_events e WHERE e.tenant_id = ${school.id}`,
    );
    const { received, fetch } = receiver([200]);
    for (let round = 0; round < 25 && received.length < 1000; round++) await deliverHooks(school.id, fetch);

    expect(received).toHaveLength(1000);
    expect(new Set(received.map((request) => request.headers["webhook-id"])).size).toBe(1000);
    const rows = await deliveryRows(hook.id);
    expect(rows).toHaveLength(1000);
    expect(rows.filter((row) => row.status !== "delivered" || row.attempts !== 1)).toEqual([]);
  });
});
