/**
 * The webhook delivery-throughput sub-bench (issue 36, "Performance"; docs/decisions/webhooks.md,
 * "Delivery"): deliveries per second from the queue consumer to a local receiver, not a request
 * bench, so it is not a row of the endpoint table. Wired into scripts/bench.mjs after the table:
 * `runWebhooksBench(baseUrl, session, run)`.
 *
 * Steps, against the bench's worker (the deployment's `.dev.vars` sets
 * `WEBHOOKS_ALLOW_LOOPBACK=true`, so an http loopback URL is accepted):
 *   1. a receiver on a free loopback port answers 200 to every POST and records `webhook-id`;
 *   2. the demo admin creates a webhook to it through the API, then disables it (a disabled
 *      webhook gets no tries, so nothing is delivered while the rows are written);
 *   3. 1,000 events and their pending deliveries are written straight to the school's shard (1,000
 *      source requests would measure the sources), with ids of this run, so re-runs add fresh rows;
 *   4. re-enabling it (PATCH `status: active`) sends the "deliveries due" message: the clock starts;
 *      the consumer claims 50 a message and sends the next message itself while pages are full;
 *   5. the clock stops at the last delivery received; the webhook (and its deliveries) is deleted,
 *      so runs never reach the limit of 10 per school.
 * The figure includes the local queue's batch wait (`max_batch_timeout`, 1 s a message): it is the
 * end-to-end rate of one school's backlog, the case the chained messages are for.
 */
import { createServer } from "node:http";
import { DEMO } from "../seed/demo.mjs";
import { WEBHOOKS_BENCH, webhooksBenchSql } from "./webhooks-sql.mjs";

export { WEBHOOKS_BENCH };

/** A receiver on a free loopback port: counts POSTs by `webhook-id`, resolves `done` at `expected` distinct ids. */
function startReceiver(expected) {
  const seen = new Set();
  let duplicates = 0;
  let firstAt = null;
  let lastAt = null;
  let finish;
  const done = new Promise((resolve) => (finish = resolve));
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const id = String(req.headers["webhook-id"] ?? "");
      if (seen.has(id)) duplicates++;
      seen.add(id);
      lastAt = performance.now();
      firstAt ??= lastAt;
      res.writeHead(200, { "content-type": "text/plain" }).end("ok");
      if (seen.size >= expected) finish();
    });
  });
  const listening = new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve(server.address().port));
  });
  return {
    listening,
    done,
    stats: () => ({ received: seen.size, duplicates, firstAt, lastAt }),
    close: () =>
      new Promise((resolve) => {
        // workerd keeps its connections alive; close() alone would wait for them.
        server.closeAllConnections();
        server.close(resolve);
      }),
  };
}

async function call(baseUrl, session, method, path, body) {
  const res = await fetch(`${baseUrl}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${session.admin.token}`, "x-tenant-subdomain": DEMO.subdomain, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/**
 * Runs the sub-bench and prints one line; `run.executeSql(binding, sql)` writes to the local D1.
 * Returns false when a delivery is missing or sent twice (the bench then exits non-zero).
 */
export async function runWebhooksBench(baseUrl, session, run) {
  const { events, timeoutMs } = WEBHOOKS_BENCH;
  const receiver = startReceiver(events);
  const port = await receiver.listening;
  let webhookId = null;
  try {
    const created = await call(baseUrl, session, "POST", "/t/webhooks", { url: `http://127.0.0.1:${port}/bench`, events: ["webhook.test"], description: "bench" });
    if (created.status !== 201) throw new Error(`bench webhook not created: ${created.status} ${JSON.stringify(created.body)}`);
    webhookId = created.body.data.id;
    const paused = await call(baseUrl, session, "PATCH", `/t/webhooks/${webhookId}`, { status: "disabled" });
    if (paused.status !== 200) throw new Error(`bench webhook not disabled: ${paused.status}`);
    await run.executeSql(DEMO.shard, webhooksBenchSql({ tenantId: DEMO.tenantId, webhookId, now: Date.now() - 1_000 }));

    const started = performance.now();
    const resumed = await call(baseUrl, session, "PATCH", `/t/webhooks/${webhookId}`, { status: "active" });
    if (resumed.status !== 200) throw new Error(`bench webhook not re-enabled: ${resumed.status}`);
    let timer;
    const timedOut = new Promise((resolve) => (timer = setTimeout(() => resolve("timeout"), timeoutMs)));
    const outcome = await Promise.race([receiver.done.then(() => "done"), timedOut]);
    clearTimeout(timer);
    const { received, duplicates, firstAt, lastAt } = receiver.stats();
    const seconds = ((lastAt ?? performance.now()) - started) / 1000;
    const steady = firstAt !== null && lastAt !== null && lastAt > firstAt ? (received - 1) / ((lastAt - firstAt) / 1000) : NaN;
    console.log(
      `\nwebhook delivery (${events} queued events, one school, local receiver): ${received} delivered in ${seconds.toFixed(1)}s = ` +
        `${(received / seconds).toFixed(0)} deliveries/s from the re-enable (${steady.toFixed(0)}/s first to last delivery); ` +
        `${duplicates} sent twice${outcome === "timeout" ? `; stopped after ${timeoutMs / 1000}s` : ""}`,
    );
    return received === events && duplicates === 0;
  } finally {
    if (webhookId) await call(baseUrl, session, "DELETE", `/t/webhooks/${webhookId}`).catch(() => undefined);
    await receiver.close();
  }
}
