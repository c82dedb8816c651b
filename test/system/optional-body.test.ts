import { describe, expect, it } from "vitest";
import { routeRegistry } from "../../src/core/http/route";
import { createSchool, createUser, login } from "../helpers/factories";
import { api } from "../helpers/http";

describe("optional JSON bodies", () => {
  it("declares which routes take one", () => {
    const optional = routeRegistry.filter((route) => route.optionalBody).map((route) => `${route.method} ${route.path}`);
    expect(optional).toEqual(expect.arrayContaining(["POST /api/v1/auth/refresh", "POST /api/v1/auth/logout"]));
  });

  it("reads an empty body or null sent as JSON like {}", async () => {
    const school = await createSchool();
    for (const raw of ["", "null", "  "]) {
      const res = await api("/auth/refresh", { raw, headers: { "content-type": "application/json" } });
      expect({ raw, status: res.status, error: res.body.error }).toEqual({ raw, status: 400, error: "refresh_token_required" });
    }
    const superadmin = await createUser(null, { role: "superadmin" });
    const platform = await login(superadmin, { subdomain: "" });
    const suspend = await api(`/admin/tenants/${school.id}/suspend`, { method: "POST", raw: "", token: platform.token, headers: { "content-type": "application/json" } });
    expect(suspend.status).toBe(200);
    expect(suspend.body.data).toEqual({ suspended: true });
    expect((await api("/auth/refresh", { raw: "{bad", headers: { "content-type": "application/json" } })).body.error).toBe("invalid_request_body");
  });
});
