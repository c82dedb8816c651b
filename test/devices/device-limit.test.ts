import { describe, expect, it } from "vitest";
import { DAY_MS, MINUTE_MS, setClockForTests } from "../../src/core/lib/clock";
import { barrierD1, requestWithD1 } from "../helpers/d1-barrier";
import { deviceLogin, eventTypes, newInstallation, schoolWithStudent, setPolicy, signInOn, tenantCall, tokenWorks } from "../helpers/devices";
import { createUser, login } from "../helpers/factories";
import { api } from "../helpers/http";
import { expectSignedOut } from "../helpers/sessions";
import { fixtureD1, schoolD1 } from "../helpers/databases";

const replace = (body: Record<string, unknown>, headers: Record<string, string> = {}) => api("/auth/device-limit/replace", { body, headers });

async function activeSessionCount(userId: string) {
  const row = await fixtureD1.prepare("SELECT count(*) AS n FROM sessions WHERE user_id = ? AND revoked_at IS NULL").bind(userId).first<{ n: number }>();
  return row!.n;
}

describe("device limit at login (enforce)", () => {
  it("refuses a new installation beyond the limit with 409, a safe device list and a replacement token", async () => {
    const { admin, student } = await schoolWithStudent();
    await setPolicy(admin, { mode: "enforce", max_active_devices: 2 });
    const first = await signInOn(student, { name: "Phone", platform: "android" });
    await signInOn(student, { name: "Tablet", platform: "ios" });

    const refused = await deviceLogin(student, { name: "Laptop" });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ success: false, error: "device_limit_reached" });
    const data = refused.body.data;
    expect(data).toMatchObject({ max_active_devices: 2, active_devices: 2 });
    expect(data.replacement_token).toEqual(expect.any(String));
    expect(Date.parse(data.replacement_expires_at)).toBeGreaterThan(Date.now());
    expect(data.devices.map((d: { name: string }) => d.name).sort()).toEqual(["Phone", "Tablet"]);
    expect(Object.keys(data.devices[0]).sort()).toEqual(
      ["app_version", "browser_name", "browser_version", "created_at", "id", "last_seen_at", "name", "os_name", "os_version", "platform"].sort(),
    );
    expect(await activeSessionCount(student.id)).toBe(2);

    // The same installation signing in again is not a new device.
    const again = await deviceLogin(student);
    expect(again.status).toBe(409);
    const sameDevice = await api("/auth/login", {
      body: { email: student.email, password: student.password, subdomain: student.subdomain, installation_id: await installationOf(first.authDeviceId) },
    });
    expect(sameDevice.status).toBe(200);
    expect(sameDevice.body.data.auth_device_id).toBe(first.authDeviceId);

    const history = await eventTypes(student.id);
    expect(history.filter((e) => e.type === "login_refused").map((e) => e.detail)).toEqual([
      { reason: "device_limit_reached", limit: 2, active_devices: 2 },
      { reason: "device_limit_reached", limit: 2, active_devices: 2 },
    ]);
  });

  it("leaves no token in the error when self-replacement is not allowed", async () => {
    const { admin, student } = await schoolWithStudent();
    await setPolicy(admin, { mode: "enforce", max_active_devices: 1, allow_self_replacement: false });
    await signInOn(student);
    const refused = await deviceLogin(student);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe("device_limit_reached");
    expect(refused.body.data.replacement_token).toBeUndefined();
    expect(refused.body.data.devices).toHaveLength(1);
  });

  it("does not limit admins and curators: three installations each sign in, nothing is refused or recorded as excess", async () => {
    const { school, admin, student } = await schoolWithStudent();
    await setPolicy(admin, { mode: "enforce", max_active_devices: 1 });
    // Fresh staff accounts, so their devices are exactly the ones signed in below.
    const member = async (role: "admin" | "curator") => ({ ...(await createUser(school.id, { role })), subdomain: school.subdomain, tenantId: school.id });
    const staff = [await member("admin"), await member("curator")];
    for (const person of staff) {
      const sessions = [await signInOn(person), await signInOn(person), await signInOn(person)];
      expect(new Set(sessions.map((s) => s.authDeviceId)).size).toBe(3);
      expect(await activeSessionCount(person.id)).toBe(3);
      const me = await tenantCall(sessions[2]!, "/t/me/devices");
      expect(me.status).toBe(200);
      expect(me.body.data).toMatchObject({ max_active_devices: null, active_devices: 3 });
      const history = await eventTypes(person.id);
      expect(history.map((e) => e.type)).toEqual(["login", "login", "login"]);
    }
    // The policy is in force: the school's student is held to one device.
    await signInOn(student);
    const refused = await deviceLogin(student);
    expect([refused.status, refused.body.error]).toEqual([409, "device_limit_reached"]);
  });

  it("does not count revoked, expired, blocked or inactive devices", async () => {
    const { admin, student } = await schoolWithStudent();
    await setPolicy(admin, { mode: "enforce", max_active_devices: 1, inactive_device_days: 2, session_idle_timeout_minutes: 525_600 });
    const t0 = Date.now();
    setClockForTests({ now: () => t0 });
    const first = await signInOn(student);
    expect((await deviceLogin(student)).status).toBe(409);

    // Revoked by the student: the slot is free again.
    expect((await tenantCall(first, `/t/me/devices/${first.authDeviceId}/revoke`, { method: "POST" })).status).toBe(200);
    const second = await signInOn(student);

    // Blocked by the admin: does not count either.
    expect((await tenantCall(admin, `/t/users/${student.id}/devices/${second.authDeviceId}/block`, { method: "POST", body: {} })).status).toBe(200);
    const third = await signInOn(student);
    expect(third.authDeviceId).not.toBe(second.authDeviceId);

    // Unseen for inactive_device_days: inactive, not counted, and its session has ended.
    setClockForTests({ now: () => t0 + 2 * DAY_MS + MINUTE_MS });
    const fourth = await signInOn(student);
    expect(await tokenWorks(fourth)).toBe(true);
    const devices = await tenantCall(fourth, "/t/me/devices");
    const byId = Object.fromEntries(devices.body.data.devices.map((d: { id: string; status: string }) => [d.id, d.status]));
    expect(byId[third.authDeviceId]).toBe("inactive");
    expect(byId[second.authDeviceId]).toBe("blocked");
    expect(byId[fourth.authDeviceId]).toBe("online");
    expect(devices.body.data.active_devices).toBe(1);
  });
});

/** The admin signed in again at the current test clock (access tokens live 15 minutes). */
async function freshAdmin(admin: { email: string; password: string; subdomain: string }) {
  return { subdomain: admin.subdomain, token: (await login(admin, { subdomain: admin.subdomain })).token };
}

async function installationOf(deviceId: string): Promise<string> {
  const row = await fixtureD1.prepare("SELECT installation_id FROM auth_devices WHERE id = ?").bind(deviceId).first<{ installation_id: string }>();
  return row!.installation_id;
}

describe("device limit in monitor_only mode", () => {
  it("lets the login through and records the excess", async () => {
    const { admin, student } = await schoolWithStudent();
    await setPolicy(admin, { mode: "monitor_only", max_active_devices: 1 });
    await signInOn(student);
    const second = await signInOn(student);
    expect(await tokenWorks(second)).toBe(true);
    const exceeded = (await eventTypes(student.id)).filter((e) => e.type === "device_limit_exceeded");
    expect(exceeded).toEqual([{ type: "device_limit_exceeded", detail: { limit: 1, active_devices: 2 }, auth_device_id: second.authDeviceId }]);
    const me = await tenantCall(second, "/t/me/devices");
    expect(me.body.data).toMatchObject({ active_devices: 2, max_active_devices: 1 });
  });

  it("does not count a login without installation_id against itself", async () => {
    const { admin, student } = await schoolWithStudent();
    await setPolicy(admin, { mode: "monitor_only", max_active_devices: 1 });
    const exceeded = async () => (await eventTypes(student.id)).filter((e) => e.type === "device_limit_exceeded");
    await signInOn(student, { installationId: null });
    expect(await exceeded()).toEqual([]);
    const second = await signInOn(student, { installationId: null });
    expect(await exceeded()).toEqual([{ type: "device_limit_exceeded", detail: { limit: 1, active_devices: 2 }, auth_device_id: second.authDeviceId }]);
  });
});

describe("one definition of an active device", () => {
  it("the limit, the 409 device list and the inventory count the same devices", async () => {
    const { admin, student } = await schoolWithStudent();
    await setPolicy(admin, { mode: "enforce", max_active_devices: 2, inactive_device_days: 2, session_idle_timeout_minutes: 525_600 });
    const t0 = Date.now();
    setClockForTests({ now: () => t0 });
    const quiet = await signInOn(student, { name: "quiet" });
    setClockForTests({ now: () => t0 + DAY_MS });
    const signedOut = await signInOn(student, { name: "signed out" });
    expect((await tenantCall(signedOut, `/t/me/devices/${signedOut.authDeviceId}/revoke`, { method: "POST" })).status).toBe(200);
    const blocked = await signInOn(student, { name: "blocked" });
    expect((await tenantCall(await freshAdmin(admin), `/t/users/${student.id}/devices/${blocked.authDeviceId}/block`, { method: "POST", body: {} })).status).toBe(200);
    const active = await signInOn(student, { name: "active" });
    setClockForTests({ now: () => t0 + 2 * DAY_MS + MINUTE_MS });
    const online = await signInOn(student, { name: "online" });

    const refused = await deviceLogin(student);
    expect(refused.status).toBe(409);
    expect(refused.body.data.active_devices).toBe(2);
    expect(refused.body.data.devices.map((d: { id: string }) => d.id)).toEqual([online.authDeviceId, active.authDeviceId]);

    const inventory = (await tenantCall(await freshAdmin(admin), `/t/users/${student.id}/devices`)).body.data;
    const statusOf = Object.fromEntries(inventory.devices.map((d: { id: string; status: string }) => [d.id, d.status]));
    expect(statusOf).toEqual({
      [quiet.authDeviceId]: "inactive",
      [signedOut.authDeviceId]: "signed_out",
      [blocked.authDeviceId]: "blocked",
      [active.authDeviceId]: "active",
      [online.authDeviceId]: "online",
    });
    expect(inventory.active_devices).toBe(refused.body.data.active_devices);
  });
});

describe("POST /auth/device-limit/replace", () => {
  async function refusedLogin(options: { limit?: number; preSigned?: number } = {}) {
    const ctx = await schoolWithStudent();
    await setPolicy(ctx.admin, { mode: "enforce", max_active_devices: options.limit ?? 1 });
    const old = await signInOn(ctx.student, { name: "Old phone" });
    for (let i = 0; i < (options.preSigned ?? 0); i++) await signInOn(ctx.student);
    const installationId = newInstallation();
    const refused = await deviceLogin(ctx.student, { installationId, name: "New phone", platform: "ios" });
    expect(refused.status).toBe(409);
    return { ...ctx, old, installationId, token: refused.body.data.replacement_token as string, devices: refused.body.data.devices as { id: string }[] };
  }

  it("revokes the chosen device and signs the new installation in", async () => {
    const { student, old, installationId, token, devices } = await refusedLogin();
    expect(devices.map((d) => d.id)).toEqual([old.authDeviceId]);

    const res = await replace({ replacement_token: token, revoke_device_id: old.authDeviceId, tenant_subdomain: student.subdomain });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual(
      ["access_expires_at", "auth_device_id", "refresh_expires_at", "refresh_token", "revoked_device_id", "session_id", "token", "user"].sort(),
    );
    expect(res.body.data.user).toEqual({ id: student.id, email: student.email, role: "student", first_name: "Test", last_name: "User" });
    expect(Date.parse(res.body.data.access_expires_at)).toBeGreaterThan(Date.now());
    expect(Date.parse(res.body.data.refresh_expires_at)).toBeGreaterThan(Date.parse(res.body.data.access_expires_at));
    expect(res.body.data).toMatchObject({
      token: expect.any(String),
      refresh_token: expect.any(String),
      session_id: expect.any(String),
      auth_device_id: expect.any(String),
      revoked_device_id: old.authDeviceId,
      user: { id: student.id, email: student.email, role: "student" },
    });
    const fresh = { ...student, token: res.body.data.token as string };
    expect(await tokenWorks(fresh)).toBe(true);
    await expectSignedOut(old);
    expect(await installationOf(res.body.data.auth_device_id)).toBe(installationId);

    // The refresh token of the new session works.
    const refreshed = await api("/auth/refresh", { body: { refresh_token: res.body.data.refresh_token } });
    expect(refreshed.status).toBe(200);

    const me = await tenantCall(fresh, "/t/me/devices");
    const current = me.body.data.devices.find((d: { is_current: boolean }) => d.is_current);
    expect(current).toMatchObject({ name: "New phone", platform: "ios", status: "online" });

    const history = await eventTypes(student.id);
    expect(history.find((e) => e.type === "session_revoked")).toMatchObject({ auth_device_id: old.authDeviceId, detail: { reason: "device_replaced", sessions: 1 } });
    expect(history.filter((e) => e.type === "login").at(-1)).toMatchObject({ detail: { new_device: true, via: "device_replacement" } });

    // Single use.
    const again = await replace({ replacement_token: token, revoke_device_id: old.authDeviceId });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe("invalid_device_replacement_token");
  });

  it("409 invalid_device_replacement_token for a wrong, expired or other-school token", async () => {
    const { student, old, token } = await refusedLogin();
    const wrong = await replace({ replacement_token: "not-a-real-token", revoke_device_id: old.authDeviceId });
    expect([wrong.status, wrong.body.error]).toEqual([409, "invalid_device_replacement_token"]);

    const otherSchool = await replace({ replacement_token: token, revoke_device_id: old.authDeviceId }, { "x-tenant-subdomain": "someotherschool" });
    expect([otherSchool.status, otherSchool.body.error]).toEqual([409, "invalid_device_replacement_token"]);

    setClockForTests({ now: () => Date.now() + 11 * MINUTE_MS });
    const expired = await replace({ replacement_token: token, revoke_device_id: old.authDeviceId, tenant_subdomain: student.subdomain });
    expect([expired.status, expired.body.error]).toEqual([409, "invalid_device_replacement_token"]);
  });

  it("400 invalid_request_body for a device that is not the account's, or a malformed body", async () => {
    const { admin, token } = await refusedLogin();
    const adminDevice = (await tenantCall(admin, "/t/me/devices")).body.data.devices[0].id;
    const foreign = await replace({ replacement_token: token, revoke_device_id: adminDevice });
    expect([foreign.status, foreign.body.error]).toEqual([400, "invalid_request_body"]);
    const malformed = await replace({ replacement_token: token, revoke_device_id: "nope" });
    expect([malformed.status, malformed.body.error]).toEqual([400, "invalid_request_body"]);
    expect((await replace({ revoke_device_id: adminDevice })).status).toBe(400);
  });

  it("403 device_self_replacement_disabled when the school turned self-replacement off after the refusal", async () => {
    const { admin, old, token } = await refusedLogin();
    await setPolicy(admin, { allow_self_replacement: false });
    const res = await replace({ replacement_token: token, revoke_device_id: old.authDeviceId });
    expect([res.status, res.body.error]).toEqual([403, "device_self_replacement_disabled"]);
    expect(await tokenWorks(old)).toBe(true);
  });

  it("409 device_limit_reached when the state changed and the limit is still exceeded; the token stays usable", async () => {
    const { admin, old, token } = await refusedLogin({ limit: 2, preSigned: 1 });
    // After the refusal the admin lowers the limit: giving up one of two devices still leaves one of one.
    await setPolicy(admin, { max_active_devices: 1 });
    const res = await replace({ replacement_token: token, revoke_device_id: old.authDeviceId });
    expect([res.status, res.body.error]).toEqual([409, "device_limit_reached"]);
    expect(res.body.data).toMatchObject({ max_active_devices: 1, active_devices: 2 });
    expect(res.body.data.devices).toHaveLength(2);
    expect(res.body.data.replacement_token).toBeUndefined();
    expect(await tokenWorks(old)).toBe(true);

    await setPolicy(admin, { max_active_devices: 2 });
    const retry = await replace({ replacement_token: token, revoke_device_id: old.authDeviceId });
    expect(retry.status).toBe(200);
    await expectSignedOut(old);
  });

  it("403 device_blocked when the new installation was blocked meanwhile", async () => {
    const { admin, student, old, installationId, token } = await refusedLogin();
    // The admin blocks the new installation from another (earlier) session of it.
    await setPolicy(admin, { mode: "monitor_only" });
    const probe = await signInOn(student, { installationId });
    await tenantCall(admin, `/t/users/${student.id}/devices/${probe.authDeviceId}/block`, { method: "POST", body: { reason: "lost" } });
    await setPolicy(admin, { mode: "enforce" });
    const res = await replace({ replacement_token: token, revoke_device_id: old.authDeviceId });
    expect([res.status, res.body.error]).toEqual([403, "device_blocked"]);
  });
});

describe("device limit under concurrency", () => {
  it("max 3, enforce: of 8 concurrent logins from new installations exactly 3 succeed and 5 get 409", async () => {
    const { admin, student } = await schoolWithStudent();
    await setPolicy(admin, { mode: "enforce", max_active_devices: 3 });
    // Held: every login's session insert, until all 8 have counted the active devices.
    const barrier = barrierD1(await schoolD1(admin.tenantId), { held: /INSERT INTO sessions \(/, parties: 8 });
    const body = () => ({ email: student.email, password: student.password, subdomain: student.subdomain, device_platform: "android", installation_id: newInstallation() });
    const results = await Promise.all(Array.from({ length: 8 }, () => requestWithD1(barrier.db, "/auth/login", { body: body() })));
    expect(barrier.stats.releases).toEqual([8]);
    const statuses = results.map((res) => res.status).sort();
    expect(statuses).toEqual([200, 200, 200, 409, 409, 409, 409, 409]);
    for (const res of results.filter((r) => r.status === 409)) expect(res.body.error).toBe("device_limit_reached");
    expect(await activeSessionCount(student.id)).toBe(3);
    const devices = await fixtureD1.prepare("SELECT count(*) AS n FROM auth_devices WHERE user_id = ?").bind(student.id).first<{ n: number }>();
    expect(devices!.n).toBe(3);
  });

  it("one replacement_token used 10 times concurrently succeeds exactly once", async () => {
    const { admin, student } = await schoolWithStudent();
    await setPolicy(admin, { mode: "enforce", max_active_devices: 1 });
    const old = await signInOn(student);
    const refused = await deviceLogin(student);
    const token = refused.body.data.replacement_token;
    const barrier = barrierD1(await schoolD1(student.tenantId), { held: /INSERT INTO sessions \(/, parties: 10 });
    const results = await Promise.all(
      Array.from({ length: 10 }, () => requestWithD1(barrier.db, "/auth/device-limit/replace", { body: { replacement_token: token, revoke_device_id: old.authDeviceId } })),
    );
    expect(barrier.stats.releases).toEqual([10]);
    const statuses = results.map((res) => res.status).sort();
    expect(statuses).toEqual([200, 409, 409, 409, 409, 409, 409, 409, 409, 409]);
    for (const res of results.filter((r) => r.status === 409)) expect(res.body.error).toBe("invalid_device_replacement_token");
    expect(await activeSessionCount(student.id)).toBe(1);
  });
});
