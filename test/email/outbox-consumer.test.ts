import { afterEach, describe, expect, it, vi } from "vitest";
import { MAX_SEND_ATTEMPTS, OUTBOX_DLQ } from "../../queues/outbox-consumer";
import { setClockForTests } from "../../src/core/lib/clock";
import { envWith, insertOutboxRow, outboxMessages, outboxRow, runWorkerQueue } from "../helpers/email";

const OUTBOX = "lms-outbox";

/** Lines the log provider wrote for one outbox id: each one is a "send". */
function logSends(spy: { mock: { calls: unknown[][] } }, outboxId: string) {
  return spy.mock.calls
    .map((call) => String(call[0]))
    .filter((line) => line.includes('"msg":"email (log provider)"') && line.includes(outboxId))
    .map((line) => JSON.parse(line));
}

afterEach(() => vi.restoreAllMocks());

describe("outbox consumer (log provider, the Worker's queue handler)", () => {
  it("sends a pending email, marks it sent and acks", async () => {
    const spy = vi.spyOn(console, "log");
    const row = await insertOutboxRow();
    const messages = outboxMessages([row.id]);
    const result = await runWorkerQueue(OUTBOX, messages, envWith({ DEV_MAILBOX: "true" }));

    expect(result.explicitAcks).toEqual([messages[0]!.id]);
    expect(result.retryMessages).toEqual([]);
    const [line] = logSends(spy, row.id);
    expect(line).toMatchObject({ to: row.toEmail, kind: "verification", subject: row.subject, text: row.textBody });
    const after = await outboxRow(row.id);
    expect(after).toMatchObject({ status: "sent", attempts: 1, leaseUntil: null, providerMessageId: `log:${row.id}` });
    expect(after.sentAt).toEqual(expect.any(Number));
    // DEV_MAILBOX on: the dev mailbox still needs the bodies.
    expect(after.textBody).toBe(row.textBody);
    expect(after.meta).toEqual({ token: "secret-token" });
  });

  it("without DEV_MAILBOX: logs no body and wipes bodies and meta once sent", async () => {
    const spy = vi.spyOn(console, "log");
    const row = await insertOutboxRow();
    await runWorkerQueue(OUTBOX, outboxMessages([row.id]), envWith({ DEV_MAILBOX: "false" }));

    const [line] = logSends(spy, row.id);
    expect(line).toEqual({ level: "info", msg: "email (log provider)", outbox_id: row.id, to: row.toEmail, kind: "verification", subject: row.subject });
    const loggedEverything = spy.mock.calls.map((call) => String(call[0])).join("\n");
    expect(loggedEverything).not.toContain("secret-token");
    expect(await outboxRow(row.id)).toMatchObject({ status: "sent", textBody: null, htmlBody: null, meta: null });
  });

  it("acks a message for an already-sent row without sending", async () => {
    const spy = vi.spyOn(console, "log");
    const row = await insertOutboxRow({ status: "sent", attempts: 1, sentAt: Date.now(), providerMessageId: "earlier" });
    const messages = outboxMessages([row.id], 2);
    const result = await runWorkerQueue(OUTBOX, messages, envWith({}));

    expect(result.explicitAcks).toEqual([messages[0]!.id]);
    expect(result.retryMessages).toEqual([]);
    expect(logSends(spy, row.id)).toHaveLength(0);
    expect(await outboxRow(row.id)).toMatchObject({ status: "sent", attempts: 1, providerMessageId: "earlier" });
  });

  it("acks a failed row, a missing row and a malformed message without sending", async () => {
    const spy = vi.spyOn(console, "log");
    const failed = await insertOutboxRow({ status: "failed", attempts: MAX_SEND_ATTEMPTS, lastError: "boom" });
    const messages = [
      ...outboxMessages([failed.id, "0190aaaa-0000-7000-8000-000000000000"]),
      { id: "msg-malformed", timestamp: Date.now(), attempts: 1, body: { kind: "push", outbox_id: failed.id } as never },
    ];
    const result = await runWorkerQueue(OUTBOX, messages, envWith({}));

    expect(result.explicitAcks.sort()).toEqual(messages.map((message) => message.id).sort());
    expect(logSends(spy, failed.id)).toHaveLength(0);
    expect(await outboxRow(failed.id)).toMatchObject({ status: "failed", attempts: MAX_SEND_ATTEMPTS, lastError: "boom" });
  });

  it("two deliveries of the same message send once", async () => {
    const spy = vi.spyOn(console, "log");
    const row = await insertOutboxRow();
    const [message] = outboxMessages([row.id]);
    const first = await runWorkerQueue(OUTBOX, [message!], envWith({}));
    const redelivery = await runWorkerQueue(OUTBOX, [{ ...message!, attempts: 2 }], envWith({}));

    expect(first.explicitAcks).toEqual([message!.id]);
    expect(redelivery.explicitAcks).toEqual([message!.id]);
    expect(logSends(spy, row.id)).toHaveLength(1);
    expect(await outboxRow(row.id)).toMatchObject({ status: "sent", attempts: 1 });
  });

  it("two consumers racing for one row: one sends, the other is told to come back after the lease", async () => {
    const spy = vi.spyOn(console, "log");
    const row = await insertOutboxRow();
    const [a, b] = await Promise.all([
      runWorkerQueue(OUTBOX, outboxMessages([row.id]), envWith({})),
      runWorkerQueue(OUTBOX, outboxMessages([row.id]), envWith({})),
    ]);

    expect(logSends(spy, row.id)).toHaveLength(1);
    // The loser either saw the row settled (ack) or still leased (retry after the lease); never both, never a second send.
    expect([a!, b!].map((result) => result.explicitAcks.length + result.retryMessages.length)).toEqual([1, 1]);
    expect([a!, b!].some((result) => result.explicitAcks.length === 1)).toBe(true);
    for (const retried of [a!, b!].flatMap((result) => result.retryMessages)) expect(retried.delaySeconds).toBeGreaterThan(0);
    expect(await outboxRow(row.id)).toMatchObject({ status: "sent", attempts: 1 });
  });

  it("a lease held by another consumer → retried with the lease's remaining time, nothing sent", async () => {
    const now = Date.UTC(2031, 0, 1);
    setClockForTests({ now: () => now });
    const spy = vi.spyOn(console, "log");
    const row = await insertOutboxRow({ attempts: 1, leaseUntil: now + 30_000 });
    const messages = outboxMessages([row.id]);
    const result = await runWorkerQueue(OUTBOX, messages, envWith({}));

    expect(result.explicitAcks).toEqual([]);
    expect(result.retryMessages).toEqual([{ msgId: messages[0]!.id, delaySeconds: 30 }]);
    expect(logSends(spy, row.id)).toHaveLength(0);
    expect(await outboxRow(row.id)).toMatchObject({ status: "pending", attempts: 1, leaseUntil: now + 30_000 });

    // Once the lease has run out (the holder died), the next delivery claims and sends.
    setClockForTests({ now: () => now + 30_000 });
    const later = await runWorkerQueue(OUTBOX, messages, envWith({}));
    expect(later.explicitAcks).toEqual([messages[0]!.id]);
    expect(await outboxRow(row.id)).toMatchObject({ status: "sent", attempts: 2 });
  });
});

describe("dead-letter queue", () => {
  it("marks dead-lettered pending rows failed, leaves settled or leased rows alone, logs no secrets, acks all", async () => {
    const now = Date.UTC(2031, 0, 3);
    setClockForTests({ now: () => now });
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const stuck = await insertOutboxRow({ attempts: 3, lastError: "resend: HTTP 503" });
    const sent = await insertOutboxRow({ status: "sent", attempts: 1 });
    const leased = await insertOutboxRow({ attempts: 1, leaseUntil: now + 20_000 });
    const messages = outboxMessages([stuck.id, sent.id, leased.id], 6);
    const result = await runWorkerQueue(OUTBOX_DLQ, messages, envWith({ DEV_MAILBOX: "false" }));

    expect(result.ackAll).toBe(true);
    expect(result.retryMessages).toEqual([]);
    expect(await outboxRow(stuck.id)).toMatchObject({
      status: "failed",
      leaseUntil: null,
      lastError: "dead-lettered: queue retries exhausted; last error: resend: HTTP 503",
    });
    expect((await outboxRow(sent.id)).status).toBe("sent");
    expect(await outboxRow(leased.id)).toMatchObject({ status: "pending", leaseUntil: now + 20_000 });

    const lines = errors.mock.calls.map((call) => JSON.parse(String(call[0])));
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ level: "error", msg: "email dead-lettered", queue: OUTBOX_DLQ, outbox_id: stuck.id, marked_failed: true, message_attempts: 6 }),
        expect.objectContaining({ msg: "email dead-lettered", outbox_id: sent.id, marked_failed: false }),
        expect.objectContaining({ msg: "email dead-lettered", outbox_id: leased.id, marked_failed: false }),
      ]),
    );
    const logged = errors.mock.calls.map((call) => String(call[0])).join("\n");
    expect(logged).not.toContain("secret-token");
    expect(logged).not.toContain(stuck.subject);
  });
});
