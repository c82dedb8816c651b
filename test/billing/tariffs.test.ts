import { describe, expect, it } from "vitest";
import { uuidv7 } from "../../src/core/lib/ids";
import { createTariff, superadminToken } from "../helpers/billing";
import { schoolWithMembers } from "../helpers/factories";
import { api, failure } from "../helpers/http";

describe("POST /admin/tariffs", () => {
  it("creates a tariff with defaults", async () => {
    const token = await superadminToken();
    const res = await api("/admin/tariffs", { token, body: { title: " Basic ", duration_days: 30 } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      data: {
        id: expect.any(String),
        title: "Basic",
        description: null,
        price_cents: 0,
        duration_days: 30,
        is_active: true,
        sort_order: 0,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    });
  });

  it("answers 400 validation error for out-of-range fields", async () => {
    const token = await superadminToken();
    const bad = [
      { duration_days: 30 },
      { title: "", duration_days: 30 },
      { title: "x".repeat(256), duration_days: 30 },
      { title: "T", duration_days: 0 },
      { title: "T", duration_days: 1.5 },
      { title: "T", duration_days: 30, price_cents: -1 },
      { title: "T", duration_days: 30, description: "d".repeat(10_001) },
      { title: "T", duration_days: 30, is_active: "yes" },
      { title: "T", duration_days: 30, sort_order: 1.2 },
    ];
    for (const body of bad) {
      const res = await api("/admin/tariffs", { token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe("validation error");
    }
  });

  it("answers 401 without a token and 403 forbidden to a school admin", async () => {
    const { admin } = await schoolWithMembers();
    expect(failure(await api("/admin/tariffs", { body: { title: "T", duration_days: 1 } }))).toEqual({ status: 401, error: "unauthorized" });
    const res = await api("/admin/tariffs", { token: admin.token, body: { title: "T", duration_days: 1 } });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe("forbidden");
    expect((await api("/admin/tariffs", { token: admin.token })).body.error).toBe("forbidden");
  });
});

describe("GET /admin/tariffs", () => {
  it("lists in sort order; active=true hides inactive ones; deleted ones never show", async () => {
    const token = await superadminToken();
    const marker = `m${Date.now()}`;
    const late = await createTariff(token, { title: `${marker} late`, sort_order: 1_000_001 });
    const early = await createTariff(token, { title: `${marker} early`, sort_order: 1_000_000 });
    const inactive = await createTariff(token, { title: `${marker} inactive`, sort_order: 1_000_002, is_active: false });
    const gone = await createTariff(token, { title: `${marker} gone`, sort_order: 1_000_003 });
    await api(`/admin/tariffs/${gone.id}`, { method: "DELETE", token });

    const mine = (list: { id: string }[]) => list.map((t) => t.id).filter((id) => [late.id, early.id, inactive.id, gone.id].includes(id));
    const all = await api("/admin/tariffs", { token });
    expect(all.status).toBe(200);
    expect(mine(all.body.data)).toEqual([early.id, late.id, inactive.id]);
    const active = await api("/admin/tariffs?active=true", { token });
    expect(mine(active.body.data)).toEqual([early.id, late.id]);
    expect(mine((await api("/admin/tariffs?active=false", { token })).body.data)).toEqual([early.id, late.id, inactive.id]);
    const bad = await api("/admin/tariffs?active=maybe", { token });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe("validation error");
  });
});

describe("PATCH /admin/tariffs/:id", () => {
  it("changes only the fields sent and can clear the description", async () => {
    const token = await superadminToken();
    const tariff = await createTariff(token, { description: "old", price_cents: 500 });
    const res = await api(`/admin/tariffs/${tariff.id}`, { method: "PATCH", token, body: { title: "Renamed", is_active: false, description: null } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: tariff.id, title: "Renamed", is_active: false, description: null, price_cents: 500, duration_days: 30 });
  });

  it("answers 400 invalid id format, 400 validation error and 404 tariff not found", async () => {
    const token = await superadminToken();
    const badId = await api("/admin/tariffs/nope", { method: "PATCH", token, body: {} });
    expect(badId.status).toBe(400);
    expect(badId.body.error).toBe("invalid id format");
    const tariff = await createTariff(token);
    const badBody = await api(`/admin/tariffs/${tariff.id}`, { method: "PATCH", token, body: { duration_days: -3 } });
    expect(badBody.body.error).toBe("validation error");
    const missing = await api(`/admin/tariffs/${uuidv7()}`, { method: "PATCH", token, body: { title: "X" } });
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe("tariff not found");
  });
});

describe("DELETE /admin/tariffs/:id", () => {
  it("soft-deletes once, then answers 404 tariff not found", async () => {
    const token = await superadminToken();
    const tariff = await createTariff(token);
    const res = await api(`/admin/tariffs/${tariff.id}`, { method: "DELETE", token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { deleted: true } });
    for (const call of [
      api(`/admin/tariffs/${tariff.id}`, { method: "DELETE", token }),
      api(`/admin/tariffs/${tariff.id}`, { method: "PATCH", token, body: { title: "Back" } }),
    ]) {
      const again = await call;
      expect(again.status).toBe(404);
      expect(again.body.error).toBe("tariff not found");
    }
    expect((await api("/admin/tariffs/xyz", { method: "DELETE", token })).body.error).toBe("invalid id format");
  });
});

describe("GET /admin/tariffs item shape", () => {
  it("lists full tariff objects, as created", async () => {
    const token = await superadminToken();
    const created = await api("/admin/tariffs", {
      token,
      body: { title: `Shape ${Date.now()}`, description: "all fields", price_cents: 12_345, duration_days: 90, is_active: true, sort_order: 7 },
    });
    expect(created.status).toBe(201);
    const res = await api("/admin/tariffs", { token });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(Array.isArray(res.body.data)).toBe(true);
    expect(res.body.data.find((t: { id: string }) => t.id === created.body.data.id)).toEqual({
      id: created.body.data.id,
      title: created.body.data.title,
      description: "all fields",
      price_cents: 12_345,
      duration_days: 90,
      is_active: true,
      sort_order: 7,
      created_at: created.body.data.created_at,
      updated_at: created.body.data.updated_at,
    });
  });
});
