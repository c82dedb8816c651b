import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api } from "../helpers/http";
import { createSchool, createUser, login } from "../helpers/factories";

describe("security headers", () => {
  it("every response carries nosniff, DENY framing, no referrer and a load-nothing content policy", async () => {
    const responses = [await api("/health"), await api("/auth/me"), await api("/no/such/route"), await api("/t/users", { tenant: "nosuchschool" })];
    for (const res of responses) {
      expect({
        nosniff: res.headers.get("x-content-type-options"),
        frame: res.headers.get("x-frame-options"),
        referrer: res.headers.get("referrer-policy"),
        csp: res.headers.get("content-security-policy"),
      }).toEqual({
        nosniff: "nosniff",
        frame: "DENY",
        referrer: "no-referrer",
        csp: "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
      });
    }
  });

  it("sends Strict-Transport-Security over https only", async () => {
    const https = await SELF.fetch("https://api.lms.localhost/api/v1/health");
    const http = await SELF.fetch("http://api.lms.localhost/api/v1/health");
    expect(https.headers.get("strict-transport-security")).toBe("max-age=31536000; includeSubDomains");
    expect(http.headers.get("strict-transport-security")).toBeNull();
  });

  it("marks auth responses and responses with personal data no-store; the health probe stays cacheable", async () => {
    const school = await createSchool();
    const user = await createUser(school.id, { role: "admin" });
    const loginRes = await api("/auth/login", { body: { email: user.email, password: user.password, subdomain: school.subdomain } });
    expect(loginRes.status).toBe(200);
    const session = await login(user, { subdomain: school.subdomain });
    const cases = [
      loginRes,
      await api("/auth/me", { token: session.token }),
      await api("/auth/refresh", { body: { refresh_token: "nope" } }),
      await api("/t/users", { token: session.token, tenant: school.subdomain }),
      await api("/t/me/profile", { token: session.token, tenant: school.subdomain }),
    ];
    for (const res of cases) expect({ path: res.request.path, cache: res.headers.get("cache-control") }).toEqual({ path: res.request.path, cache: "no-store" });
    expect((await api("/health")).headers.get("cache-control")).toBeNull();
  });
});
