import { env } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { app } from "../../src/app";
import type { Env, PushMessage } from "../../src/core/env";
import { jobContext } from "../../src/contributors";
import { HOUR_MS, setClockForTests } from "../../src/core/lib/clock";
import { uuidv7 } from "../../src/core/lib/ids";
import { pushTokenBinding, pushTokenKeys, sealPushToken } from "../../src/platform/notifications/push-token-crypto";
import { sweepPushes } from "../../src/platform/notifications/sweep-job";
import { countingD1 } from "../helpers/d1-counter";
import { createSchool, createUser } from "../helpers/factories";
import { failure, readResponse, type ApiResponse } from "../helpers/http";
import { curatorWith, signedIn, type Member } from "../helpers/users";
import { addPushDevice, call, outboxRows, pushesFor, runPushQueue } from "./helpers";
import { fixtureD1, schoolD1 } from "../helpers/databases";
import { envWith } from "../helpers/wrapped-d1";

afterEach(() => setClockForTests(null));

const CAMPAIGNS = "/t/notifications/admin/campaigns";
const everyone = { match: "all", rules: [] };

/** A stand-in for the push queue binding: what the Worker sends is kept here and replayed by `drain`. */
function localQueue() {
  const messages: { body: PushMessage; delaySeconds?: number }[] = [];
  const binding = {
    send: async (body: PushMessage, options?: { delaySeconds?: number }) => void messages.push({ body, delaySeconds: options?.delaySeconds }),
    sendBatch: async (items: { body: PushMessage; delaySeconds?: number }[]) => void messages.push(...items),
  };
  return { messages, env: { ...env, PUSH_OUTBOX: binding } as unknown as Env };
}

/** Calls the app with another env (the local queue, a counting D1); `failure()` still matches the contract. */
async function appCall(who: { token: string; subdomain: string }, path: string, init: { method?: string; body?: unknown }, testEnv: Env): Promise<ApiResponse> {
  const method = init.method ?? (init.body === undefined ? "GET" : "POST");
  const response = await app.request(
    `https://api.lms.localhost/api/v1${path}`,
    {
      method,
      headers: { authorization: `Bearer ${who.token}`, "x-tenant-subdomain": who.subdomain, ...(init.body === undefined ? {} : { "content-type": "application/json" }) },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    },
    testEnv,
  );
  return readResponse(response, { method, path: `/api/v1${path}` });
}

/** Runs the queued messages through the Worker's consumer until none is left (delays skipped). */
async function drain(queue: ReturnType<typeof localQueue>, options: { fetch?: (input: string, init: RequestInit) => Promise<Response>; env?: Env; max?: number } = {}) {
  let runs = 0;
  const kinds: string[] = [];
  while (queue.messages.length > 0) {
    if (++runs > (options.max ?? 200)) throw new Error("the queue does not drain");
    const batch = queue.messages.splice(0, 10);
    kinds.push(...batch.map((message) => message.body.kind));
    await runPushQueue(
      batch.map((message, i) => ({ id: `m-${runs}-${i}`, timestamp: Date.now(), attempts: 1, body: message.body })),
      { env: options.env ?? queue.env, fetch: options.fetch },
    );
  }
  return kinds;
}

/**
 * Students written in one statement each (users, then devices), for audiences of thousands. Every
 * device shares one installation id, so one sealed token fits them all.
 */
async function bulkStudents(tenantId: string, count: number, options: { devices?: boolean } = {}) {
  const prefix = crypto.randomUUID().slice(0, 8);
  const now = Date.now();
  await fixtureD1.prepare(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
     INSERT INTO users (id, tenant_id, email, password_hash, first_name, last_name, role, is_active, created_at, updated_at)
     SELECT printf('%s-0000-7000-8000-%012d', ?, i), ?, printf('bulk.%s.%d@example.test', ?, i), 'x', 'Bulk', printf('Student %05d', i), 'student', 1, ?, ? FROM n`,
  )
    .bind(count, prefix, tenantId, prefix, now, now)
    .run();
  if (options.devices !== false) {
    const keys = (await pushTokenKeys(env.PUSH_TOKEN_KEY))!;
    const sealed = await sealPushToken(keys, `bulk-token-${prefix}`, pushTokenBinding(tenantId, "bulk-app"));
    await fixtureD1.prepare(
      `INSERT INTO push_devices (id, tenant_id, user_id, installation_id, provider, platform, token_ciphertext, token_hash, enabled, last_seen_at, created_at, updated_at)
       SELECT printf('%s-0000-7000-9000-%s', ?, substr(u.id, 25)), u.tenant_id, u.id, 'bulk-app', 'fcm', 'android', ?, ?, 1, ?, ?, ? FROM users u WHERE u.tenant_id = ? AND u.id LIKE ?`,
    )
      .bind(prefix, sealed.ciphertext, sealed.hash, now, now, now, tenantId, `${prefix}-0000-7000-8000-%`)
      .run();
  }
}

async function manager() {
  const school = await createSchool();
  const admin = await signedIn(school, { role: "admin" });
  return { school, admin };
}

async function campaign(tenantId: string, id: string) {
  const { results } = await fixtureD1.prepare("SELECT * FROM notification_campaigns WHERE id = ? AND tenant_id = ?").bind(id, tenantId).all<Record<string, unknown>>();
  return results[0]!;
}

const future = (ms: number) => new Date(Date.now() + ms).toISOString();

describe("POST /t/notifications/admin/campaigns", () => {
  it("creates a scheduled campaign with its frozen audience", async () => {
    const { school, admin } = await manager();
    await createUser(school.id, { role: "student" });
    await createUser(school.id, { role: "student" });
    const scheduledAt = future(2 * 24 * HOUR_MS);
    const res = await call(admin, CAMPAIGNS, { body: { title: "  Exam week  ", body: "Good luck!", deep_link: "/exams?tab=upcoming#week", filter: everyone, scheduled_at: scheduledAt } });
    expect(res.status).toBe(201);
    expect(res.body.data.campaign).toEqual({
      id: expect.any(String),
      status: "scheduled",
      title: "Exam week",
      body: "Good luck!",
      deep_link: "/exams?tab=upcoming#week",
      audience_filter: everyone,
      audience_count: 2,
      outbox_created_count: 0,
      sent_count: 0,
      failed_count: 0,
      scheduled_at: scheduledAt,
      started_at: null,
      completed_at: null,
      cancelled_at: null,
      created_by_user_id: admin.id,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    // Frozen: a student added later is not in it.
    await createUser(school.id, { role: "student" });
    expect((await call(admin, `${CAMPAIGNS}/${res.body.data.campaign.id}`)).body.data.campaign.audience_count).toBe(2);
  });

  it("400 notification_validation_failed for empty or oversize text, a past time and unsafe deep links", async () => {
    const { admin } = await manager();
    const valid = { title: "Hello", body: "Body", filter: everyone };
    const unsafeLinks = [
      "https://evil.example/phish",
      "//evil.example",
      "///evil.example",
      "/\\evil.example",
      "\\\\evil.example",
      "javascript:alert(1)",
      "data:text/html;base64,PHNjcmlwdD4=",
      "/%2f%2fevil.example",
      "/%5cevil.example",
      "/../../evil",
      "/courses/%2e%2e/admin",
      "/courses?next=%2F%2Fevil.example",
      "/ok\n/evil",
      " /courses",
      "/courses/@evil.example",
      "evil.example/courses",
      "http:evil.example",
      "/%09/evil.example",
      "",
      `/${"a".repeat(1000)}`,
    ];
    const bad: unknown[] = [
      { ...valid, title: "   " },
      { ...valid, title: "Ж".repeat(81) },
      { ...valid, body: "" },
      { ...valid, body: "ж".repeat(1001) },
      { ...valid, scheduled_at: new Date(Date.now() - 60_000).toISOString() },
      { ...valid, scheduled_at: "tomorrow" },
      { ...valid, title: 42 },
      { ...valid, unknown: true },
      ...unsafeLinks.map((deep_link) => ({ ...valid, deep_link })),
    ];
    for (const body of bad) {
      const res = await call(admin, CAMPAIGNS, { body });
      expect({ body, ...failure(res) }).toEqual({ body, status: 400, error: "notification_validation_failed" });
    }
    expect(unsafeLinks.length).toBeGreaterThanOrEqual(9);
    // Safe same-origin paths pass (sent far ahead, so nothing is queued).
    for (const deep_link of ["/courses/018f3c3e-0000-7000-8000-000000000001", "/lessons/abc_1-2.3?tab=notes&q=%D0%B0#top", "/", null]) {
      const res = await call(admin, CAMPAIGNS, { body: { ...valid, deep_link, scheduled_at: future(48 * HOUR_MS) } });
      expect({ deep_link, status: res.status }).toEqual({ deep_link, status: 201 });
    }
  });

  it("400 invalid_notification_audience for an invalid filter", async () => {
    const { admin } = await manager();
    for (const filter of [null, "all", { match: "all", rules: [{ field: "rank", operator: "lte", value: 0 }] }, { match: "all", rules: [{ field: "nope", operator: "eq" }] }]) {
      const res = await call(admin, CAMPAIGNS, { body: { title: "Hi", body: "There", filter } });
      expect({ filter, ...failure(res) }).toEqual({ filter, status: 400, error: "invalid_notification_audience" });
    }
    // A body without the key at all is an incomplete body.
    expect(failure(await call(admin, CAMPAIGNS, { body: { title: "Hi", body: "There" } }))).toEqual({ status: 400, error: "notification_validation_failed" });
  });

  it("a restricted curator's campaign reaches only their own students", async () => {
    const { school } = await manager();
    const curator = await signedIn(school, curatorWith({ can_manage_notifications: true }));
    const own = await createUser(school.id, { role: "student" });
    await createUser(school.id, { role: "student" });
    await fixtureD1.prepare("UPDATE users SET individual_curator_id = ? WHERE id = ?").bind(curator.id, own.id).run();
    const res = await call(curator, CAMPAIGNS, { body: { title: "Hi", body: "There", filter: everyone, scheduled_at: future(48 * HOUR_MS) } });
    expect(res.body.data.campaign.audience_count).toBe(1);
  });
});

describe("listing, reading and cancelling campaigns", () => {
  it("admins see every campaign of the school, curators only their own; 404 for others and unknown ids", async () => {
    const { school, admin } = await manager();
    const curator = await signedIn(school, curatorWith({ can_manage_notifications: true }));
    const body = { title: "Hi", body: "There", filter: everyone, scheduled_at: future(48 * HOUR_MS) };
    const byAdmin = (await call(admin, CAMPAIGNS, { body })).body.data.campaign;
    const byCurator = (await call(curator, CAMPAIGNS, { body })).body.data.campaign;
    const elsewhere = await manager();
    const foreign = (await call(elsewhere.admin, CAMPAIGNS, { body })).body.data.campaign;

    const all = await call(admin, `${CAMPAIGNS}?page=1&limit=1`);
    expect(all.body.data).toMatchObject({ total: 2, page: 1, limit: 1, campaigns: [{ id: byCurator.id }] });
    expect((await call(admin, `${CAMPAIGNS}?page=2&limit=1`)).body.data.campaigns.map((c: { id: string }) => c.id)).toEqual([byAdmin.id]);
    expect((await call(admin, `${CAMPAIGNS}?page=3&limit=1`)).body.data).toMatchObject({ total: 2, campaigns: [] });
    const mine = await call(curator, CAMPAIGNS);
    expect(mine.body.data).toMatchObject({ total: 1, campaigns: [{ id: byCurator.id }] });

    expect((await call(admin, `${CAMPAIGNS}/${byCurator.id}`)).body.data.campaign.id).toBe(byCurator.id);
    for (const [who, id] of [
      [curator, byAdmin.id],
      [admin, foreign.id],
      [admin, uuidv7()],
    ] as [Member, string][]) {
      const read = await call(who, `${CAMPAIGNS}/${id}`);
      expect({ id, ...failure(read) }).toEqual({ id, status: 404, error: "notification_campaign_not_found" });
      const cancel = await call(who, `${CAMPAIGNS}/${id}/cancel`, { body: {} });
      expect({ id, ...failure(cancel) }).toEqual({ id, status: 404, error: "notification_campaign_not_found" });
    }
  });

  it("cancels a scheduled campaign once; a finished campaign is 409 notification_campaign_immutable", async () => {
    const { admin } = await manager();
    const created = (await call(admin, CAMPAIGNS, { body: { title: "Hi", body: "There", filter: everyone, scheduled_at: future(48 * HOUR_MS) } })).body.data.campaign;
    const cancelled = await call(admin, `${CAMPAIGNS}/${created.id}/cancel`, { body: {} });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.data.campaign).toMatchObject({ id: created.id, status: "cancelled", cancelled_at: expect.any(String) });
    const again = await call(admin, `${CAMPAIGNS}/${created.id}/cancel`, { body: {} });
    expect(failure(again)).toEqual({ status: 409, error: "notification_campaign_immutable" });
  });
});

describe("campaign delivery", () => {
  it("fans out at scheduled_at through the queue, counts delivered and suppressed recipients, and completes", async () => {
    const { school, admin } = await manager();
    const reached = await createUser(school.id, { role: "student" });
    await addPushDevice(school.id, reached.id);
    const silenced = await createUser(school.id, { role: "student" });
    await addPushDevice(school.id, silenced.id);
    await fixtureD1.prepare("INSERT INTO push_preferences (tenant_id, user_id, push_enabled, updated_at) VALUES (?, ?, 0, ?)").bind(school.id, silenced.id, Date.now()).run();
    await createUser(school.id, { role: "student" }); // no device
    const queue = localQueue();
    const now = Date.now();
    setClockForTests({ now: () => now });
    const soon = 10 * 60_000; // within the access token's lifetime
    const res = await appCall(admin, CAMPAIGNS, { body: { title: "Exam week", body: "Good luck!", deep_link: "/exams", filter: everyone, scheduled_at: new Date(now + soon).toISOString() } }, queue.env);
    const id = res.body.data.campaign.id;
    expect(res.body.data.campaign.audience_count).toBe(3);
    expect(queue.messages).toEqual([{ body: { kind: "campaign", tenant_id: school.id, campaign_id: id }, delaySeconds: 600 }]);

    // Delivered early: the message comes back at scheduled_at and nothing starts.
    const early = await runPushQueue([{ id: "early", timestamp: now, attempts: 1, body: queue.messages[0]!.body }], { env: queue.env });
    expect(early.retryMessages).toEqual([{ msgId: "early" }]);
    expect(early.delays.get("early")).toBe(600);
    expect((await campaign(school.id, id)).status).toBe("scheduled");

    setClockForTests({ now: () => now + soon });
    expect(await drain(queue)).toEqual(["campaign", "push"]);
    const done = (await call(admin, `${CAMPAIGNS}/${id}`)).body.data.campaign;
    expect(done).toMatchObject({ status: "completed", audience_count: 3, outbox_created_count: 1, sent_count: 1, failed_count: 0, started_at: expect.any(String), completed_at: expect.any(String) });
    const [push] = await pushesFor(reached.id);
    expect(push).toMatchObject({ event_code: "campaign.message", title: "Exam week", body: "Good luck!", deep_link: "/exams", data: { event_code: "campaign.message", campaign_id: id } });
    expect(await pushesFor(silenced.id)).toEqual([]);
    const history = await call({ token: (await signedInAs(school, reached)).token, subdomain: school.subdomain }, "/t/notifications/me");
    const campaignPushes = history.body.data.notifications.filter((n: { event_code: string }) => n.event_code === "campaign.message");
    expect(campaignPushes).toMatchObject([{ event_code: "campaign.message", aggregate_type: "campaign", aggregate_id: id, deep_link: "/exams" }]);
  });

  it("fails when every deliverable recipient fails, and completes when nobody was deliverable", async () => {
    const { school, admin } = await manager();
    const student = await createUser(school.id, { role: "student" });
    await addPushDevice(school.id, student.id);
    const queue = localQueue();
    const res = await appCall(admin, CAMPAIGNS, { body: { title: "Hi", body: "There", filter: everyone } }, queue.env);
    await drain(queue, { env: { ...queue.env, PUSH_PROVIDER: "fcm" } as Env });
    expect((await campaign(school.id, res.body.data.campaign.id)).status).toBe("failed");
    expect((await call(admin, `${CAMPAIGNS}/${res.body.data.campaign.id}`)).body.data.campaign).toMatchObject({ status: "failed", outbox_created_count: 1, sent_count: 0, failed_count: 1 });

    const empty = await appCall(admin, CAMPAIGNS, { body: { title: "Hi", body: "There", filter: { match: "all", rules: [{ field: "has_device", operator: "eq", value: "false" }] } } }, queue.env);
    expect(empty.body.data.campaign.audience_count).toBe(0);
    await drain(queue);
    expect((await call(admin, `${CAMPAIGNS}/${empty.body.data.campaign.id}`)).body.data.campaign).toMatchObject({ status: "completed", outbox_created_count: 0, sent_count: 0 });
  });

  it("a campaign to 5,000 students is created in the same number of D1 statements as one to 5, and delivered in chunks", async () => {
    const small = await manager();
    await bulkStudents(small.school.id, 5);
    const big = await manager();
    await bulkStudents(big.school.id, 5000);

    const create = async (who: Member) => {
      const queue = localQueue();
      const counting = countingD1(await schoolD1(who.tenantId));
      const res = await appCall(who, CAMPAIGNS, { body: { title: "Big news", body: "For everyone", filter: everyone } }, envWith(counting.db, queue.env as Env));
      expect(res.status).toBe(201);
      return { campaign: res.body.data.campaign, counts: counting.counts, queue };
    };
    const few = await create(small.admin);
    const many = await create(big.admin);
    expect(few.campaign.audience_count).toBe(5);
    expect(many.campaign.audience_count).toBe(5000);
    expect(many.counts).toEqual(few.counts);
    // Authentication, then one batch (campaign, snapshot, count): a handful of statements in all.
    expect(many.counts.batch).toBe(1);
    expect(many.counts.prepare).toBeLessThanOrEqual(8);

    const kinds = await drain(many.queue);
    expect(kinds.filter((kind) => kind === "campaign")).toHaveLength(10); // 500 recipients per step
    const done = (await call(big.admin, `${CAMPAIGNS}/${many.campaign.id}`)).body.data.campaign;
    expect(done).toMatchObject({ status: "completed", audience_count: 5000, outbox_created_count: 5000, sent_count: 5000, failed_count: 0 });
    const { results } = await fixtureD1.prepare("SELECT count(*) AS n, count(DISTINCT user_id) AS users FROM notification_deliveries WHERE tenant_id = ? AND status = 'sent'")
      .bind(big.school.id)
      .all<{ n: number; users: number }>();
    expect(results[0]).toEqual({ n: 5000, users: 5000 });
  }, 180_000);

  it("cancel during processing: delivered pushes stay, everything not yet delivered is suppressed, and the fan-out stops", async () => {
    const { school, admin } = await manager();
    await bulkStudents(school.id, 1200);
    const queue = localQueue();
    const id = (await appCall(admin, CAMPAIGNS, { body: { title: "Long run", body: "Chunks", filter: everyone } }, queue.env)).body.data.campaign.id;

    // First chunk fanned out and delivered, second chunk fanned out but not delivered yet.
    const step = async (kind: "campaign" | "push") => {
      const index = queue.messages.findIndex((message) => message.body.kind === kind);
      const [message] = queue.messages.splice(index, 1);
      await runPushQueue([{ id: `${kind}-${Math.random()}`, timestamp: Date.now(), attempts: 1, body: message!.body }], { env: queue.env });
    };
    await step("campaign");
    await step("push");
    await step("campaign");
    expect((await campaign(school.id, id)).status).toBe("processing");

    const cancelled = await appCall(admin, `${CAMPAIGNS}/${id}/cancel`, { body: {} }, queue.env);
    expect(cancelled.body.data.campaign).toMatchObject({ status: "cancelled", outbox_created_count: 1000, sent_count: 500, cancelled_at: expect.any(String) });
    await drain(queue);

    const rows = (await outboxRows(school.id)).filter((row) => row.campaignId === id);
    const byStatus = Object.fromEntries(["sent", "suppressed", "pending"].map((status) => [status, rows.filter((row) => row.status === status).length]));
    expect(byStatus).toEqual({ sent: 500, suppressed: 500, pending: 0 });
    const { results } = await fixtureD1.prepare("SELECT status, count(*) AS n FROM notification_campaign_recipients WHERE campaign_id = ? GROUP BY status ORDER BY status")
      .bind(id)
      .all<{ status: string; n: number }>();
    expect(results).toEqual([
      { status: "queued", n: 1000 },
      { status: "suppressed", n: 200 },
    ]);
    expect(await campaign(school.id, id)).toMatchObject({ status: "cancelled", sent_count: 500, outbox_created_count: 1000 });
    const cancelAgain = await call(admin, `${CAMPAIGNS}/${id}/cancel`, { body: {} });
    expect(failure(cancelAgain)).toEqual({ status: 409, error: "notification_campaign_immutable" });
  }, 120_000);

  it("the cron starts campaigns whose time has come (also those too far ahead for a queue delay)", async () => {
    const { school, admin } = await manager();
    await createUser(school.id, { role: "student" });
    const queue = localQueue();
    const now = Date.now();
    const res = await appCall(admin, CAMPAIGNS, { body: { title: "Later", body: "Much later", filter: everyone, scheduled_at: new Date(now + 3 * 24 * HOUR_MS).toISOString() } }, queue.env);
    expect(queue.messages).toEqual([]);
    setClockForTests({ now: () => now + 3 * 24 * HOUR_MS + 1000 });
    await sweepPushes(jobContext(queue.env));
    expect(queue.messages.map((message) => message.body)).toContainEqual({ kind: "campaign", tenant_id: school.id, campaign_id: res.body.data.campaign.id });
    await drain(queue);
    expect((await campaign(school.id, res.body.data.campaign.id)).status).toBe("completed");
  });
});

async function signedInAs(school: { subdomain: string }, user: { email: string; password: string }) {
  const res = await readResponse(
    await app.request("https://api.lms.localhost/api/v1/auth/login", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: user.email, password: user.password, subdomain: school.subdomain, device_platform: "android" }),
    }, env),
    { method: "POST", path: "/api/v1/auth/login" },
  );
  return { token: res.body.data.token as string };
}
