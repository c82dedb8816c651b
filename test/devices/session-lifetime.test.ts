import { describe, expect, it } from "vitest";
import { DAY_MS, HOUR_MS, MINUTE_MS, setClockForTests } from "../../src/core/lib/clock";
import { login } from "../helpers/factories";
import { api, failure } from "../helpers/http";
import { emailsTo } from "../helpers/outbox";
import { schoolWithStudent, setPolicy, signInOn, tenantCall, tokenWorks } from "../helpers/devices";

const SECOND = 1000;

describe("sliding idle timeout", () => {
  it("expires an idle session; POST /t/me/session/activity extends it", async () => {
    const { admin, student } = await schoolWithStudent();
    await setPolicy(admin, { session_idle_timeout_minutes: 5 });
    const t0 = Date.now();
    setClockForTests({ now: () => t0 });
    const kept = await signInOn(student);
    const idle = await signInOn(student);

    setClockForTests({ now: () => t0 + 4 * MINUTE_MS });
    const ping = await tenantCall(kept, "/t/me/session/activity", { method: "POST" });
    expect(ping.status).toBe(200);
    expect(ping.body.data).toEqual({
      session_id: kept.sessionId,
      extended: true,
      last_activity_at: new Date(t0 + 4 * MINUTE_MS).toISOString(),
      idle_expires_at: new Date(t0 + 9 * MINUTE_MS).toISOString(),
      expires_at: expect.any(String),
    });

    setClockForTests({ now: () => t0 + 6 * MINUTE_MS });
    expect(await tokenWorks(idle)).toBe(false);
    expect(await tokenWorks(kept)).toBe(true);
    const refreshIdle = await api("/auth/refresh", { body: { refresh_token: idle.refreshToken } });
    expect(failure(refreshIdle)).toEqual({ status: 401, error: "unauthorized" });

    setClockForTests({ now: () => t0 + 9 * MINUTE_MS + 1 });
    expect(await tokenWorks(kept)).toBe(false);
  });

  it("writes at most about once a minute; repeating is safe", async () => {
    const { student } = await schoolWithStudent();
    const t0 = Date.now();
    setClockForTests({ now: () => t0 });
    const s = await signInOn(student);
    const activity = () => tenantCall(s, "/t/me/session/activity", { method: "POST" });

    setClockForTests({ now: () => t0 + 30 * SECOND });
    const early = await activity();
    expect(early.body.data).toMatchObject({ extended: false, last_activity_at: new Date(t0).toISOString() });

    setClockForTests({ now: () => t0 + 61 * SECOND });
    const due = await activity();
    expect(due.body.data).toMatchObject({ extended: true, last_activity_at: new Date(t0 + 61_000).toISOString() });
    const repeat = await activity();
    expect(repeat.body.data).toMatchObject({ extended: false, last_activity_at: new Date(t0 + 61_000).toISOString() });

    // The device was seen at the extension.
    const devices = await tenantCall(s, "/t/me/devices");
    expect(devices.body.data.devices[0].last_seen_at).toBe(new Date(t0 + 61_000).toISOString());
  });

  it("refuses activity on a revoked session with 401", async () => {
    const { admin, student } = await schoolWithStudent();
    const s = await signInOn(student);
    await tenantCall(admin, `/t/users/${student.id}/sessions/revoke-all`, { method: "POST" });
    const res = await tenantCall(s, "/t/me/session/activity", { method: "POST" });
    expect(failure(res)).toEqual({ status: 401, error: "unauthorized" });
  });
});

describe("absolute session lifetime", () => {
  it("caps the refresh expiry and ends the session at session_absolute_lifetime_days", async () => {
    const { admin, student } = await schoolWithStudent();
    await setPolicy(admin, { session_absolute_lifetime_days: 1 });
    const t0 = Date.now();
    setClockForTests({ now: () => t0 });
    const login = await api("/auth/login", {
      body: { email: student.email, password: student.password, subdomain: student.subdomain, installation_id: `abs-${t0}` },
    });
    expect(login.body.data.refresh_expires_at).toBe(new Date(t0 + DAY_MS).toISOString());

    setClockForTests({ now: () => t0 + 23 * HOUR_MS });
    const refreshed = await api("/auth/refresh", { body: { refresh_token: login.body.data.refresh_token } });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.data.refresh_expires_at).toBe(new Date(t0 + DAY_MS).toISOString());

    setClockForTests({ now: () => t0 + DAY_MS + MINUTE_MS });
    const late = await api("/auth/refresh", { body: { refresh_token: refreshed.body.data.refresh_token } });
    expect(failure(late)).toEqual({ status: 401, error: "unauthorized" });
  });

  it("a lowered lifetime shortens sessions issued before the change, at refresh", async () => {
    const { admin, student } = await schoolWithStudent();
    const t0 = Date.now();
    setClockForTests({ now: () => t0 });
    const session = await signInOn(student);
    await setPolicy(admin, { session_absolute_lifetime_days: 1 });

    setClockForTests({ now: () => t0 + 2 * HOUR_MS });
    const refreshed = await api("/auth/refresh", { body: { refresh_token: session.refreshToken } });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.data.refresh_expires_at).toBe(new Date(t0 + DAY_MS).toISOString());

    setClockForTests({ now: () => t0 + 2 * DAY_MS });
    const late = await api("/auth/refresh", { body: { refresh_token: refreshed.body.data.refresh_token } });
    expect(failure(late)).toEqual({ status: 401, error: "unauthorized" });
  });

  it("a lowered lifetime shortens sessions issued before the change, at session activity", async () => {
    const { admin, student } = await schoolWithStudent();
    const t0 = Date.now();
    setClockForTests({ now: () => t0 });
    const session = await signInOn(student);
    await setPolicy(admin, { session_absolute_lifetime_days: 1 });

    setClockForTests({ now: () => t0 + 2 * MINUTE_MS });
    const ping = await tenantCall(session, "/t/me/session/activity", { method: "POST" });
    expect(ping.body.data).toMatchObject({ extended: true, expires_at: new Date(t0 + DAY_MS).toISOString() });
  });

  it("a session activity after the lowered lifetime has run out ends the session instead of extending it", async () => {
    const { admin, student } = await schoolWithStudent();
    const t0 = Date.now();
    setClockForTests({ now: () => t0 });
    const first = await signInOn(student);
    // A fresh access token shortly before the lowered lifetime runs out.
    setClockForTests({ now: () => t0 + DAY_MS - 5 * MINUTE_MS });
    const refreshed = await api("/auth/refresh", { body: { refresh_token: first.refreshToken } });
    expect(refreshed.status).toBe(200);
    const session = { ...first, token: refreshed.body.data.token as string };
    await setPolicy(await adminNow(admin), { session_absolute_lifetime_days: 1 });

    setClockForTests({ now: () => t0 + DAY_MS + MINUTE_MS });
    const ping = await tenantCall(session, "/t/me/session/activity", { method: "POST" });
    expect(ping.body.data).toMatchObject({ extended: false, expires_at: new Date(t0 + DAY_MS).toISOString() });
    expect(await tokenWorks(session)).toBe(false);
  });
});

/** The admin signed in again at the current test clock (access tokens live 15 minutes). */
async function adminNow(admin: { email: string; password: string; subdomain: string }) {
  return { subdomain: admin.subdomain, token: (await login(admin, { subdomain: admin.subdomain })).token };
}

describe("revoke_on_password_reset", () => {
  async function resetPassword(student: { email: string; subdomain: string }) {
    expect((await api("/auth/forgot-password", { body: { email: student.email, subdomain: student.subdomain } })).status).toBe(200);
    const [latest] = await emailsTo(student.email);
    const res = await api("/auth/reset-password", {
      body: { email: student.email, subdomain: student.subdomain, code: latest!.metaJson.code, new_password: "another-password-1" },
    });
    expect(res.status).toBe(200);
  }

  it("revokes the user's sessions when on, keeps them when off", async () => {
    const on = await schoolWithStudent();
    const onSession = await signInOn(on.student);
    await resetPassword(on.student);
    expect(await tokenWorks(onSession)).toBe(false);

    const off = await schoolWithStudent();
    await setPolicy(off.admin, { revoke_on_password_reset: false });
    const offSession = await signInOn(off.student);
    await resetPassword(off.student);
    expect(await tokenWorks(offSession)).toBe(true);
  });
});
