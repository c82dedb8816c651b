import { SELF } from "cloudflare:test";
import createClient from "openapi-fetch";
import { describe, expect, it } from "vitest";
import { createSchool, createUser } from "../helpers/factories";
import type { paths } from "./openapi.generated";

/**
 * A client generated from the served document (openapi-typescript, by `npm run openapi` before
 * typecheck and test) compiles against it and talks to the Worker: the document is usable by
 * generated clients, not just readable.
 */
describe("typed client generated from the OpenAPI document", () => {
  const client = createClient<paths>({ baseUrl: "https://api.lms.localhost", fetch: (request) => SELF.fetch(request) });

  it("calls a public route and a school route with the documented header", async () => {
    const health = await client.GET("/api/v1/health");
    expect(health.data).toEqual({ success: true, data: { status: "ok" } });

    const school = await createSchool();
    const admin = await createUser(school.id, { role: "admin" });
    const login = await client.POST("/api/v1/auth/login", {
      body: { email: admin.email, password: admin.password, subdomain: school.subdomain, device_platform: "android", device_name: "typed client" },
    });
    expect(login.response.status).toBe(200);
    const token = login.data!.data.token;
    const tenant = await client.GET("/api/v1/t/tenant", {
      params: { header: { "X-Tenant-Subdomain": school.subdomain } },
      headers: { authorization: `Bearer ${token}` },
    });
    expect(tenant.response.status).toBe(200);
    expect(tenant.data!.data.subdomain).toBe(school.subdomain);
  });
});
