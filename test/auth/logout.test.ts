import { describe, expect, it } from "vitest";
import { uuidv7 } from "../../src/core/lib/ids";
import { BROWSER_ORIGIN, cookiePair } from "../helpers/auth";
import { createSchool, createUser, login } from "../helpers/factories";
import { api, failure } from "../helpers/http";
import { UNAUTHORIZED } from "../helpers/sessions";

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
    expect(failure(await api("/auth/me", { token: session.token, tenant: school.subdomain }))).toEqual(UNAUTHORIZED);

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
    expect(failure(await api("/auth/me", { token: session.token, tenant: school.subdomain }))).toEqual(UNAUTHORIZED);
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
    expect(failure(unrelated)).toEqual(UNAUTHORIZED);
    const missingCookie = await api("/auth/logout", {
      body: { session_id: other.session_id, auth_device_id: other.auth_device_id },
      headers: { ...BROWSER_ORIGIN, cookie },
    });
    expect(failure(missingCookie)).toEqual(UNAUTHORIZED);
    expect((await api("/auth/me", { token: session.token, tenant: school.subdomain })).status).toBe(200);
    expect((await api("/auth/me", { token: other.token, tenant: school.subdomain })).status).toBe(200);
  });

  it("401 without any refresh cookie (a repeated browser logout) or native token", async () => {
    const school = await createSchool();
    const user = await createUser(school.id);
    const session = await login(user, { subdomain: school.subdomain, browser: true });
    const noCookie = await api("/auth/logout", { body: { session_id: session.session_id, auth_device_id: session.auth_device_id }, headers: BROWSER_ORIGIN });
    expect(failure(noCookie)).toEqual(UNAUTHORIZED);
    const noToken = await api("/auth/logout", { body: {} });
    expect(failure(noToken)).toEqual(UNAUTHORIZED);
  });

  it("401 for a native token that is not the session's", async () => {
    const school = await createSchool();
    const user = await createUser(school.id);
    const session = await login(user, { subdomain: school.subdomain });
    const res = await api("/auth/logout", { body: { refresh_token: `${session.session_id}.${"B".repeat(43)}` } });
    expect(failure(res)).toEqual(UNAUTHORIZED);
    expect((await api("/auth/me", { token: session.token, tenant: school.subdomain })).status).toBe(200);
  });
});

describe("refusals of refresh and logout", () => {
  /** The body without its request id: what a client could tell two refusals apart by. */
  const comparable = (res: { body: Record<string, unknown> }) => {
    const { request_id: _requestId, ...rest } = res.body;
    return rest;
  };

  it("answer the same body (error and message, all but the request id) for every shared 401 cause", async () => {
    const school = await createSchool();
    const otherSchool = await createSchool();
    const user = await createUser(school.id);
    const native = await login(user, { subdomain: school.subdomain });
    const browser = await login(user, { subdomain: school.subdomain, browser: true });
    const cookie = cookiePair(browser.setCookie);

    // A session ended for confirmed reuse, presented with a generation older than the previous one.
    const reused = await login(user, { subdomain: school.subdomain });
    const once = await api("/auth/refresh", { body: { refresh_token: reused.refresh_token } });
    expect((await api("/auth/refresh", { body: { refresh_token: once.body.data.refresh_token } })).status).toBe(200);
    expect(failure(await api("/auth/refresh", { body: { refresh_token: reused.refresh_token } }))).toEqual(UNAUTHORIZED);

    const cases: [cause: string, call: { body: Record<string, unknown>; headers?: Record<string, string> }][] = [
      ["malformed token", { body: { refresh_token: "garbage" } }],
      ["unknown session", { body: { refresh_token: `${uuidv7()}.${"A".repeat(43)}` } }],
      ["wrong secret", { body: { refresh_token: `${native.session_id}.${"A".repeat(43)}` } }],
      ["another school", { body: { refresh_token: native.refresh_token, tenant_subdomain: otherSchool.subdomain } }],
      ["no such school", { body: { refresh_token: native.refresh_token, tenant_subdomain: "nosuchschool" } }],
      ["another session's selector", { body: { refresh_token: native.refresh_token, session_id: browser.session_id } }],
      ["another device's selector", { body: { refresh_token: native.refresh_token, auth_device_id: browser.auth_device_id } }],
      ["revoked session, retired token", { body: { refresh_token: reused.refresh_token } }],
      [
        "cookie of another device",
        { body: { session_id: browser.session_id, auth_device_id: native.auth_device_id }, headers: { ...BROWSER_ORIGIN, cookie } },
      ],
      [
        "cookie of another session",
        { body: { session_id: native.session_id, auth_device_id: browser.auth_device_id }, headers: { ...BROWSER_ORIGIN, cookie } },
      ],
    ];
    for (const [cause, call] of cases) {
      // Logout first: its refusals change nothing, while a refresh may end a session.
      const out = await api("/auth/logout", call);
      const refresh = await api("/auth/refresh", call);
      expect({ cause, logout: failure(out), refresh: failure(refresh) }).toEqual({ cause, logout: UNAUTHORIZED, refresh: UNAUTHORIZED });
      expect({ cause, body: comparable(refresh) }).toEqual({ cause, body: comparable(out) });
    }

    // None of the refusals ended the live sessions.
    expect((await api("/auth/me", { token: native.token, tenant: school.subdomain })).status).toBe(200);
    expect((await api("/auth/me", { token: browser.token, tenant: school.subdomain })).status).toBe(200);
  });
});
