import { describe, expect, it } from "vitest";
import { BROWSER_ORIGIN, cookiePair, refreshNative } from "../helpers/auth";
import { createSchool, createUser, login } from "../helpers/factories";
import { historyOf } from "../helpers/history";
import { api, failure } from "../helpers/http";
import { expectSignedOut, UNAUTHORIZED } from "../helpers/sessions";
import { sessionRow } from "../helpers/users";

const STALE = { status: 409, error: "stale_refresh_token" };

describe("race: one browser refresh cookie spent by concurrent tabs", () => {
  it("20 concurrent refreshes with the same cookie and an Origin: exactly one 200 with the rotated cookie, 19 × 409 stale_refresh_token that leave the cookie alone", async () => {
    const TABS = 20;
    const school = await createSchool();
    const user = await createUser(school.id);
    const session = await login(user, { subdomain: school.subdomain, browser: true });
    const cookie = cookiePair(session.setCookie);
    const refresh = (cookieHeader: string) =>
      api("/auth/refresh", {
        body: { session_id: session.session_id, auth_device_id: session.auth_device_id, tenant_subdomain: school.subdomain },
        headers: { ...BROWSER_ORIGIN, cookie: cookieHeader },
      });

    const results = await Promise.all(Array.from({ length: TABS }, () => refresh(cookie)));
    const winners = results.filter((res) => res.status === 200);
    const losers = results.filter((res) => res.status !== 200);
    expect(winners).toHaveLength(1);
    expect(losers.map(failure)).toEqual(Array(TABS - 1).fill(STALE));
    // A refused tab must not overwrite or clear the cookie the winning tab just received.
    expect(losers.map((res) => res.headers.get("set-cookie"))).toEqual(Array(TABS - 1).fill(null));
    const winner = winners[0]!;
    expect(winner.body.data.refresh_token).toBeUndefined();
    const rotated = cookiePair(winner.headers.get("set-cookie"));
    expect(rotated).not.toBe(cookie);
    expect(rotated.split("=")[0]).toBe(cookie.split("=")[0]);

    // D1: the session is live, its history is the sign-in alone (no reuse was suspected).
    expect(await sessionRow(session.session_id)).toMatchObject({ revokedAt: null, revokeReason: null });
    expect((await historyOf(user.id)).map((event) => event.type)).toEqual(["login"]);
    expect((await api("/auth/me", { token: winner.body.data.token, tenant: school.subdomain })).status).toBe(200);
    expect((await refresh(rotated)).status).toBe(200);
  });
});

describe("race: refresh against logout of the same session", () => {
  const ROUNDS = 8;
  const LOGGED_OUT = { success: true, data: { logged_out: true } };
  /** Refresh may rotate before the logout lands (200, with tokens that then stop working) or after it (401); the logout always succeeds. */
  const ALLOWED = [
    { refresh: "rotated", logout: LOGGED_OUT },
    { refresh: UNAUTHORIZED, logout: LOGGED_OUT },
  ];

  it(`${ROUNDS} sessions, each refreshed and logged out concurrently: always logged out, revoked by the logout, and no token of it works afterwards`, async () => {
    const school = await createSchool();
    const user = await createUser(school.id);
    const sessions = [];
    for (let i = 0; i < ROUNDS; i++) sessions.push(await login(user, { subdomain: school.subdomain }));

    // The refresh leaves 0-21 ms after the logout, so the rounds spread over both interleavings.
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const rounds = await Promise.all(
      sessions.map(async (session, i) => {
        const [logout, refresh] = await Promise.all([
          api("/auth/logout", { body: { refresh_token: session.refresh_token } }),
          sleep(i * 3).then(() => refreshNative(session.refresh_token!)),
        ]);
        return { session, refresh, logout };
      }),
    );

    for (const { session, refresh, logout } of rounds) {
      const rotated = refresh.status === 200;
      expect(ALLOWED).toContainEqual({ refresh: rotated ? "rotated" : failure(refresh), logout: logout.body });

      // D1: the logout ended the session and recorded it once; nothing looked like reuse.
      expect(await sessionRow(session.session_id)).toMatchObject({ revokedAt: expect.any(Number), revokeReason: "logout" });
      const history = (await historyOf(user.id)).filter((event) => event.session_id === session.session_id).map((event) => event.type);
      expect(history).toEqual(["login", "logout"]);

      // Whatever the order, no token of the session works any more: the original ones and any the refresh handed out.
      const refreshTokens = [session.refresh_token!, ...(rotated ? [refresh.body.data.refresh_token as string] : [])];
      const accessTokens = [session.token, ...(rotated ? [refresh.body.data.token as string] : [])];
      for (const token of refreshTokens) expect(failure(await refreshNative(token))).toEqual(UNAUTHORIZED);
      for (const token of accessTokens) await expectSignedOut({ token, subdomain: school.subdomain });
    }
    expect(await historyOf(user.id, "session_revoked")).toEqual([]);
  });
});
