import { describe, expect, it } from "vitest";
import { setClockForTests } from "../../src/core/lib/clock";
import { BROWSER_ORIGIN, cookiePair, refreshNative } from "../helpers/auth";
import { createSchool, createUser, login } from "../helpers/factories";
import { api, failure } from "../helpers/http";
import { UNAUTHORIZED } from "../helpers/sessions";

async function signedIn(options: { browser?: boolean } = {}) {
  const school = await createSchool();
  const user = await createUser(school.id);
  const session = await login(user, { subdomain: school.subdomain, browser: options.browser });
  return { school, user, session };
}

describe("POST /auth/refresh (native)", () => {
  it("rotates: the new pair works and the response has the session selectors", async () => {
    const { school, session } = await signedIn();
    const res = await refreshNative(session.refresh_token!);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual(
      ["access_expires_at", "auth_device_id", "refresh_expires_at", "refresh_token", "session_id", "token"].sort(),
    );
    expect(res.body.data.session_id).toBe(session.session_id);
    expect(res.body.data.auth_device_id).toBe(session.auth_device_id);
    expect(res.body.data.refresh_token).not.toBe(session.refresh_token);
    expect((await api("/auth/me", { token: res.body.data.token, tenant: school.subdomain })).status).toBe(200);
    expect((await refreshNative(res.body.data.refresh_token)).status).toBe(200);
  });

  it("50 concurrent refreshes of one token: exactly one 200, the rest 409 stale_refresh_token", async () => {
    const { school, session } = await signedIn();
    const results = await Promise.all(Array.from({ length: 50 }, () => refreshNative(session.refresh_token!)));
    const winners = results.filter((res) => res.status === 200);
    expect(winners).toHaveLength(1);
    const losers = results.filter((res) => res.status !== 200);
    expect(losers.map(failure)).toEqual(Array(49).fill({ status: 409, error: "stale_refresh_token" }));
    const next = winners[0]!.body.data;
    expect((await api("/auth/me", { token: next.token, tenant: school.subdomain })).status).toBe(200);
    expect((await refreshNative(next.refresh_token)).status).toBe(200);
  });

  it("a replay after the grace window is confirmed reuse: the session is revoked, a second device is untouched", async () => {
    const { school, user, session } = await signedIn();
    const otherDevice = await login(user, { subdomain: school.subdomain });
    const rotated = await refreshNative(session.refresh_token!);
    expect(rotated.status).toBe(200);
    const later = Date.now() + 11_000;
    setClockForTests({ now: () => later });

    const replay = await refreshNative(session.refresh_token!);
    expect(failure(replay)).toEqual(UNAUTHORIZED);
    expect(failure(await api("/auth/me", { token: rotated.body.data.token, tenant: school.subdomain }))).toEqual(UNAUTHORIZED);
    expect(failure(await refreshNative(rotated.body.data.refresh_token))).toEqual(UNAUTHORIZED);

    expect((await api("/auth/me", { token: otherDevice.token, tenant: school.subdomain })).status).toBe(200);
    expect((await refreshNative(otherDevice.refresh_token!)).status).toBe(200);
  });

  it("an older generation than the previous one is reuse even inside the grace window", async () => {
    const { school, session } = await signedIn();
    const first = await refreshNative(session.refresh_token!);
    const second = await refreshNative(first.body.data.refresh_token);
    expect(second.status).toBe(200);
    expect(failure(await refreshNative(session.refresh_token!))).toEqual(UNAUTHORIZED);
    expect(failure(await api("/auth/me", { token: second.body.data.token, tenant: school.subdomain }))).toEqual(UNAUTHORIZED);
  });

  it("400 refresh_token_required without a token; 401 for a forged, foreign or mismatched one", async () => {
    const { school, session } = await signedIn();
    const missing = await api("/auth/refresh", { body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe("refresh_token_required");
    const noBody = await api("/auth/refresh", { method: "POST" });
    expect(noBody.body.error).toBe("refresh_token_required");

    const forged = await refreshNative(`${session.session_id}.${"A".repeat(43)}`);
    expect(failure(forged)).toEqual(UNAUTHORIZED);
    expect(failure(await refreshNative("garbage"))).toEqual(UNAUTHORIZED);
    const otherSchool = await createSchool();
    const wrongSchool = await refreshNative(session.refresh_token!, { tenant_subdomain: otherSchool.subdomain });
    expect(failure(wrongSchool)).toEqual(UNAUTHORIZED);
    const wrongSelector = await refreshNative(session.refresh_token!, { session_id: "0190a6c2-0000-7000-8000-000000000000" });
    expect(failure(wrongSelector)).toEqual(UNAUTHORIZED);
    // The failed attempts above changed nothing: the real token still rotates.
    expect((await refreshNative(session.refresh_token!, { tenant_subdomain: school.subdomain })).status).toBe(200);
  });

  it("refuses a revoked session and an idle-expired one", async () => {
    const { session } = await signedIn();
    const out = await api("/auth/logout", { body: { refresh_token: session.refresh_token } });
    expect(out.status).toBe(200);
    expect(failure(await refreshNative(session.refresh_token!))).toEqual(UNAUTHORIZED);

    const idle = await signedIn();
    const farFuture = Date.now() + 15 * 24 * 3_600_000;
    setClockForTests({ now: () => farFuture });
    expect(failure(await refreshNative(idle.session.refresh_token!))).toEqual(UNAUTHORIZED);
  });
});

describe("POST /auth/refresh (browser)", () => {
  it("rotates the cookie selected by session_id and auth_device_id", async () => {
    const { school, session } = await signedIn({ browser: true });
    expect(session.refresh_token).toBeUndefined();
    const res = await api("/auth/refresh", {
      body: { session_id: session.session_id, auth_device_id: session.auth_device_id, tenant_subdomain: school.subdomain },
      headers: { ...BROWSER_ORIGIN, cookie: cookiePair(session.setCookie) },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.refresh_token).toBeUndefined();
    const rotatedCookie = cookiePair(res.headers.get("set-cookie"));
    expect(rotatedCookie).not.toBe(cookiePair(session.setCookie));
    expect(rotatedCookie.split("=")[0]).toBe(cookiePair(session.setCookie).split("=")[0]);

    // Without tenant_subdomain the device id alone picks the cookie.
    const again = await api("/auth/refresh", {
      body: { session_id: session.session_id, auth_device_id: session.auth_device_id },
      headers: { ...BROWSER_ORIGIN, cookie: rotatedCookie },
    });
    expect(again.status).toBe(200);
  });

  it("400 session_id_required, 400 auth_device_id_required, 400 refresh_token_required, 401 for a cookie of another device", async () => {
    const { session } = await signedIn({ browser: true });
    const cookie = cookiePair(session.setCookie);
    const noSession = await api("/auth/refresh", { body: { auth_device_id: session.auth_device_id }, headers: { ...BROWSER_ORIGIN, cookie } });
    expect(noSession.status).toBe(400);
    expect(noSession.body.error).toBe("session_id_required");
    const noDevice = await api("/auth/refresh", { body: { session_id: session.session_id }, headers: { ...BROWSER_ORIGIN, cookie } });
    expect(noDevice.status).toBe(400);
    expect(noDevice.body.error).toBe("auth_device_id_required");
    const noCookie = await api("/auth/refresh", { body: { session_id: session.session_id, auth_device_id: session.auth_device_id }, headers: BROWSER_ORIGIN });
    expect(noCookie.status).toBe(400);
    expect(noCookie.body.error).toBe("refresh_token_required");
    const otherDevice = await api("/auth/refresh", {
      body: { session_id: session.session_id, auth_device_id: "0190a6c2-0000-7000-8000-000000000000" },
      headers: { ...BROWSER_ORIGIN, cookie },
    });
    expect(failure(otherDevice)).toEqual(UNAUTHORIZED);
    // None of the refusals touched the cookie's session.
    const ok = await api("/auth/refresh", { body: { session_id: session.session_id, auth_device_id: session.auth_device_id }, headers: { ...BROWSER_ORIGIN, cookie } });
    expect(ok.status).toBe(200);
  });

  it("ignores a refresh_token in a browser's JSON (browsers use the cookie only)", async () => {
    const native = await signedIn();
    const res = await api("/auth/refresh", {
      body: { session_id: native.session.session_id, auth_device_id: native.session.auth_device_id, refresh_token: native.session.refresh_token },
      headers: BROWSER_ORIGIN,
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("refresh_token_required");
  });
});
