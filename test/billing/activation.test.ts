import { describe, expect, it } from "vitest";
import { DAY_MS, setClockForTests } from "../../src/core/lib/clock";
import { uuidv7 } from "../../src/core/lib/ids";
import { createTariff, superadmin, superadminToken, tenantRow } from "../helpers/billing";
import { createSchool, schoolWithMembers } from "../helpers/factories";
import { api, failure } from "../helpers/http";

const activate = (token: string, tenantId: string, body: unknown) => api(`/admin/tenants/${tenantId}/activate`, { token, body });

describe("POST /admin/tenants/:id/activate by tariff", () => {
  it("adds tariff × periods after a trial that is still running and records the payment", async () => {
    const now = Date.now();
    setClockForTests({ now: () => now });
    const operator = await superadmin();
    const tariff = await createTariff(operator.token, { title: "Standard", price_cents: 250_000_00, duration_days: 30 });
    const school = await createSchool({ planState: "trial", expiresAt: now + 5 * DAY_MS });

    const res = await activate(operator.token, school.id, { tariff_id: tariff.id, periods: 2, reference: "INV-1", notes: "paid at the office" });
    expect(res.status).toBe(200);
    const expiresAt = now + 5 * DAY_MS + 60 * DAY_MS;
    expect(res.body).toEqual({
      success: true,
      data: {
        id: expect.any(String),
        tenant_id: school.id,
        tariff_id: tariff.id,
        tariff_title_snapshot: "Standard",
        amount_cents: 500_000_00,
        currency: "UZS",
        days: 60,
        method: "cash",
        reference: "INV-1",
        notes: "paid at the office",
        applied_expires_at: new Date(expiresAt).toISOString(),
        created_by_user_id: operator.id,
        created_at: new Date(now).toISOString(),
      },
    });
    const row = await tenantRow(school.id);
    expect(row).toMatchObject({ planState: "paid", expiresAt, currentTariffId: tariff.id, suspendedManually: false });
  });

  it("keeps the tariff title snapshot after the tariff is renamed and deleted", async () => {
    const token = await superadminToken();
    const tariff = await createTariff(token, { title: "Gold" });
    const school = await createSchool({ planState: "trial" });
    const activated = await activate(token, school.id, { tariff_id: tariff.id, periods: 1 });
    expect(activated.status).toBe(200);
    expect(activated.body.data.tariff_title_snapshot).toBe("Gold");

    // The rename must land, or the snapshot below would equal the live title and prove nothing.
    const renamed = await api(`/admin/tariffs/${tariff.id}`, { method: "PATCH", token, body: { title: "Platinum" } });
    expect([renamed.status, renamed.body.data.title]).toEqual([200, "Platinum"]);
    const payments = await api(`/admin/tenants/${school.id}/payments`, { token });
    expect(payments.body.data.items).toEqual([activated.body.data]);
    const dossierWhileLive = await api(`/admin/tenants/${school.id}`, { token });
    expect(dossierWhileLive.body.data.current_tariff).toMatchObject({ id: tariff.id, title: "Platinum" });
    expect(dossierWhileLive.body.data.payment_history).toEqual([activated.body.data]);

    expect((await api(`/admin/tariffs/${tariff.id}`, { method: "DELETE", token })).status).toBe(200);
    expect((await api(`/admin/tenants/${school.id}/payments`, { token })).body.data.items).toEqual([activated.body.data]);
    const dossier = await api(`/admin/tenants/${school.id}`, { token });
    expect(dossier.body.data.current_tariff).toBeNull();
    expect(dossier.body.data.payment_history).toEqual([activated.body.data]);
  });

  it("answers 400 tariff is inactive and 404 tariff not found (unknown or deleted)", async () => {
    const token = await superadminToken();
    const school = await createSchool({ planState: "trial" });
    const inactive = await createTariff(token, { is_active: false });
    const res = await activate(token, school.id, { tariff_id: inactive.id, periods: 1 });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("tariff is inactive");

    const deleted = await createTariff(token);
    await api(`/admin/tariffs/${deleted.id}`, { method: "DELETE", token });
    for (const tariffId of [uuidv7(), deleted.id]) {
      const missing = await activate(token, school.id, { tariff_id: tariffId, periods: 1 });
      expect(failure(missing)).toEqual({ status: 404, error: "tariff not found" });
    }
    expect((await tenantRow(school.id)).planState).toBe("trial");
  });
});

describe("POST /admin/tenants/:id/activate free-form", () => {
  it("starts from now after an ended period, lifts a manual suspension and activates a pending school", async () => {
    const now = Date.now();
    setClockForTests({ now: () => now });
    const token = await superadminToken();
    const school = await createSchool({ status: "pending", planState: "suspended", suspendedManually: true, expiresAt: now - 3 * DAY_MS });
    const res = await activate(token, school.id, { days: 10, amount_cents: 0, title: "Goodwill month" });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      tariff_id: null,
      tariff_title_snapshot: "Goodwill month",
      amount_cents: 0,
      days: 10,
      currency: "UZS",
      applied_expires_at: new Date(now + 10 * DAY_MS).toISOString(),
    });
    const row = await tenantRow(school.id);
    expect(row).toMatchObject({ status: "active", planState: "paid", suspendedManually: false, suspendReason: null, currentTariffId: null, expiresAt: now + 10 * DAY_MS });
  });

  it("replaces the current tariff with none", async () => {
    const token = await superadminToken();
    const tariff = await createTariff(token);
    const school = await createSchool({ planState: "trial" });
    await activate(token, school.id, { tariff_id: tariff.id, periods: 1 });
    expect((await tenantRow(school.id)).currentTariffId).toBe(tariff.id);
    await activate(token, school.id, { days: 5, amount_cents: 100, title: "Custom" });
    expect((await tenantRow(school.id)).currentTariffId).toBeNull();
  });

  it("accepts a payment method from the list", async () => {
    const token = await superadminToken();
    const school = await createSchool({ planState: "trial" });
    const res = await activate(token, school.id, { days: 30, amount_cents: 1, title: "Card", method: "card" });
    expect(res.body.data.method).toBe("card");
  });
});

describe("POST /admin/tenants/:id/activate errors", () => {
  it("answers 400 invalid activation payload for mixed, partial, empty or out-of-range forms", async () => {
    const token = await superadminToken();
    const school = await createSchool({ planState: "trial" });
    const tariffId = uuidv7();
    const bad: unknown[] = [
      {},
      { reference: "only meta" },
      { tariff_id: tariffId, periods: 1, days: 30 },
      { tariff_id: tariffId, periods: 1, days: 30, amount_cents: 0, title: "Both" },
      { tariff_id: tariffId, title: "Mixed" },
      { periods: 1, amount_cents: 10 },
      { tariff_id: tariffId },
      { periods: 2 },
      { days: 30, amount_cents: 0 },
      { days: 30, title: "No amount" },
      { tariff_id: tariffId, periods: 0 },
      { tariff_id: tariffId, periods: 25 },
      { tariff_id: "not-a-uuid", periods: 1 },
      { days: 0, amount_cents: 0, title: "Zero" },
      { days: 3651, amount_cents: 0, title: "Too long" },
      { days: 30, amount_cents: -1, title: "Negative" },
      { days: 30, amount_cents: 0, title: "" },
      { days: 30, amount_cents: 0, title: "x".repeat(256) },
      { days: 30, amount_cents: 0, title: "Ref", reference: "r".repeat(65) },
      { days: 30, amount_cents: 0, title: "Notes", notes: "n".repeat(10_001) },
      { days: 30, amount_cents: 0, title: "Method", method: "barter" },
    ];
    for (const body of bad) {
      const res = await activate(token, school.id, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe("invalid activation payload");
    }
    const malformed = await api(`/admin/tenants/${school.id}/activate`, { token, raw: "not json" });
    expect(malformed.body.error).toBe("invalid activation payload");
    expect((await tenantRow(school.id)).planState).toBe("trial");
  });

  it("answers 400 invalid id format, 404 tenant not found, 401 and 403", async () => {
    const token = await superadminToken();
    const body = { days: 30, amount_cents: 0, title: "X" };
    const badId = await activate(token, "12", body);
    expect(badId.status).toBe(400);
    expect(badId.body.error).toBe("invalid id format");
    const missing = await activate(token, uuidv7(), body);
    expect(failure(missing)).toEqual({ status: 404, error: "tenant not found" });
    const tariff = await createTariff(token);
    const missingByTariff = await activate(token, uuidv7(), { tariff_id: tariff.id, periods: 1 });
    expect(failure(missingByTariff)).toEqual({ status: 404, error: "tenant not found" });

    const { school, admin } = await schoolWithMembers({ planState: "trial" });
    const before = await tenantRow(school.id);
    expect(failure(await api(`/admin/tenants/${school.id}/activate`, { body }))).toEqual({ status: 401, error: "unauthorized" });
    const forbidden = await activate(admin.token, school.id, body);
    expect(failure(forbidden)).toEqual({ status: 403, error: "forbidden" });
    // A school admin cannot pay for their own school: nothing changed.
    expect(await tenantRow(school.id)).toEqual(before);
  });
});

describe("POST /admin/tenants/:id/activate limits at their boundaries", () => {
  it("accepts periods 1 and 24 (days and amount multiply by the periods)", async () => {
    const now = Date.now();
    setClockForTests({ now: () => now });
    const token = await superadminToken();
    const tariff = await createTariff(token, { title: "Boundary plan", price_cents: 1_000, duration_days: 30 });
    for (const periods of [1, 24]) {
      const school = await createSchool({ planState: "trial", expiresAt: now - DAY_MS });
      const res = await activate(token, school.id, { tariff_id: tariff.id, periods });
      expect({ periods, status: res.status }).toEqual({ periods, status: 200 });
      expect(res.body.data).toMatchObject({
        tariff_id: tariff.id,
        days: 30 * periods,
        amount_cents: 1_000 * periods,
        applied_expires_at: new Date(now + 30 * periods * DAY_MS).toISOString(),
      });
    }
  });

  it("accepts free-form days 1 and 3650", async () => {
    const now = Date.now();
    setClockForTests({ now: () => now });
    const token = await superadminToken();
    for (const days of [1, 3650]) {
      const school = await createSchool({ planState: "trial", expiresAt: now - DAY_MS });
      const res = await activate(token, school.id, { days, amount_cents: 0, title: `Free ${days}` });
      expect({ days, status: res.status }).toEqual({ days, status: 200 });
      expect(res.body.data).toMatchObject({ tariff_id: null, days, applied_expires_at: new Date(now + days * DAY_MS).toISOString() });
      expect((await tenantRow(school.id)).expiresAt).toBe(now + days * DAY_MS);
    }
  });
});
