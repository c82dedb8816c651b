import { describe, expect, it } from "vitest";
import { uuidv7 } from "../../src/core/lib/ids";
import { createTariff, superadminToken } from "../helpers/billing";
import { createSchool } from "../helpers/factories";
import { api, failure } from "../helpers/http";
import { schoolWithAdmin, as } from "../helpers/users";

/**
 * Every listed failure of the contract's school endpoints (public branding, /t/tenant) and of the
 * superadmin's schools, tariffs and billing (the gate's are in the gate matrix).
 */

describe("school endpoints failures", () => {
  it("GET /public/tenant: 400 subdomain_required and 404 tenant_not_found", async () => {
    expect(failure(await api("/public/tenant"))).toEqual({ status: 400, error: "subdomain_required" });
    expect(failure(await api("/public/tenant?subdomain=nosuchschoolanywhere"))).toEqual({ status: 404, error: "tenant_not_found" });
  });

  it("PATCH /t/tenant: 400 validation error", async () => {
    const { admin } = await schoolWithAdmin();
    expect(failure(await as(admin, "/t/tenant", { method: "PATCH", body: { color_scheme: "red" } }))).toEqual({ status: 400, error: "validation error" });
  });
});

describe("/admin/tenants failures", () => {
  it("POST /admin/tenants/: 400 slug or subdomain already taken", async () => {
    const token = await superadminToken();
    const existing = await createSchool();
    const res = await api("/admin/tenants/", { token, body: { title: "Another school", slug: existing.slug, subdomain: `${existing.subdomain}x` } });
    expect(failure(res)).toEqual({ status: 400, error: "slug or subdomain already taken" });
  });

  for (const method of ["GET", "PUT", "DELETE"]) {
    it(`${method} /admin/tenants/:id: 400 invalid id format and 404 tenant not found`, async () => {
      const token = await superadminToken();
      const body = method === "PUT" ? { title: "Renamed school" } : undefined;
      expect(failure(await api("/admin/tenants/not-a-uuid", { method, token, body }))).toEqual({ status: 400, error: "invalid id format" });
      expect(failure(await api(`/admin/tenants/${uuidv7()}`, { method, token, body }))).toEqual({ status: 404, error: "tenant not found" });
    });
  }
});

describe("/admin/tariffs failures", () => {
  it("POST /admin/tariffs: 400 validation error", async () => {
    const token = await superadminToken();
    expect(failure(await api("/admin/tariffs", { token, body: { title: "No duration" } }))).toEqual({ status: 400, error: "validation error" });
  });

  for (const method of ["PATCH", "DELETE"]) {
    it(`${method} /admin/tariffs/:id: 400 invalid id format and 404 tariff not found`, async () => {
      const token = await superadminToken();
      const body = method === "PATCH" ? { title: "Renamed plan" } : undefined;
      expect(failure(await api("/admin/tariffs/not-a-uuid", { method, token, body }))).toEqual({ status: 400, error: "invalid id format" });
      expect(failure(await api(`/admin/tariffs/${uuidv7()}`, { method, token, body }))).toEqual({ status: 404, error: "tariff not found" });
    });
  }
});

describe("school billing failures", () => {
  it("POST /admin/tenants/:id/activate: 400 invalid id format, invalid activation payload and tariff is inactive; 404 tariff not found and tenant not found", async () => {
    const token = await superadminToken();
    const school = await createSchool();
    const inactive = await createTariff(token, { is_active: false });
    const activate = (id: string, body: unknown) => api(`/admin/tenants/${id}/activate`, { token, body });
    const freeForm = { days: 10, amount_cents: 0, title: "Goodwill" };
    expect(failure(await activate("not-a-uuid", freeForm))).toEqual({ status: 400, error: "invalid id format" });
    expect(failure(await activate(school.id, {}))).toEqual({ status: 400, error: "invalid activation payload" });
    expect(failure(await activate(school.id, { tariff_id: inactive.id, periods: 1 }))).toEqual({ status: 400, error: "tariff is inactive" });
    expect(failure(await activate(school.id, { tariff_id: uuidv7(), periods: 1 }))).toEqual({ status: 404, error: "tariff not found" });
    expect(failure(await activate(uuidv7(), freeForm))).toEqual({ status: 404, error: "tenant not found" });
  });

  it("POST /admin/tenants/:id/extend: 400 invalid id format and 404 tenant not found", async () => {
    const token = await superadminToken();
    const extend = (id: string) => api(`/admin/tenants/${id}/extend`, { token, body: { days: 10 } });
    expect(failure(await extend("not-a-uuid"))).toEqual({ status: 400, error: "invalid id format" });
    expect(failure(await extend(uuidv7()))).toEqual({ status: 404, error: "tenant not found" });
  });
});
