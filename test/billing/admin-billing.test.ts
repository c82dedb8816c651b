import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../src/db/schema";
import { DAY_MS, setClockForTests } from "../../src/core/lib/clock";
import { uuidv7 } from "../../src/core/lib/ids";
import { createTariff, superadmin, superadminToken, tenantRow } from "../helpers/billing";
import { createSchool, db, schoolWithMembers } from "../helpers/factories";
import { api, failure } from "../helpers/http";

describe("GET /admin/tenants", () => {
  it("lists schools with their billing state, filtered, searched, sorted and paged", async () => {
    const now = Date.now();
    setClockForTests({ now: () => now });
    const token = await superadminToken();
    const tag = `q${now.toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
    const mk = async (suffix: string, options: Parameters<typeof createSchool>[0], title: string) => {
      const school = await createSchool(options);
      await db()
        .update(schema.tenants)
        .set({ subdomain: `${tag}${suffix}`, slug: `${tag}${suffix}`, title })
        .where(eq(schema.tenants.id, school.id));
      return school.id;
    };
    const trial = await mk("a", { planState: "trial", expiresAt: now + 3 * DAY_MS }, "Charlie");
    const paid = await mk("b", { planState: "paid", expiresAt: now + 40 * DAY_MS }, "alpha");
    const expired = await mk("c", { planState: "paid", expiresAt: now - DAY_MS }, "Bravo");
    const manual = await mk("d", { planState: "suspended", suspendedManually: true, expiresAt: now + 10 * DAY_MS }, "Delta");
    const gone = await mk("e", { planState: "paid" }, "Echo");
    await db().update(schema.tenants).set({ deletedAt: now }).where(eq(schema.tenants.id, gone));

    const list = await api(`/admin/tenants?search=${tag}`, { token });
    expect(list.status).toBe(200);
    expect(list.body.data).toMatchObject({ total: 4, limit: 50, offset: 0 });
    expect(list.body.data.items.map((row: { tenant_id: string }) => row.tenant_id)).toEqual([expired, trial, manual, paid]);
    expect(list.body.data.items[1]).toEqual({
      tenant_id: trial,
      tenant_status: "active",
      plan_state: "trial",
      expires_at: new Date(now + 3 * DAY_MS).toISOString(),
      days_remaining: 3,
      title: "Charlie",
      subdomain: `${tag}a`,
      suspended_manually: false,
      current_tariff_id: null,
      created_at: expect.any(String),
    });
    expect(list.body.data.items[0]).toMatchObject({ plan_state: "suspended", days_remaining: 0 });

    const ids = async (query: string) =>
      (await api(`/admin/tenants?search=${tag}&${query}`, { token })).body.data.items.map((row: { tenant_id: string }) => row.tenant_id);
    expect(await ids("plan_state=suspended")).toEqual([expired, manual]);
    expect(await ids("plan_state=paid")).toEqual([paid]);
    expect(await ids("plan_state=trial")).toEqual([trial]);
    expect(await ids("plan_state=")).toHaveLength(4);
    expect(await ids("sort_by=title")).toEqual([paid, expired, trial, manual]);
    expect(await ids("sort_by=expires_at&sort_dir=desc")).toEqual([paid, manual, trial, expired]);
    expect(await ids("sort_by=title&sort_dir=desc&limit=2&offset=1")).toEqual([trial, expired]);
    const bySubdomain = await api(`/admin/tenants?search=${tag.toUpperCase()}D`, { token });
    expect(bySubdomain.body.data.items.map((row: { tenant_id: string }) => row.tenant_id)).toEqual([manual]);
    expect((await api(`/admin/tenants?search=${tag}%25`, { token })).body.data.total).toBe(0);
  });

  it("answers 400 invalid_params for bad query values and 403 forbidden to school admins", async () => {
    const token = await superadminToken();
    for (const query of ["plan_state=gold", "sort_by=price", "sort_dir=up", "limit=0", "limit=201", "offset=-1"]) {
      const res = await api(`/admin/tenants?${query}`, { token });
      expect(res.status, query).toBe(400);
      expect(res.body.error).toBe("invalid_params");
    }
    const { admin } = await schoolWithMembers();
    const res = await api("/admin/tenants", { token: admin.token });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe("forbidden");
    expect(failure(await api("/admin/tenants"))).toEqual({ status: 401, error: "unauthorized" });
  });
});

describe("GET /admin/tenants/:id", () => {
  it("returns the billing dossier with the current tariff and payment history", async () => {
    const now = Date.now();
    setClockForTests({ now: () => now });
    const token = await superadminToken();
    const tariff = await createTariff(token, { title: "Dossier plan", duration_days: 30 });
    const school = await createSchool({ planState: "trial", expiresAt: now + DAY_MS, timezone: "UTC" });
    const first = await api(`/admin/tenants/${school.id}/activate`, { token, body: { tariff_id: tariff.id, periods: 1 } });
    setClockForTests({ now: () => now + 1000 });
    const second = await api(`/admin/tenants/${school.id}/extend`, { token, body: { days: 5 } });

    const res = await api(`/admin/tenants/${school.id}`, { token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: {
        tenant_id: school.id,
        tenant_status: "active",
        plan_state: "paid",
        expires_at: new Date(now + 36 * DAY_MS).toISOString(),
        days_remaining: 36,
        suspended_manually: false,
        current_tariff: { ...tariff, created_at: expect.any(String), updated_at: expect.any(String) },
        payment_history: [second.body.data, first.body.data],
      },
    });
  });

  it("answers 400 invalid id format and 404 tenant not found", async () => {
    const token = await superadminToken();
    expect((await api("/admin/tenants/abc", { token })).body.error).toBe("invalid id format");
    const missing = await api(`/admin/tenants/${uuidv7()}`, { token });
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe("tenant not found");
  });
});

describe("GET /admin/tenants/:id/payments", () => {
  it("pages newest first: default 50, maximum 200", async () => {
    const token = await superadminToken();
    const school = await createSchool();
    const base = Date.now();
    const rows = Array.from({ length: 205 }, (_, i) => ({
      id: uuidv7(base + i),
      tenantId: school.id,
      amountCents: i,
      currency: "UZS",
      days: 1,
      method: "cash",
      appliedExpiresAt: base,
      createdAt: base + i,
    }));
    // D1 binds at most 100 parameters per statement.
    const inserts = [];
    for (let i = 0; i < rows.length; i += 7) inserts.push(db().insert(schema.payments).values(rows.slice(i, i + 7)));
    await db().batch(inserts as [(typeof inserts)[number], ...(typeof inserts)[number][]]);

    const first = await api(`/admin/tenants/${school.id}/payments`, { token });
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ limit: 50, offset: 0 });
    expect(first.body.data.items).toHaveLength(50);
    expect(first.body.data.items[0]).toMatchObject({ tenant_id: school.id, amount_cents: 204, currency: "UZS", tariff_id: null });

    const max = await api(`/admin/tenants/${school.id}/payments?limit=200&offset=3`, { token });
    expect(max.body.data.items).toHaveLength(200);
    expect(max.body.data.items[0].amount_cents).toBe(201);
    expect(max.body.data).toMatchObject({ limit: 200, offset: 3 });

    const tail = await api(`/admin/tenants/${school.id}/payments?limit=200&offset=200`, { token });
    expect(tail.body.data.items.map((p: { amount_cents: number }) => p.amount_cents)).toEqual([4, 3, 2, 1, 0]);

    for (const query of ["limit=201", "limit=0", "offset=-1", "limit=abc"]) {
      const res = await api(`/admin/tenants/${school.id}/payments?${query}`, { token });
      expect(res.status, query).toBe(400);
      expect(res.body.error).toBe("invalid_params");
    }
  });

  it("answers 400 invalid id format and 404 tenant not found, never another school's rows", async () => {
    const token = await superadminToken();
    expect(failure(await api("/admin/tenants/zz/payments", { token }))).toEqual({ status: 400, error: "invalid id format" });
    const missing = await api(`/admin/tenants/${uuidv7()}/payments`, { token });
    expect(failure(missing)).toEqual({ status: 404, error: "tenant not found" });

    const quiet = await createSchool({ planState: "trial" });
    const busy = await createSchool({ planState: "trial" });
    const quietBefore = await tenantRow(quiet.id);
    const paid = await api(`/admin/tenants/${busy.id}/activate`, { token, body: { days: 3, amount_cents: 3, title: "Other" } });
    expect(paid.status).toBe(200);
    expect(paid.body.data.tenant_id).toBe(busy.id);
    // The payment exists and is the busy school's alone.
    expect((await api(`/admin/tenants/${busy.id}/payments`, { token })).body.data.items).toEqual([paid.body.data]);
    expect((await api(`/admin/tenants/${quiet.id}/payments`, { token })).body.data.items).toEqual([]);
    expect((await api(`/admin/tenants/${quiet.id}`, { token })).body.data.payment_history).toEqual([]);

    // Activating or extending a school that does not exist touches no other school either.
    for (const [verb, body] of [["activate", { days: 3, amount_cents: 3, title: "Nobody" }], ["extend", { days: 3 }]] as const) {
      const res = await api(`/admin/tenants/${uuidv7()}/${verb}`, { token, body });
      expect({ verb, ...failure(res) }).toEqual({ verb, status: 404, error: "tenant not found" });
    }
    expect(await tenantRow(quiet.id)).toEqual(quietBefore);
    expect((await api(`/admin/tenants/${quiet.id}/payments`, { token })).body.data.items).toEqual([]);
    expect((await api(`/admin/tenants/${busy.id}/payments`, { token })).body.data.items).toEqual([paid.body.data]);
  });
});

describe("POST /admin/tenants/:id/extend", () => {
  it("moves the expiry from the current one, copies the tariff snapshot and records the payment", async () => {
    const now = Date.now();
    setClockForTests({ now: () => now });
    const operator = await superadmin();
    const tariff = await createTariff(operator.token, { title: "Extendable", duration_days: 30 });
    const school = await createSchool({ planState: "trial", expiresAt: now - DAY_MS });
    await api(`/admin/tenants/${school.id}/activate`, { token: operator.token, body: { tariff_id: tariff.id, periods: 1 } });
    setClockForTests({ now: () => now + 1 });

    const res = await api(`/admin/tenants/${school.id}/extend`, {
      token: operator.token,
      body: { days: 15, amount_cents: 99_00, reference: "EXT-9", notes: "two weeks more", method: "bank_transfer" },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      id: expect.any(String),
      tenant_id: school.id,
      tariff_id: tariff.id,
      tariff_title_snapshot: "Extendable",
      amount_cents: 99_00,
      currency: "UZS",
      days: 15,
      method: "bank_transfer",
      reference: "EXT-9",
      notes: "two weeks more",
      applied_expires_at: new Date(now + 45 * DAY_MS).toISOString(),
      created_by_user_id: operator.id,
      created_at: new Date(now + 1).toISOString(),
    });
    expect(await tenantRow(school.id)).toMatchObject({ planState: "paid", expiresAt: now + 45 * DAY_MS });
  });

  it("starts from now after an ended period and makes the school paid; a manual suspension stays", async () => {
    const now = Date.now();
    setClockForTests({ now: () => now });
    const token = await superadminToken();
    const ended = await createSchool({ planState: "suspended", expiresAt: now - 5 * DAY_MS });
    const res = await api(`/admin/tenants/${ended.id}/extend`, { token, body: { days: 7 } });
    expect(res.body.data).toMatchObject({ amount_cents: 0, tariff_id: null, tariff_title_snapshot: null, applied_expires_at: new Date(now + 7 * DAY_MS).toISOString() });
    expect((await tenantRow(ended.id)).planState).toBe("paid");

    const manual = await createSchool({ planState: "suspended", suspendedManually: true, expiresAt: now + DAY_MS });
    await api(`/admin/tenants/${manual.id}/extend`, { token, body: { days: 7 } });
    expect(await tenantRow(manual.id)).toMatchObject({ planState: "suspended", suspendedManually: true, expiresAt: now + 8 * DAY_MS });
  });

  it("answers 400 validation error, 400 invalid id format, 404 tenant not found, 403", async () => {
    const token = await superadminToken();
    const school = await createSchool();
    for (const body of [{}, { days: 0 }, { days: 3651 }, { days: 5, amount_cents: -1 }, { days: 5, reference: "r".repeat(65) }]) {
      const res = await api(`/admin/tenants/${school.id}/extend`, { token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe("validation error");
    }
    expect((await api("/admin/tenants/x/extend", { token, body: { days: 1 } })).body.error).toBe("invalid id format");
    const missing = await api(`/admin/tenants/${uuidv7()}/extend`, { token, body: { days: 1 } });
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe("tenant not found");
    const { admin } = await schoolWithMembers();
    expect((await api(`/admin/tenants/${school.id}/extend`, { token: admin.token, body: { days: 1 } })).body.error).toBe("forbidden");
  });
});

describe("POST /admin/tenants/:id/suspend and /unsuspend", () => {
  it("suspends manually, then unsuspend restores paid for a school that paid", async () => {
    const token = await superadminToken();
    const school = await createSchool({ planState: "trial" });
    await api(`/admin/tenants/${school.id}/activate`, { token, body: { days: 30, amount_cents: 1, title: "P" } });

    const res = await api(`/admin/tenants/${school.id}/suspend`, { token, body: { reason: "chargeback" } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { suspended: true } });
    expect(await tenantRow(school.id)).toMatchObject({ planState: "suspended", suspendedManually: true, suspendReason: "chargeback" });

    const lifted = await api(`/admin/tenants/${school.id}/unsuspend`, { token, method: "POST" });
    expect(lifted.status).toBe(200);
    expect(lifted.body).toEqual({ success: true, data: { unsuspended: true } });
    expect(await tenantRow(school.id)).toMatchObject({ planState: "paid", suspendedManually: false, suspendReason: null, suspendedAt: null });

    const again = await api(`/admin/tenants/${school.id}/unsuspend`, { token, method: "POST" });
    expect(again.body.data).toEqual({ unsuspended: false });
  });

  it("suspends without a body; unsuspend restores trial for a school that never paid, and keeps an ended period blocked", async () => {
    const now = Date.now();
    setClockForTests({ now: () => now });
    const token = await superadminToken();
    const trial = await createSchool({ planState: "trial", expiresAt: now + 5 * DAY_MS });
    expect((await api(`/admin/tenants/${trial.id}/suspend`, { token, method: "POST" })).body.data).toEqual({ suspended: true });
    expect((await tenantRow(trial.id)).suspendReason).toBeNull();
    await api(`/admin/tenants/${trial.id}/unsuspend`, { token, method: "POST" });
    expect((await tenantRow(trial.id)).planState).toBe("trial");

    const ending = await createSchool({ planState: "paid", expiresAt: now + DAY_MS });
    await api(`/admin/tenants/${ending.id}/suspend`, { token, body: {} });
    setClockForTests({ now: () => now + 2 * DAY_MS });
    const later = await superadminToken();
    expect((await api(`/admin/tenants/${ending.id}/unsuspend`, { token: later, method: "POST" })).body.data).toEqual({ unsuspended: true });
    expect(await tenantRow(ending.id)).toMatchObject({ planState: "suspended", suspendedManually: false });
  });

  it("keeps the first suspension time when suspended twice", async () => {
    const now = Date.now();
    setClockForTests({ now: () => now });
    const token = await superadminToken();
    const school = await createSchool();
    await api(`/admin/tenants/${school.id}/suspend`, { token, body: { reason: "one" } });
    setClockForTests({ now: () => now + 5000 });
    await api(`/admin/tenants/${school.id}/suspend`, { token, body: { reason: "two" } });
    expect(await tenantRow(school.id)).toMatchObject({ suspendedAt: now, suspendReason: "two" });
  });

  it("answer 400 invalid id format, 400 validation error, 404 tenant not found, 403 forbidden", async () => {
    const token = await superadminToken();
    for (const verb of ["suspend", "unsuspend"]) {
      expect((await api(`/admin/tenants/bad/${verb}`, { token, method: "POST" })).body.error).toBe("invalid id format");
      const missing = await api(`/admin/tenants/${uuidv7()}/${verb}`, { token, method: "POST" });
      expect(missing.status).toBe(404);
      expect(missing.body.error).toBe("tenant not found");
    }
    const school = await createSchool();
    const tooLong = await api(`/admin/tenants/${school.id}/suspend`, { token, body: { reason: "r".repeat(10_001) } });
    expect(tooLong.body.error).toBe("validation error");
    const { admin } = await schoolWithMembers();
    for (const verb of ["suspend", "unsuspend"]) {
      const res = await api(`/admin/tenants/${school.id}/${verb}`, { token: admin.token, method: "POST" });
      expect(res.status).toBe(403);
      expect(res.body.error).toBe("forbidden");
    }
    const rows = await db().select().from(schema.tenants).where(and(eq(schema.tenants.id, school.id), eq(schema.tenants.suspendedManually, true)));
    expect(rows).toHaveLength(0);
  });
});

describe("POST /admin/tenants/:id/extend limits at their boundaries", () => {
  it("accepts days 1 and 3650 and refuses 0 and 3651 with 400 validation error", async () => {
    const now = Date.now();
    setClockForTests({ now: () => now });
    const token = await superadminToken();
    for (const days of [1, 3650]) {
      const school = await createSchool({ planState: "paid", expiresAt: now - DAY_MS });
      const res = await api(`/admin/tenants/${school.id}/extend`, { token, body: { days } });
      expect({ days, status: res.status }).toEqual({ days, status: 200 });
      expect(res.body.data).toMatchObject({ tenant_id: school.id, days, applied_expires_at: new Date(now + days * DAY_MS).toISOString() });
    }
    const school = await createSchool({ planState: "paid", expiresAt: now + DAY_MS });
    for (const days of [0, 3651]) {
      const res = await api(`/admin/tenants/${school.id}/extend`, { token, body: { days } });
      expect({ days, status: res.status, error: res.body.error }).toEqual({ days, status: 400, error: "validation error" });
    }
    expect((await tenantRow(school.id)).expiresAt).toBe(now + DAY_MS);
  });
});

describe("GET /admin/tenants/:id/payments page shape", () => {
  it("answers {items, limit, offset} with full payment rows; limit 1 is the smallest page", async () => {
    const now = Date.now();
    setClockForTests({ now: () => now });
    const token = await superadminToken();
    const school = await createSchool({ planState: "trial" });
    const first = await api(`/admin/tenants/${school.id}/activate`, { token, body: { days: 3, amount_cents: 300, title: "First", reference: "R-1", notes: "n" } });
    setClockForTests({ now: () => now + 1000 });
    const second = await api(`/admin/tenants/${school.id}/extend`, { token, body: { days: 2 } });
    expect([first.status, second.status]).toEqual([200, 200]);

    const all = await api(`/admin/tenants/${school.id}/payments`, { token });
    expect(all.status).toBe(200);
    expect(all.body).toEqual({ success: true, data: { items: [second.body.data, first.body.data], limit: 50, offset: 0 } });

    const one = await api(`/admin/tenants/${school.id}/payments?limit=1&offset=1`, { token });
    expect(one.status).toBe(200);
    expect(one.body.data).toEqual({ items: [first.body.data], limit: 1, offset: 1 });
  });
});

describe("billing actions on a deleted school", () => {
  it("answer 404 tenant not found: a deleted school disappears from every billing endpoint", async () => {
    const token = await superadminToken();
    const tariff = await createTariff(token);
    const school = await createSchool({ planState: "trial" });
    expect((await api(`/admin/tenants/${school.id}`, { method: "DELETE", token })).status).toBe(200);
    const calls: [string, string, unknown][] = [
      ["GET", `/admin/tenants/${school.id}/payments`, undefined],
      ["POST", `/admin/tenants/${school.id}/activate`, { tariff_id: tariff.id, periods: 1 }],
      ["POST", `/admin/tenants/${school.id}/activate`, { days: 5, amount_cents: 0, title: "Gone" }],
      ["POST", `/admin/tenants/${school.id}/extend`, { days: 5 }],
      ["POST", `/admin/tenants/${school.id}/suspend`, {}],
      ["POST", `/admin/tenants/${school.id}/unsuspend`, undefined],
    ];
    for (const [method, path, body] of calls) {
      const res = await api(path, { method, token, body });
      expect({ method, path, status: res.status, error: res.body.error }).toEqual({ method, path, status: 404, error: "tenant not found" });
    }
    const list = await api(`/admin/tenants?search=${school.subdomain}`, { token });
    expect(list.body.data.items).toEqual([]);
    expect(await tenantRow(school.id)).toMatchObject({ planState: "trial", suspendedManually: false });
  });
});
