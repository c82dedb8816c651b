import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ApiError, createLmsClient, failureOf, memoryStorage, unwrap, type ErrorIdentifier, type TokenSet, type TokenStorage } from "../../clients/typescript/src";
import { setClockForTests } from "../../src/core/lib/clock";
import { BROWSER_ORIGIN } from "../helpers/auth";
import { createSchool, createUser } from "../helpers/factories";
import { unknownId } from "../helpers/users";

const BASE = "https://api.lms.localhost";
const ACCESS_EXPIRED = 16 * 60_000;

/** The Worker as the client's fetch, recording what went out and what came back. */
function recordingFetch(before?: (request: Request) => Promise<void>) {
  const sent: { call: string; headers: Headers; status: number; bookmark: string | null }[] = [];
  const fetch = async (request: Request) => {
    await before?.(request);
    const headers = new Headers(request.headers);
    const response = await SELF.fetch(request);
    sent.push({ call: `${request.method} ${new URL(request.url).pathname}`, headers, status: response.status, bookmark: response.headers.get("x-d1-bookmark") });
    return response;
  };
  const calls = (call: string) => sent.filter((entry) => entry.call === call).map((entry) => entry.status);
  return { fetch, sent, calls };
}

/**
 * A browser around `fetch`: an allowed Origin, and a cookie jar for the HttpOnly refresh cookie
 * (sent to /api/v1/auth/*, its path).
 */
function inBrowser(jar: Map<string, string>, fetch: (request: Request) => Promise<Response>) {
  return async (request: Request) => {
    const headers = new Headers(request.headers);
    headers.set("origin", BROWSER_ORIGIN.origin);
    if (new URL(request.url).pathname.startsWith("/api/v1/auth/") && jar.size > 0) headers.set("cookie", [...jar].map(([name, value]) => `${name}=${value}`).join("; "));
    const response = await fetch(new Request(request, { headers }));
    for (const cookie of response.headers.getSetCookie()) {
      const [pair = "", ...attributes] = cookie.split(";");
      const [name = "", value = ""] = pair.split("=");
      if (value === "" || attributes.some((attribute) => /^\s*max-age=0$/i.test(attribute))) jar.delete(name);
      else jar.set(name, value);
    }
    return response;
  };
}

async function schoolAdmin() {
  const school = await createSchool();
  const admin = await createUser(school.id, { role: "admin" });
  return { school, admin };
}

describe("the TypeScript client against the Worker", () => {
  it("signs in with the school's subdomain, keeps the tokens and calls a school route with the tenant header and bearer", async () => {
    const { school, admin } = await schoolAdmin();
    const wire = recordingFetch();
    const lms = createLmsClient({ baseUrl: BASE, tenant: school.subdomain, fetch: wire.fetch });

    const session = await lms.signIn({ email: admin.email, password: admin.password, device_platform: "android" });
    expect(session.user).toEqual({ id: admin.id, email: admin.email, role: "admin", first_name: admin.firstName, last_name: admin.lastName });
    const tokens = await lms.tokens();
    expect(tokens).toEqual({ token: session.token, refresh_token: session.refresh_token, session_id: session.session_id, auth_device_id: session.auth_device_id });

    const tenant = unwrap(await lms.GET("/api/v1/t/tenant"));
    expect(tenant.subdomain).toBe(school.subdomain);
    const call = wire.sent.find((entry) => entry.call === "GET /api/v1/t/tenant")!;
    expect(call.headers.get("x-tenant-subdomain")).toBe(school.subdomain);
    expect(call.headers.get("authorization")).toBe(`Bearer ${session.token}`);
    expect(wire.sent.map((entry) => entry.call)).toEqual(["POST /api/v1/auth/login", "GET /api/v1/t/tenant"]);
  });

  it("names the school by host when told to, with no tenant header", async () => {
    const { school, admin } = await schoolAdmin();
    const wire = recordingFetch();
    const lms = createLmsClient({ baseUrl: `https://${school.subdomain}.lms.localhost`, tenant: school.subdomain, tenantVia: "host", fetch: wire.fetch });
    await lms.signIn({ email: admin.email, password: admin.password });
    expect(unwrap(await lms.GET("/api/v1/t/tenant")).subdomain).toBe(school.subdomain);
    expect(wire.sent.find((entry) => entry.call === "GET /api/v1/t/tenant")!.headers.has("x-tenant-subdomain")).toBe(false);
  });

  it("refreshes an expired access token exactly once for ten concurrent calls, and retries each call once", async () => {
    const { school, admin } = await schoolAdmin();
    const wire = recordingFetch();
    const lms = createLmsClient({ baseUrl: BASE, tenant: school.subdomain, fetch: wire.fetch });
    const first = await lms.signIn({ email: admin.email, password: admin.password });
    const later = Date.now() + ACCESS_EXPIRED;
    setClockForTests({ now: () => later });

    const results = await Promise.all(Array.from({ length: 10 }, () => lms.GET("/api/v1/t/tenant")));

    expect(results.map((result) => result.response.status)).toEqual(Array(10).fill(200));
    expect(wire.calls("POST /api/v1/auth/refresh")).toEqual([200]);
    const tenantCalls = wire.calls("GET /api/v1/t/tenant");
    expect(tenantCalls.filter((status) => status === 401)).toHaveLength(10);
    expect(tenantCalls.filter((status) => status === 200)).toHaveLength(10);
    const renewed = (await lms.tokens())!;
    expect(renewed.token).not.toBe(first.token);
    expect(renewed.refresh_token).not.toBe(first.refresh_token);
    expect({ session_id: renewed.session_id, auth_device_id: renewed.auth_device_id }).toEqual({ session_id: first.session_id, auth_device_id: first.auth_device_id });
    // The rotated refresh token is the one the next refresh needs: it works once more.
    const next = await SELF.fetch(`${BASE}/api/v1/auth/refresh`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ refresh_token: renewed.refresh_token }) });
    expect(next.status).toBe(200);
  });

  it("in a browser refreshes with the session selectors and the refresh cookie, once for concurrent calls, and signs out", async () => {
    const { school, admin } = await schoolAdmin();
    const jar = new Map<string, string>();
    const wire = recordingFetch();
    const browserFetch = inBrowser(jar, wire.fetch);
    const lms = createLmsClient({ baseUrl: BASE, tenant: school.subdomain, fetch: browserFetch });
    const session = await lms.signIn({ email: admin.email, password: admin.password });
    expect(session.refresh_token).toBeUndefined();
    expect(await lms.tokens()).toEqual({ token: session.token, session_id: session.session_id, auth_device_id: session.auth_device_id });
    expect(jar.size).toBe(1);
    const later = Date.now() + ACCESS_EXPIRED;
    setClockForTests({ now: () => later });

    const results = await Promise.all(Array.from({ length: 3 }, () => lms.GET("/api/v1/t/tenant")));

    expect(results.map((result) => result.response.status)).toEqual([200, 200, 200]);
    expect(wire.calls("POST /api/v1/auth/refresh")).toEqual([200]);
    expect((await lms.tokens())!.token).not.toBe(session.token);

    await lms.signOut();
    expect(wire.calls("POST /api/v1/auth/logout")).toEqual([200]);
    expect(await lms.tokens()).toBeNull();
    expect(jar.size).toBe(0);
  });

  it("in a browser that lost a refresh race (stale_refresh_token) refreshes once more with the cookie the winner left in the jar", async () => {
    const { school, admin } = await schoolAdmin();
    const jar = new Map<string, string>();
    const otherTab = createLmsClient({ baseUrl: BASE, tenant: school.subdomain, fetch: inBrowser(jar, (request) => SELF.fetch(request)) });
    const session = await otherTab.signIn({ email: admin.email, password: admin.password });
    const later = Date.now() + ACCESS_EXPIRED;
    setClockForTests({ now: () => later });
    let raced = false;
    // The other tab's refresh lands while this tab's refresh, already carrying the old cookie, is on its way.
    const wire = recordingFetch(async (request) => {
      if (new URL(request.url).pathname !== "/api/v1/auth/refresh" || raced) return;
      raced = true;
      expect((await otherTab.GET("/api/v1/t/tenant")).response.status).toBe(200);
    });
    // This tab keeps its own access token in memory (the same session's selectors), and shares the jar.
    const lms = createLmsClient({ baseUrl: BASE, tenant: school.subdomain, storage: memoryStorage({ token: session.token, session_id: session.session_id, auth_device_id: session.auth_device_id }), fetch: inBrowser(jar, wire.fetch) });

    const result = await lms.GET("/api/v1/t/tenant");

    expect(result.response.status).toBe(200);
    expect(wire.sent.map((entry) => `${entry.call} ${entry.status}`)).toEqual(["GET /api/v1/t/tenant 401", "POST /api/v1/auth/refresh 409", "POST /api/v1/auth/refresh 200", "GET /api/v1/t/tenant 200"]);
  });

  it("does not refresh again when the retried call is refused: a revoked session ends once, with the original 401", async () => {
    const { school, admin } = await schoolAdmin();
    const wire = recordingFetch();
    let ended = 0;
    const lms = createLmsClient({ baseUrl: BASE, tenant: school.subdomain, fetch: wire.fetch, onSessionEnded: () => ended++ });
    const session = await lms.signIn({ email: admin.email, password: admin.password });
    const logout = await SELF.fetch(`${BASE}/api/v1/auth/logout`, { method: "POST", headers: { "content-type": "application/json", "x-tenant-subdomain": school.subdomain }, body: JSON.stringify({ refresh_token: session.refresh_token }) });
    expect(logout.status).toBeLessThan(300);

    const result = await lms.GET("/api/v1/t/tenant");

    expect(result.response.status).toBe(401);
    expect(failureOf(result)?.error).toBe("unauthorized");
    expect(wire.sent.map((entry) => `${entry.call} ${entry.status}`)).toEqual(["POST /api/v1/auth/login 200", "GET /api/v1/t/tenant 401", "POST /api/v1/auth/refresh 401"]);
    expect(await lms.tokens()).toBeNull();
    expect(ended).toBe(1);
  });

  it("on stale_refresh_token takes the tokens a concurrent refresh of the same session stored", async () => {
    const { school, admin } = await schoolAdmin();
    const shared = memoryStorage();
    const tab = createLmsClient({ baseUrl: BASE, tenant: school.subdomain, storage: shared, fetch: (request) => SELF.fetch(request) });
    const original = await tab.signIn({ email: admin.email, password: admin.password });
    const later = Date.now() + ACCESS_EXPIRED;
    setClockForTests({ now: () => later });
    let winner: TokenSet | null = null;
    // Another holder of the same storage wins the race: it rotates the token and stores the result while this client's refresh is on its way.
    const wire = recordingFetch(async (request) => {
      if (new URL(request.url).pathname !== "/api/v1/auth/refresh" || winner) return;
      const res = await SELF.fetch(`${BASE}/api/v1/auth/refresh`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ refresh_token: original.refresh_token }) });
      const data = ((await res.json()) as { data: TokenSet }).data;
      winner = { token: data.token, refresh_token: data.refresh_token!, session_id: data.session_id, auth_device_id: data.auth_device_id };
      await shared.save(winner);
    });
    const other = createLmsClient({ baseUrl: BASE, tenant: school.subdomain, storage: shared, fetch: wire.fetch });

    const result = await other.GET("/api/v1/t/tenant");

    expect(result.response.status).toBe(200);
    expect(wire.sent.map((entry) => `${entry.call} ${entry.status}`)).toEqual(["GET /api/v1/t/tenant 401", "POST /api/v1/auth/refresh 409", "GET /api/v1/t/tenant 200"]);
    expect(wire.sent[2]!.headers.get("authorization")).toBe(`Bearer ${winner!.token}`);
    expect(await shared.load()).toEqual(winner);
  });

  it("on stale_refresh_token without a newer token forgets the stale one instead of replaying it, and the winner's session lives on", async () => {
    const { school, admin } = await schoolAdmin();
    const wire = recordingFetch();
    let ended = 0;
    const storage: TokenStorage = memoryStorage();
    const lms = createLmsClient({ baseUrl: BASE, tenant: school.subdomain, storage, fetch: wire.fetch, onSessionEnded: () => ended++ });
    const original = await lms.signIn({ email: admin.email, password: admin.password });
    const later = Date.now() + ACCESS_EXPIRED;
    setClockForTests({ now: () => later });
    const elsewhere = await SELF.fetch(`${BASE}/api/v1/auth/refresh`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ refresh_token: original.refresh_token }) });
    const winner = ((await elsewhere.json()) as { data: TokenSet }).data;

    const result = await lms.GET("/api/v1/t/tenant");

    expect(result.response.status).toBe(401);
    expect(wire.sent.slice(1).map((entry) => `${entry.call} ${entry.status}`)).toEqual(["GET /api/v1/t/tenant 401", "POST /api/v1/auth/refresh 409"]);
    expect(await lms.tokens()).toBeNull();
    expect(ended).toBe(1);
    const me = await SELF.fetch(`${BASE}/api/v1/auth/me`, { headers: { authorization: `Bearer ${winner.token}`, "x-tenant-subdomain": school.subdomain } });
    expect(me.status).toBe(200);
  });

  it("gives failures as ApiError typed with the operation's identifiers", async () => {
    const { school, admin } = await schoolAdmin();
    const lms = createLmsClient({ baseUrl: BASE, tenant: school.subdomain, fetch: (request) => SELF.fetch(request) });
    await lms.signIn({ email: admin.email, password: admin.password });

    const result = await lms.GET("/api/v1/t/users/{id}", { params: { path: { id: unknownId() } } });
    const error = failureOf(result);
    expect(error).toBeInstanceOf(ApiError);
    expect({ status: error?.status, error: error?.error, requestId: typeof error?.requestId }).toEqual({ status: 404, error: "user_not_found", requestId: "string" });
    if (error) {
      const identifier: ErrorIdentifier<"/api/v1/t/users/{id}", "get"> = error.error;
      expect(identifier).toBe("user_not_found");
      // @ts-expect-error "course_not_found" is no identifier of GET /t/users/{id}
      expect(error.error === "course_not_found").toBe(false);
    }
    // @ts-expect-error the refresh operation cannot answer `user_not_found`
    const refreshFailure: ErrorIdentifier<"/api/v1/auth/refresh", "post"> = "user_not_found";
    expect(refreshFailure).toBe("user_not_found");

    let thrown: unknown = null;
    try {
      unwrap(await lms.POST("/api/v1/auth/login", { body: { email: admin.email, password: "wrong-password", subdomain: school.subdomain } }));
    } catch (caught) {
      thrown = caught;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    expect({ status: (thrown as ApiError).status, error: (thrown as ApiError).error }).toEqual({ status: 400, error: "invalid credentials" });
  });

  it("passes the last X-D1-Bookmark back on the next school call", async () => {
    const { school, admin } = await schoolAdmin();
    const wire = recordingFetch();
    const lms = createLmsClient({ baseUrl: BASE, tenant: school.subdomain, fetch: wire.fetch });
    await lms.signIn({ email: admin.email, password: admin.password });

    const course = unwrap(await lms.POST("/api/v1/t/courses", { body: { title: "Client course", slug: "client-course" } }));
    const written = wire.sent.at(-1)!;
    expect(written.bookmark).toMatch(/^[0-9a-f]+(?:-[0-9a-f]+)+$/);
    expect(lms.bookmark()).toBe(written.bookmark);

    const read = unwrap(await lms.GET("/api/v1/t/courses/{id}", { params: { path: { id: course.id } } }));
    expect(read.title).toBe("Client course");
    expect(wire.sent.at(-1)!.headers.get("x-d1-bookmark")).toBe(written.bookmark);
  });
});
