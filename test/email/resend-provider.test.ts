import { afterEach, describe, expect, it, vi } from "vitest";
import { backoffSeconds, LEASE_MS, MAX_SEND_ATTEMPTS } from "../../queues/outbox-consumer";
import { setClockForTests } from "../../src/core/lib/clock";
import {
  envWith,
  fakeUpstream,
  insertOutboxRow,
  jsonResponse,
  outboxMessages,
  outboxRow,
  RESEND_KEY,
  RESEND_URL,
  resendEnv,
  runConsumer,
} from "../helpers/email";

const OUTBOX = "lms-outbox";

afterEach(() => vi.restoreAllMocks());

/** Failures log on purpose; keep the output readable. */
function quietLogs() {
  vi.spyOn(console, "warn").mockImplementation(() => undefined);
  vi.spyOn(console, "error").mockImplementation(() => undefined);
  vi.spyOn(console, "log").mockImplementation(() => undefined);
}

describe("resend provider against a mocked upstream", () => {
  it("posts the email with the bearer key and the outbox id as Idempotency-Key, then marks it sent", async () => {
    quietLogs();
    const upstream = fakeUpstream(jsonResponse(200, { id: "re_msg_1" }));
    const row = await insertOutboxRow();
    const messages = outboxMessages([row.id]);
    const result = await runConsumer(OUTBOX, messages, resendEnv({ DEV_MAILBOX: "true" }), upstream.fetch);

    expect(upstream.requests).toHaveLength(1);
    const [request] = upstream.requests;
    expect(request!.url).toBe(RESEND_URL);
    expect(request!.method).toBe("POST");
    expect(request!.headers.get("authorization")).toBe(`Bearer ${RESEND_KEY}`);
    expect(request!.headers.get("idempotency-key")).toBe(row.id);
    expect(request!.headers.get("content-type")).toBe("application/json");
    expect(request!.body).toEqual({ from: "School LMS <no-reply@lms.test>", to: row.toEmail, subject: row.subject, text: row.textBody, html: row.htmlBody });

    expect(result.explicitAcks).toEqual([messages[0]!.id]);
    expect(await outboxRow(row.id)).toMatchObject({ status: "sent", attempts: 1, providerMessageId: "re_msg_1", leaseUntil: null, textBody: row.textBody });
  });

  it("holds a lease of LEASE_MS and counts the attempt while the request is in flight", async () => {
    quietLogs();
    const now = Date.UTC(2031, 1, 1);
    setClockForTests({ now: () => now });
    const row = await insertOutboxRow();
    let duringSend: { leaseUntil: number | null; attempts: number } | undefined;
    const upstream = fakeUpstream(jsonResponse(200, { id: "re_msg_lease" }));
    const recordRow = async (input: string, init: RequestInit) => {
      const current = await outboxRow(row.id);
      duringSend = { leaseUntil: current.leaseUntil, attempts: current.attempts };
      return upstream.fetch(input, init);
    };
    await runConsumer(OUTBOX, outboxMessages([row.id]), resendEnv(), recordRow);
    expect(duringSend).toEqual({ leaseUntil: now + LEASE_MS, attempts: 1 });
  });

  it("wipes bodies and meta after sending when DEV_MAILBOX is off", async () => {
    quietLogs();
    const upstream = fakeUpstream(jsonResponse(200, { id: "re_msg_2" }));
    const row = await insertOutboxRow();
    await runConsumer(OUTBOX, outboxMessages([row.id]), resendEnv({ DEV_MAILBOX: "false" }), upstream.fetch);
    expect(await outboxRow(row.id)).toMatchObject({ status: "sent", providerMessageId: "re_msg_2", textBody: null, htmlBody: null, meta: null });
  });

  it("a redelivered message after success sends once", async () => {
    quietLogs();
    const upstream = fakeUpstream(jsonResponse(200, { id: "re_msg_3" }));
    const row = await insertOutboxRow();
    const messages = outboxMessages([row.id]);
    await runConsumer(OUTBOX, messages, resendEnv(), upstream.fetch);
    const again = await runConsumer(OUTBOX, messages, resendEnv(), upstream.fetch);
    expect(upstream.requests).toHaveLength(1);
    expect(again.explicitAcks).toEqual([messages[0]!.id]);
  });

  it("500 → retried with backoff; the retry reuses the Idempotency-Key and then succeeds", async () => {
    quietLogs();
    const now = Date.UTC(2031, 1, 2);
    setClockForTests({ now: () => now });
    const upstream = fakeUpstream(jsonResponse(500, { statusCode: 500, name: "internal_server_error", message: "Unexpected" }), jsonResponse(200, { id: "re_msg_4" }));
    const row = await insertOutboxRow();
    const messages = outboxMessages([row.id]);
    const first = await runConsumer(OUTBOX, messages, resendEnv(), upstream.fetch);

    expect(first.explicitAcks).toEqual([]);
    expect(first.retryMessages).toEqual([{ msgId: messages[0]!.id, delaySeconds: backoffSeconds(1) }]);
    expect(backoffSeconds(1)).toBe(60);
    const failed = await outboxRow(row.id);
    expect(failed).toMatchObject({ status: "pending", attempts: 1, lastError: "resend: HTTP 500 internal_server_error: Unexpected" });
    // Not before the retry is due: the sweep and duplicate messages leave it alone until then.
    expect(failed.leaseUntil).toBe(now + 59_000);

    setClockForTests({ now: () => now + 60_000 });
    const second = await runConsumer(OUTBOX, outboxMessages([row.id], 2), resendEnv(), upstream.fetch);
    expect(second.explicitAcks).toHaveLength(1);
    expect(upstream.requests.map((request) => request.headers.get("idempotency-key"))).toEqual([row.id, row.id]);
    expect(await outboxRow(row.id)).toMatchObject({ status: "sent", attempts: 2, providerMessageId: "re_msg_4" });
  });

  it("backs off exponentially up to a cap", () => {
    expect([1, 2, 3, 4, 5, 6, 10].map(backoffSeconds)).toEqual([60, 120, 240, 480, 900, 900, 900]);
  });

  it("429 honours a longer Retry-After; a network error retries too", async () => {
    quietLogs();
    const limited = fakeUpstream(jsonResponse(429, { name: "rate_limit_exceeded", message: "Too many requests" }, { "retry-after": "300" }));
    const row = await insertOutboxRow();
    const messages = outboxMessages([row.id]);
    const result = await runConsumer(OUTBOX, messages, resendEnv(), limited.fetch);
    expect(result.retryMessages).toEqual([{ msgId: messages[0]!.id, delaySeconds: 300 }]);
    expect((await outboxRow(row.id)).lastError).toBe("resend: HTTP 429 rate_limit_exceeded: Too many requests");

    const other = await insertOutboxRow();
    const otherMessages = outboxMessages([other.id]);
    const offline = await runConsumer(OUTBOX, otherMessages, resendEnv(), async () => {
      throw new TypeError("Network connection lost.");
    });
    expect(offline.retryMessages).toEqual([{ msgId: otherMessages[0]!.id, delaySeconds: 60 }]);
    expect(await outboxRow(other.id)).toMatchObject({ status: "pending", lastError: "resend: request failed: TypeError: Network connection lost." });
  });

  it("422 → permanent: the row is failed and the message acked", async () => {
    quietLogs();
    const upstream = fakeUpstream(jsonResponse(422, { statusCode: 422, name: "validation_error", message: "Invalid `to` field." }));
    const row = await insertOutboxRow();
    const messages = outboxMessages([row.id]);
    const result = await runConsumer(OUTBOX, messages, resendEnv(), upstream.fetch);

    expect(result.explicitAcks).toEqual([messages[0]!.id]);
    expect(result.retryMessages).toEqual([]);
    expect(await outboxRow(row.id)).toMatchObject({ status: "failed", attempts: 1, leaseUntil: null, lastError: "resend: HTTP 422 validation_error: Invalid `to` field." });
  });

  it(`the ${MAX_SEND_ATTEMPTS}th failed attempt marks the row failed and acks`, async () => {
    quietLogs();
    const upstream = fakeUpstream(jsonResponse(503, { name: "service_unavailable", message: "Down" }));
    const row = await insertOutboxRow({ attempts: MAX_SEND_ATTEMPTS - 1, lastError: "resend: HTTP 503" });
    const messages = outboxMessages([row.id], MAX_SEND_ATTEMPTS);
    const result = await runConsumer(OUTBOX, messages, resendEnv(), upstream.fetch);

    expect(result.explicitAcks).toEqual([messages[0]!.id]);
    expect(result.retryMessages).toEqual([]);
    expect(await outboxRow(row.id)).toMatchObject({
      status: "failed",
      attempts: MAX_SEND_ATTEMPTS,
      lastError: `gave up after ${MAX_SEND_ATTEMPTS} attempts: resend: HTTP 503 service_unavailable: Down`,
    });
  });

  it("resend selected without an API key: permanent failure with a clear reason, nothing sent", async () => {
    quietLogs();
    const upstream = fakeUpstream(jsonResponse(200, { id: "never" }));
    const row = await insertOutboxRow();
    const messages = outboxMessages([row.id]);
    const result = await runConsumer(OUTBOX, messages, envWith({ MAIL_PROVIDER: "resend", RESEND_API_KEY: "" }), upstream.fetch);

    expect(upstream.requests).toHaveLength(0);
    expect(result.explicitAcks).toEqual([messages[0]!.id]);
    expect(await outboxRow(row.id)).toMatchObject({ status: "failed", lastError: "config: MAIL_PROVIDER=resend but RESEND_API_KEY is not set" });
  });

  it("a 2xx without a readable id still counts as sent (never resent)", async () => {
    quietLogs();
    const upstream = fakeUpstream(() => new Response("ok", { status: 202 }));
    const row = await insertOutboxRow();
    await runConsumer(OUTBOX, outboxMessages([row.id]), resendEnv(), upstream.fetch);
    expect(await outboxRow(row.id)).toMatchObject({ status: "sent", providerMessageId: null });
  });
});
