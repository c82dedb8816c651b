import { describe, expect, it } from "vitest";
import { DAY_MS, setClockForTests } from "../../src/core/lib/clock";
import { runCron, superadmin, superadminToken } from "../helpers/billing";
import { createSchool, createUser, login, schoolWithMembers } from "../helpers/factories";
import { api, failure } from "../helpers/http";

const get = (path: string, token: string, tenant: string) => api(path, { token, tenant });

describe("GET /t/billing/me", () => {
  it("gives a school admin the own dossier", async () => {
    const now = Date.now();
    setClockForTests({ now: () => now });
    const { school, admin } = await schoolWithMembers({ planState: "paid", timezone: "UTC", expiresAt: now + 30 * DAY_MS });
    const res = await get("/t/billing/me", admin.token, school.subdomain);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      tenant_id: school.id,
      tenant_status: "active",
      plan_state: "paid",
      expires_at: new Date(school.expiresAt!).toISOString(),
      days_remaining: 30,
      suspended_manually: false,
      current_tariff: null,
      payment_history: [],
    });
  });

  it("shows the school its payments without the platform's notes and operator; /admin keeps them", async () => {
    const now = Date.now();
    setClockForTests({ now: () => now });
    const operator = await superadmin();
    const { school, admin } = await schoolWithMembers({ planState: "trial", timezone: "UTC", expiresAt: now + DAY_MS });
    const paid = await api(`/admin/tenants/${school.id}/activate`, {
      token: operator.token,
      body: { days: 30, amount_cents: 500_00, title: "Custom", reference: "RCPT-7", notes: "discount agreed by phone" },
    });
    expect(paid.status).toBe(200);
    const { notes, created_by_user_id, ...schoolView } = paid.body.data;
    expect([notes, created_by_user_id]).toEqual(["discount agreed by phone", operator.id]);

    const own = await get("/t/billing/me", admin.token, school.subdomain);
    expect(own.status).toBe(200);
    expect(own.body.data.payment_history).toEqual([schoolView]);
    expect(schoolView).toMatchObject({ reference: "RCPT-7" });

    const dossier = await get(`/admin/tenants/${school.id}`, operator.token, "");
    expect(dossier.body.data.payment_history).toEqual([paid.body.data]);
  });

  it("documents the school's payment shape without notes and operator", async () => {
    const doc = (await api("/openapi.json")).body;
    const ref = doc.paths["/api/v1/t/billing/me"].get.responses["200"].content["application/json"].schema.properties.data.$ref as string;
    const dossier = doc.components.schemas[ref.split("/").pop()!];
    const payment = doc.components.schemas[(dossier.properties.payment_history.items.$ref as string).split("/").pop()!];
    expect(Object.keys(payment.properties)).toContain("reference");
    expect(Object.keys(payment.properties)).not.toContain("notes");
    expect(Object.keys(payment.properties)).not.toContain("created_by_user_id");
    expect(Object.keys(doc.components.schemas.Payment.properties)).toEqual(expect.arrayContaining(["notes", "created_by_user_id"]));
  });

  it("answers 403 forbidden to curators and students, 401 without a token", async () => {
    const { school, curator, student } = await schoolWithMembers();
    for (const token of [curator.token, student.token]) {
      const res = await get("/t/billing/me", token, school.subdomain);
      expect(res.status).toBe(403);
      expect(res.body.error).toBe("forbidden");
    }
    expect(failure(await api("/t/billing/me", { tenant: school.subdomain }))).toEqual({ status: 401, error: "unauthorized" });
  });

  it("stays open when the period ended (before and after the cron wrote it down)", async () => {
    const now = Date.now();
    const { school, admin } = await schoolWithMembers({ planState: "trial", expiresAt: now + 60_000 });
    setClockForTests({ now: () => now + 120_000 });
    const before = await get("/t/billing/me", admin.token, school.subdomain);
    expect(before.status).toBe(200);
    expect(before.body.data).toMatchObject({ plan_state: "suspended", suspended_manually: false, days_remaining: 0 });
    await runCron();
    const after = await get("/t/billing/me", admin.token, school.subdomain);
    expect(after.status).toBe(200);
    expect(after.body.data.plan_state).toBe("suspended");
  });

  it("is closed by a manual suspension (403 PAYMENT_REQUIRED) and opens again on unsuspend", async () => {
    const token = await superadminToken();
    const { school, admin } = await schoolWithMembers();
    await api(`/admin/tenants/${school.id}/suspend`, { token, body: { reason: "manual" } });
    const blocked = await get("/t/billing/me", admin.token, school.subdomain);
    expect(blocked.status).toBe(403);
    expect(blocked.body.error).toBe("PAYMENT_REQUIRED");
    await api(`/admin/tenants/${school.id}/unsuspend`, { token, method: "POST" });
    expect((await get("/t/billing/me", admin.token, school.subdomain)).status).toBe(200);
  });

  it("lets the superadmin read any school's dossier through the school header", async () => {
    const school = await createSchool({ planState: "suspended", suspendedManually: true });
    const res = await get("/t/billing/me", await superadminToken(), school.subdomain);
    expect(res.status).toBe(200);
    expect(res.body.data.tenant_id).toBe(school.id);
  });
});

describe("billing gate on /t/*", () => {
  it("blocks enforced routes from the moment of expires_at, without waiting for the cron", async () => {
    const now = Date.now();
    const { school, admin, student } = await schoolWithMembers({ planState: "paid", expiresAt: now + 60_000 });
    const patch = () => api("/t/tenant", { method: "PATCH", token: admin.token, tenant: school.subdomain, body: { hide_tests: true } });
    expect((await patch()).status).toBe(200);

    setClockForTests({ now: () => now + 60_000 });
    const blocked = await patch();
    expect(blocked.status).toBe(403);
    expect(blocked.body.error).toBe("PAYMENT_REQUIRED");
    // The whitelist stays open under expiry.
    expect((await get("/t/tenant", student.token, school.subdomain)).status).toBe(200);
    expect((await get("/t/billing/me", admin.token, school.subdomain)).status).toBe(200);
  });

  it("under a manual suspension keeps only the school read open", async () => {
    const token = await superadminToken();
    const { school, admin, curator } = await schoolWithMembers();
    await api(`/admin/tenants/${school.id}/suspend`, { token, method: "POST" });
    expect((await get("/t/tenant", admin.token, school.subdomain)).status).toBe(200);
    expect((await get("/t/tenant", curator.token, school.subdomain)).status).toBe(200);
    expect((await get("/t/billing/me", admin.token, school.subdomain)).body.error).toBe("PAYMENT_REQUIRED");
    const patch = await api("/t/tenant", { method: "PATCH", token: admin.token, tenant: school.subdomain, body: { title: "Blocked" } });
    expect(patch.body.error).toBe("PAYMENT_REQUIRED");
  });

  it("opens again right after activation", async () => {
    const token = await superadminToken();
    const school = await createSchool({ planState: "suspended", expiresAt: Date.now() - DAY_MS });
    const admin = await createUser(school.id, { role: "admin" });
    const adminToken = (await login(admin, { subdomain: school.subdomain })).token;
    const patch = () => api("/t/tenant", { method: "PATCH", token: adminToken, tenant: school.subdomain, body: { hide_tests: true } });
    expect((await patch()).body.error).toBe("PAYMENT_REQUIRED");
    await api(`/admin/tenants/${school.id}/activate`, { token, body: { days: 30, amount_cents: 10, title: "Renewal" } });
    expect((await patch()).status).toBe(200);
  });
});
