import { describe, expect, it } from "vitest";
import { api } from "../helpers/http";

describe("OpenAPI document", () => {
  it("documents the school and billing routes, the create operation once (without the trailing slash)", async () => {
    const res = await api("/openapi.json");
    expect(res.status).toBe(200);
    const paths = res.body.paths as Record<string, Record<string, unknown>>;
    expect(paths["/api/v1/admin/tenants/"]).toBeUndefined();
    expect(Object.keys(paths["/api/v1/admin/tenants"]!).sort()).toEqual(["get", "post"]);
    for (const path of ["/public/tenant", "/t/tenant", "/t/billing/me", "/admin/tariffs/{id}", "/admin/tenants/{id}/activate", "/admin/tenants/{id}/payments"]) {
      expect(paths[`/api/v1${path}`], path).toBeDefined();
    }
  });
});
