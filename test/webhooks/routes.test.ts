import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import * as schema from "../../src/db/schema";
import { db } from "../helpers/databases";
import { failure } from "../helpers/http";
import { as, schoolWithAdmin, unknownId } from "../helpers/users";
import { createHook, deliveryRows, hookBody, hookOf, webhookRow } from "./helpers";

/** The webhook routes of 05 section 5: every identifier. */

describe("webhook routes", () => {
  it("creates a webhook with its secret shown once, lists and reads it without, and stores the secret sealed", async () => {
    const { school, admin } = await schoolWithAdmin();
    const res = await createHook(admin, hookBody({ events: ["course.completed", "enrollment.created", "course.completed"] }));
    expect(res.status).toBe(201);
    const created = res.body.data;
    expect(created).toEqual({
      id: expect.any(String),
      url: "https://crm.example.com/hooks/lms",
      events: ["course.completed", "enrollment.created"],
      description: "CRM",
      status: "active",
      consecutive_failures: 0,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const { secret, ...shown } = created;
    expect((await as(admin, `/t/webhooks/${created.id}`)).body.data).toEqual(shown);
    expect((await as(admin, "/t/webhooks")).body.data).toEqual({ webhooks: [shown] });
    const row = await webhookRow(created.id);
    expect(row!.tenantId).toBe(school.id);
    expect(row!.secretCiphertext).toMatch(/^w1\./);
    expect(row!.secretCiphertext).not.toContain(secret.slice(6, 20));
    // "*" stands for every event.
    expect((await createHook(admin, hookBody({ events: ["*", "user.created"], description: null }))).body.data).toMatchObject({ events: ["*"], description: null });
  });

  it("refuses bad bodies, URLs outside the policy and unknown events", async () => {
    const { admin } = await schoolWithAdmin();
    expect(failure(await createHook(admin, { url: "https://crm.example.com/x" }))).toEqual({ status: 400, error: "invalid_request_body" });
    expect(failure(await createHook(admin, hookBody({ events: [] })))).toEqual({ status: 400, error: "invalid_request_body" });
    expect(failure(await createHook(admin, hookBody({ description: "d".repeat(201) })))).toEqual({ status: 400, error: "invalid_request_body" });
    for (const url of ["http://crm.example.com/x", "https://10.0.0.1/x", "https://192.168.1.1/", "https://169.254.169.254/", "https://[fd00::1]/", "https://intranet.local/x", "https://user:pw@crm.example.com/", "ftp://crm.example.com/"]) {
      expect(failure(await createHook(admin, hookBody({ url })))).toEqual({ status: 400, error: "invalid_webhook_url" });
    }
    expect(failure(await createHook(admin, hookBody({ events: ["enrollment.created", "grade.changed"] })))).toEqual({ status: 400, error: "unknown_webhook_event" });
    // Loopback is allowed where the deployment says so (the tests' bindings do, like local development).
    expect((await createHook(admin, hookBody({ url: "http://127.0.0.1:9999/hook" }))).status).toBe(201);
    expect((await createHook(admin, hookBody({ url: "http://localhost:9999/hook" }))).status).toBe(201);
  });

  it("allows at most 10 webhooks per school", async () => {
    const { admin } = await schoolWithAdmin();
    for (let i = 0; i < 10; i++) await hookOf(admin, { description: `hook ${i}` });
    expect(failure(await createHook(admin, hookBody()))).toEqual({ status: 409, error: "webhook_limit_reached" });
    expect((await as(admin, "/t/webhooks")).body.data.webhooks).toHaveLength(10);
  });

  it("answers 404 webhook_not_found for an unknown or another school's webhook on every route", async () => {
    const { admin } = await schoolWithAdmin();
    const other = await schoolWithAdmin();
    const foreign = await hookOf(other.admin);
    for (const id of [unknownId(), foreign.id]) {
      expect(failure(await as(admin, `/t/webhooks/${id}`))).toEqual({ status: 404, error: "webhook_not_found" });
      expect(failure(await as(admin, `/t/webhooks/${id}`, { method: "PATCH", body: { description: "x" } }))).toEqual({ status: 404, error: "webhook_not_found" });
      expect(failure(await as(admin, `/t/webhooks/${id}`, { method: "DELETE" }))).toEqual({ status: 404, error: "webhook_not_found" });
      expect(failure(await as(admin, `/t/webhooks/${id}/rotate-secret`, { method: "POST" }))).toEqual({ status: 404, error: "webhook_not_found" });
      expect(failure(await as(admin, `/t/webhooks/${id}/test`, { method: "POST" }))).toEqual({ status: 404, error: "webhook_not_found" });
      expect(failure(await as(admin, `/t/webhooks/${id}/deliveries`))).toEqual({ status: 404, error: "webhook_not_found" });
      expect(failure(await as(admin, `/t/webhooks/${id}/deliveries/${unknownId()}/redeliver`, { method: "POST" }))).toEqual({ status: 404, error: "webhook_not_found" });
    }
    expect((await webhookRow(foreign.id))!.description).toBe("CRM");
  });

  it("updates url, events, description and status; re-enabling resets the failure count; each change audited", async () => {
    const { school, admin } = await schoolWithAdmin();
    const hook = await hookOf(admin);
    expect(failure(await as(admin, `/t/webhooks/${hook.id}`, { method: "PATCH", body: { url: "https://10.1.1.1/" } }))).toEqual({ status: 400, error: "invalid_webhook_url" });
    expect(failure(await as(admin, `/t/webhooks/${hook.id}`, { method: "PATCH", body: { events: ["nope"] } }))).toEqual({ status: 400, error: "unknown_webhook_event" });
    expect(failure(await as(admin, `/t/webhooks/${hook.id}`, { method: "PATCH", body: { status: "paused" } }))).toEqual({ status: 400, error: "invalid_request_body" });
    const changed = await as(admin, `/t/webhooks/${hook.id}`, { method: "PATCH", body: { url: "https://hr.example.org/in", events: ["user.created"], description: null, status: "disabled" } });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({ url: "https://hr.example.org/in", events: ["user.created"], description: null, status: "disabled" });
    await db().update(schema.webhooks).set({ consecutiveFailures: 20 }).where(eq(schema.webhooks.id, hook.id));
    const enabled = await as(admin, `/t/webhooks/${hook.id}`, { method: "PATCH", body: { status: "active" } });
    expect(enabled.body.data).toMatchObject({ status: "active", consecutive_failures: 0 });
    const entries = await db().select().from(schema.auditEntries).where(eq(schema.auditEntries.tenantId, school.id));
    expect(entries.map((entry) => [entry.action, entry.targetId, entry.changes]).sort((a, b) => String(a[2]).length - String(b[2]).length)).toEqual(
      expect.arrayContaining([
        ["webhook.created", hook.id, { url: [null, "https://crm.example.com/hooks/lms"], events: [null, ["enrollment.created"]], description: [null, "CRM"], status: [null, "active"] }],
        [
          "webhook.updated",
          hook.id,
          { url: ["https://crm.example.com/hooks/lms", "https://hr.example.org/in"], events: [["enrollment.created"], ["user.created"]], description: ["CRM", null], status: ["active", "disabled"] },
        ],
        ["webhook.updated", hook.id, { status: ["disabled", "active"] }],
      ]),
    );
    expect(entries).toHaveLength(3);
  });

  it("rotates the secret (audited, new secret shown once) and deletes a webhook with its deliveries", async () => {
    const { school, admin } = await schoolWithAdmin();
    const hook = await hookOf(admin);
    const rotated = await as(admin, `/t/webhooks/${hook.id}/rotate-secret`, { method: "POST" });
    expect(rotated.status).toBe(200);
    expect(rotated.body.data).toEqual({ secret: expect.stringMatching(/^whsec_/) });
    expect(rotated.body.data.secret).not.toBe(hook.secret);
    const row = await webhookRow(hook.id);
    expect(row!.previousSecretExpiresAt! - row!.updatedAt).toBeLessThanOrEqual(86_400_000);
    expect(row!.previousSecretExpiresAt! - row!.updatedAt).toBeGreaterThan(86_399_000);

    const test = await as(admin, `/t/webhooks/${hook.id}/test`, { method: "POST" });
    expect(test.status).toBe(200);
    expect(test.body.data).toEqual({
      id: expect.any(String),
      event_id: expect.any(String),
      type: "webhook.test",
      status: "pending",
      attempts: 0,
      response_status: null,
      duration_ms: null,
      response_excerpt: null,
      next_attempt_at: expect.any(String),
      created_at: expect.any(String),
      delivered_at: null,
    });
    expect((await as(admin, `/t/webhooks/${hook.id}/deliveries`)).body.data).toEqual({ deliveries: [test.body.data], total: 1, page: 1, limit: 20 });
    expect(failure(await as(admin, `/t/webhooks/${hook.id}/deliveries?status=lost`))).toEqual({ status: 400, error: "invalid_params" });
    expect(failure(await as(admin, `/t/webhooks/${hook.id}/deliveries?limit=101`))).toEqual({ status: 400, error: "invalid_params" });
    expect(failure(await as(admin, `/t/webhooks/${hook.id}/deliveries/${unknownId()}/redeliver`, { method: "POST" }))).toEqual({ status: 404, error: "webhook_delivery_not_found" });

    expect((await as(admin, `/t/webhooks/${hook.id}`, { method: "DELETE" })).status).toBe(204);
    expect(await deliveryRows(hook.id)).toEqual([]);
    expect(failure(await as(admin, `/t/webhooks/${hook.id}`))).toEqual({ status: 404, error: "webhook_not_found" });
    const actions = (await db().select().from(schema.auditEntries).where(eq(schema.auditEntries.tenantId, school.id))).map((entry) => entry.action).sort();
    expect(actions).toEqual(["webhook.created", "webhook.deleted", "webhook.secret_rotated"]);
  });
});
