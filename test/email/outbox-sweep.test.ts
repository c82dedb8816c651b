import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env, EmailMessage } from "../../src/core/env";
import { jobContext } from "../../src/contributors";
import { stuckOutboxRows, sweepOutbox } from "../../src/platform/email/outbox-sweep-job";
import worker from "../../src";
import { insertOutboxRow, outboxRow } from "../helpers/email";
import { fixtureD1 } from "../helpers/databases";
import { queryPlan } from "../helpers/plans";

/** An OUTBOX binding that records what the sweep enqueues instead of delivering it. */
function recordingQueue() {
  const sent: EmailMessage[] = [];
  const queue = {
    send: async (body: EmailMessage) => void sent.push(body),
    sendBatch: async (messages: Iterable<MessageSendRequest<EmailMessage>>) => {
      for (const message of messages) sent.push(message.body);
    },
  } as unknown as Queue<EmailMessage>;
  return { sent, env: { ...env, OUTBOX: queue } as Env };
}

describe("outbox sweep", () => {
  it("re-enqueues old pending rows whose lease ran out; leaves sent, failed, fresh and leased rows alone", async () => {
    const now = Date.now();
    const old = now - 10 * 60_000;
    const stuck = await insertOutboxRow({ createdAt: old });
    const expiredLease = await insertOutboxRow({ createdAt: old, attempts: 1, leaseUntil: now - 1_000 });
    const sent = await insertOutboxRow({ createdAt: old, status: "sent", attempts: 1 });
    const failed = await insertOutboxRow({ createdAt: old, status: "failed", attempts: 5 });
    const fresh = await insertOutboxRow({ createdAt: now });
    const leased = await insertOutboxRow({ createdAt: old, attempts: 1, leaseUntil: now + 60_000 });

    const queue = recordingQueue();
    await sweepOutbox(jobContext(queue.env));
    const ids = queue.sent.map((message) => message.outbox_id);

    expect(ids).toEqual(expect.arrayContaining([stuck.id, expiredLease.id]));
    for (const untouched of [sent, failed, fresh, leased]) expect(ids).not.toContain(untouched.id);
    expect(queue.sent.find((message) => message.outbox_id === stuck.id)).toEqual({ kind: "email", outbox_id: stuck.id });
    expect((await outboxRow(sent.id)).status).toBe("sent");
    expect((await outboxRow(failed.id)).status).toBe("failed");
  });

  it("walks the (status, created_at) index", async () => {
    const query = stuckOutboxRows(jobContext(env)).toSQL();
    const plan = (await queryPlan(fixtureD1, query.sql, query.params)).join("\n");
    expect(plan).toContain("SEARCH email_outbox USING INDEX email_outbox_status (status=? AND created_at<?)");
    // The index order serves ORDER BY created_at: no sort of the matching rows.
    expect(plan).not.toContain("USE TEMP B-TREE");
  });

  it("runs from the cron trigger through the Worker's scheduled handler", async () => {
    const now = Date.now();
    const row = await insertOutboxRow({ createdAt: now - 10 * 60_000 });
    const queue = recordingQueue();
    const ctx = createExecutionContext();
    worker.scheduled(createScheduledController({ cron: "*/5 * * * *", scheduledTime: now }), queue.env, ctx);
    await waitOnExecutionContext(ctx);
    expect(queue.sent.map((message) => message.outbox_id)).toContain(row.id);
  });
});
