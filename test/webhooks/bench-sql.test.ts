import { describe, expect, it } from "vitest";
import { webhooksBenchSql } from "../../scripts/bench/webhooks-sql.mjs";
import { fixtureD1 } from "../helpers/databases";
import { schoolWithAdmin } from "../helpers/users";
import { deliverHooks, deliveryRows, hookOf, receiver } from "./helpers";

/**
 * The rows of the delivery-throughput sub-bench (scripts/bench/webhooks.mjs): written as the bench
 * writes them, the consumer delivers each once, and a second run of the SQL (a re-run of the bench)
 * adds fresh rows instead of failing on the first run's keys.
 */
describe("the webhook sub-bench's rows", () => {
  it("are pending deliveries of the bench webhook that the consumer delivers, each once", async () => {
    const { school, admin } = await schoolWithAdmin();
    const hook = await hookOf(admin, { events: ["webhook.test"] });
    const run = async (now: number) => {
      const statements = webhooksBenchSql({ tenantId: school.id, webhookId: hook.id, now, events: 60 })
        .split(/;\n/)
        .map((statement) => statement.trim())
        .filter((statement) => statement.length > 0);
      await fixtureD1.batch(statements.map((statement) => fixtureD1.prepare(statement)));
    };
    await run(Date.now() - 2_000);
    await run(Date.now() - 1_000);
    const { received, fetch } = receiver([200]);
    for (let round = 0; round < 6 && received.length < 120; round++) await deliverHooks(school.id, fetch);
    expect(received).toHaveLength(120);
    expect(new Set(received.map((request) => request.headers["webhook-id"])).size).toBe(120);
    const rows = await deliveryRows(hook.id);
    expect(rows.filter((row) => row.status !== "delivered" || row.attempts !== 1)).toEqual([]);
    expect(rows).toHaveLength(120);
  });
});
