import { describe, expect, it } from "vitest";
import { BROWSER_ORIGIN, cookiePair } from "../helpers/auth";
import { createSchool, createUser, login } from "../helpers/factories";
import { api } from "../helpers/http";

describe("POST /auth/logout", () => {
  it("ends a native session: the access token fails on the next request; repeating is safe", async () => {
    const school = await createSchool();
    const user = await createUser(school.id);
    const session = await login(user, { subdomain: school.subdomain });
    const other = await login(user, { subdomain: school.subdomain });
    expect((await api("/auth/me", { token: session.token, tenant: school.subdomain })).status).toBe(200);

    const res = await api("/auth/logout", { body: { refresh_token: session.refresh_token } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { logged_out: true } });
    expect((await api("/auth/me", { token: session.token, tenant: school.subdomain })).status).toBe(401);

    const again = await api("/auth/logout", { body: { refresh_token: session.refresh_token } });
    expect(again.status).toBe(200);
    expect((await api("/auth/me", { token: other.token, tenant: school.subdomain })).status).toBe(200);
  });

  it("ends a browser session checked against the exact cookie and clears only that cookie", async () => {
    const school = await createSchool();
    const user = await createUser(school.id);
    const session = await login(user, { subdomain: school.subdomain, browser: true });
    const cookie = cookiePair(session.setCookie);
    const res = await api("/auth/logout", {
      body: { session_id: session.session_id, auth_device_id: session.auth_device_id, tenant_subdomain: school.subdomain },
      headers: { ...BROWSER_ORIGIN, cookie },
    });
    expect(res.status).toBe(200);
    const cleared = res.headers.get("set-cookie")!;
    expect(cleared.startsWith(`${cookie.split("=")[0]}=;`)).toBe(true);
    expect(cleared).toContain("Max-Age=0");
    expect((await api("/auth/me", { token: session.token, tenant: school.subdomain })).status).toBe(401);
  });

  it("400 session_id_required / auth_device_id_required for browsers; 401 for missing or unrelated cookies", async () => {
    const school = await createSchool();
    const user = await createUser(school.id);
    const session = await login(user, { subdomain: school.subdomain, browser: true });
    const other = await login(user, { subdomain: school.subdomain, browser: true });
    const cookie = cookiePair(session.setCookie);

    const noSession = await api("/auth/logout", { body: { auth_device_id: session.auth_device_id }, headers: { ...BROWSER_ORIGIN, cookie } });
    expect(noSession.status).toBe(400);
    expect(noSession.body.error).toBe("session_id_required");
    const noDevice = await api("/auth/logout", { body: { session_id: session.session_id }, headers: { ...BROWSER_ORIGIN, cookie } });
    expect(noDevice.status).toBe(400);
    expect(noDevice.body.error).toBe("auth_device_id_required");

    // The selectors of another session with this session's cookie: unrelated → 401, nothing revoked.
    const unrelated = await api("/auth/logout", {
      body: { session_id: other.session_id, auth_device_id: session.auth_device_id },
      headers: { ...BROWSER_ORIGIN, cookie },
    });
    expect(unrelated.status).toBe(401);
    const missingCookie = await api("/auth/logout", {
      body: { session_id: other.session_id, auth_device_id: other.auth_device_id },
      headers: { ...BROWSER_ORIGIN, cookie },
    });
    expect(missingCookie.status).toBe(401);
    expect((await api("/auth/me", { token: session.token, tenant: school.subdomain })).status).toBe(200);
    expect((await api("/auth/me", { token: other.token, tenant: school.subdomain })).status).toBe(200);
  });

  it("401 without any refresh cookie (a repeated browser logout) or native token", async () => {
    const school = await createSchool();
    const user = await createUser(school.id);
    const session = await login(user, { subdomain: school.subdomain, browser: true });
    const noCookie = await api("/auth/logout", { body: { session_id: session.session_id, auth_device_id: session.auth_device_id }, headers: BROWSER_ORIGIN });
    expect(noCookie.status).toBe(401);
    expect(noCookie.body.error).toBe("unauthorized");
    const noToken = await api("/auth/logout", { body: {} });
    expect(noToken.status).toBe(401);
    expect(noToken.body.error).toBe("unauthorized");
  });

  it("401 for a native token that is not the session's", async () => {
    const school = await createSchool();
    const user = await createUser(school.id);
    const session = await login(user, { subdomain: school.subdomain });
    const res = await api("/auth/logout", { body: { refresh_token: `${session.session_id}.${"B".repeat(43)}` } });
    expect(res.status).toBe(401);
    expect((await api("/auth/me", { token: session.token, tenant: school.subdomain })).status).toBe(200);
  });
});
