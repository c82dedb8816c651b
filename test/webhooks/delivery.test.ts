import { afterEach, describe, expect, it } from "vitest";
import { Webhook as Verifier } from "standardwebhooks";
import { setClockForTests } from "../../src/core/lib/clock";
import { as, schoolWithAdmin } from "../helpers/users";
import { addPushDevice, outboxRows } from "../notifications/helpers";
import { deliverHooks, deliveryRows, hookOf, receiver, webhookRow } from "./helpers";

/** Delivery of 05 section 5: signature, retries, the log, rotation, auto-disable, redelivery. */

afterEach(() => setClockForTests(null));

/** Runs the consumer as if it were `at` (the API calls around it keep the real clock, which the tokens need). */
async function deliverAt(at: number, tenantId: string, fetch: Parameters<typeof deliverHooks>[1]) {
  setClockForTests({ now: () => at });
  try {
    await deliverHooks(tenantId, fetch);
  } finally {
    setClockForTests(null);
  }
}

const testEvent = async (admin: Parameters<typeof as>[0], id: string) => (await as(admin, `/t/webhooks/${id}/test`, { method: "POST" })).body.data;

describe("webhook delivery", () => {
  it("POSTs the event signed with the Standard Webhooks scheme; the package verifies it; the log records the answer", async () => {
    const { school, admin } = await schoolWithAdmin();
    const hook = await hookOf(admin);
    const queued = await testEvent(admin, hook.id);
    const { received, fetch } = receiver([200]);
    await deliverHooks(school.id, fetch);

    expect(received).toHaveLength(1);
    const [request] = received;
    expect(request!.url).toBe("https://crm.example.com/hooks/lms");
    expect(request!.headers["content-type"]).toBe("application/json");
    expect(request!.headers["webhook-id"]).toBe(queued.event_id);
    expect(request!.headers["webhook-timestamp"]).toMatch(/^\d{10}$/);
    expect(request!.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    const payload = new Verifier(hook.secret).verify(request!.body, request!.headers);
    expect(payload).toEqual({ id: queued.event_id, type: "webhook.test", school_id: school.id, occurred_at: queued.created_at, data: { webhook_id: hook.id, url: hook.url } });

    const log = (await as(admin, `/t/webhooks/${hook.id}/deliveries?status=delivered`)).body.data;
    expect(log).toEqual({
      deliveries: [{ ...queued, status: "delivered", attempts: 1, response_status: 200, duration_ms: expect.any(Number), response_excerpt: "ok", next_attempt_at: null, delivered_at: expect.any(String) }],
      total: 1,
      page: 1,
      limit: 20,
    });
    // Delivered: another message sends nothing again.
    await deliverHooks(school.id, fetch);
    expect(received).toHaveLength(1);
    expect((await as(admin, `/t/webhooks/${hook.id}/deliveries?status=pending`)).body.data.total).toBe(0);
  });

  it("a 500 is retried a minute later (attempts, response_status, response_excerpt, next try); the 200 after it delivers", async () => {
    const { school, admin } = await schoolWithAdmin();
    const hook = await hookOf(admin);
    await testEvent(admin, hook.id);
    const start = Date.now() + 1000;
    const { received, fetch } = receiver([500, 200]);
    await deliverAt(start, school.id, fetch);
    const [failed] = (await as(admin, `/t/webhooks/${hook.id}/deliveries`)).body.data.deliveries;
    expect(failed).toMatchObject({ status: "pending", attempts: 1, response_status: 500, next_attempt_at: new Date(start + 60_000).toISOString(), delivered_at: null });
    expect(failed.response_excerpt).toHaveLength(500);
    expect(failed.response_excerpt.startsWith("error 500: xxx")).toBe(true);
    expect((await webhookRow(hook.id))!.consecutiveFailures).toBe(1);

    // Not due yet: nothing is sent.
    await deliverAt(start + 59_000, school.id, fetch);
    expect(received).toHaveLength(1);
    await deliverAt(start + 60_000, school.id, fetch);
    expect(received).toHaveLength(2);
    expect(received[1]!.headers["webhook-id"]).toBe(received[0]!.headers["webhook-id"]);
    const [delivered] = (await as(admin, `/t/webhooks/${hook.id}/deliveries`)).body.data.deliveries;
    expect(delivered).toMatchObject({ status: "delivered", attempts: 2, response_status: 200, response_excerpt: "ok", next_attempt_at: null, delivered_at: new Date(start + 60_000).toISOString() });
    expect((await webhookRow(hook.id))!.consecutiveFailures).toBe(0);
  });

  it("retries after 1 min, 5 min, 30 min, 2 h, 8 h and 24 h, then fails; redelivery tries once more now", async () => {
    const { school, admin } = await schoolWithAdmin();
    const hook = await hookOf(admin);
    await testEvent(admin, hook.id);
    let now = Date.now() + 1000;
    const { received, fetch } = receiver(["timeout"]);
    const gaps: number[] = [];
    for (let i = 0; i < 7; i++) {
      await deliverAt(now, school.id, fetch);
      const [row] = await deliveryRows(hook.id);
      if (row!.nextAttemptAt !== null) {
        gaps.push(row!.nextAttemptAt - now);
        now = row!.nextAttemptAt;
      }
    }
    expect(gaps).toEqual([60_000, 300_000, 1_800_000, 7_200_000, 28_800_000, 86_400_000]);
    expect(received).toHaveLength(7);
    const [failed] = (await as(admin, `/t/webhooks/${hook.id}/deliveries?status=failed`)).body.data.deliveries;
    expect(failed).toMatchObject({ status: "failed", attempts: 7, response_status: null, response_excerpt: "timeout after 10 s", next_attempt_at: null });

    const again = await as(admin, `/t/webhooks/${hook.id}/deliveries/${failed.id}/redeliver`, { method: "POST" });
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ id: failed.id, status: "pending", attempts: 7 });
    const ok = receiver([204]);
    await deliverHooks(school.id, ok.fetch);
    expect(ok.received).toHaveLength(1);
    const [delivered] = (await as(admin, `/t/webhooks/${hook.id}/deliveries`)).body.data.deliveries;
    expect(delivered).toMatchObject({ id: failed.id, status: "delivered", attempts: 8, response_status: 204, response_excerpt: "" });
  });

  it("after a rotation both secrets sign for 24 hours, then only the new one", async () => {
    const { school, admin } = await schoolWithAdmin();
    const hook = await hookOf(admin);
    const rotated = (await as(admin, `/t/webhooks/${hook.id}/rotate-secret`, { method: "POST" })).body.data.secret as string;
    await testEvent(admin, hook.id);
    const { received, fetch } = receiver([200]);
    await deliverHooks(school.id, fetch);
    const [request] = received;
    expect(request!.headers["webhook-signature"]).toMatch(/^v1,\S+ v1,\S+$/);
    expect(new Verifier(rotated).verify(request!.body, request!.headers)).toMatchObject({ type: "webhook.test" });
    expect(new Verifier(hook.secret).verify(request!.body, request!.headers)).toMatchObject({ type: "webhook.test" });

    const expiresAt = (await webhookRow(hook.id))!.previousSecretExpiresAt!;
    await testEvent(admin, hook.id);
    await deliverAt(expiresAt - 1, school.id, fetch);
    expect(received[1]!.headers["webhook-signature"]).toMatch(/^v1,\S+ v1,\S+$/);
    await testEvent(admin, hook.id);
    await deliverAt(expiresAt, school.id, fetch);
    // Only the new secret signs now (the package's own signer agrees with the one signature sent).
    const last = received[2]!;
    expect(last.headers["webhook-signature"]).toBe(new Verifier(rotated).sign(last.headers["webhook-id"]!, new Date(Number(last.headers["webhook-timestamp"]) * 1000), last.body));
  });

  it("20 failed tries in a row disable the webhook and push webhook.disabled to the school's admins", async () => {
    const { school, admin } = await schoolWithAdmin();
    const other = await schoolWithAdmin();
    await addPushDevice(school.id, admin.id);
    const hook = await hookOf(admin);
    for (let i = 0; i < 20; i++) await testEvent(admin, hook.id);
    const { received, fetch } = receiver([503]);
    await deliverHooks(school.id, fetch);
    expect(received).toHaveLength(20);
    expect(await webhookRow(hook.id)).toMatchObject({ status: "disabled", consecutiveFailures: 20 });
    const pushes = (await outboxRows(school.id)).filter((row) => row.eventCode === "webhook.disabled");
    expect(pushes.map((row) => [row.userId, row.body])).toEqual([[admin.id, `Вебхук ${hook.url} не принял 20 доставок подряд и отключён.`]]);
    expect((await outboxRows(other.school.id)).filter((row) => row.eventCode === "webhook.disabled")).toEqual([]);

    // Disabled: nothing more is sent; re-enabled, the retries go out again.
    await testEvent(admin, hook.id);
    await deliverHooks(school.id, fetch);
    expect(received).toHaveLength(20);
    expect((await as(admin, `/t/webhooks/${hook.id}`, { method: "PATCH", body: { status: "active" } })).body.data).toMatchObject({ status: "active", consecutive_failures: 0 });
    await deliverAt(Date.now() + 120_000, school.id, fetch);
    expect(received).toHaveLength(41);
  });
});
