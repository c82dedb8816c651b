import { describe, expect, it } from "vitest";
import { createUser, login } from "../helpers/factories";
import { api, failure } from "../helpers/http";
import { deviceLogin, eventTypes, newInstallation, schoolWithStudent, setPolicy, signInOn, tenantCall, tokenWorks } from "../helpers/devices";

const post = (who: { token: string; subdomain: string }, path: string, body?: unknown) => tenantCall(who, path, { method: "POST", body });

describe("POST /t/me/devices/:deviceId/revoke", () => {
  it("ends every session of one own device; its access token fails on the next request", async () => {
    const { student } = await schoolWithStudent();
    const installationId = newInstallation();
    const phone1 = await signInOn(student, { installationId });
    const phone2 = await signInOn(student, { installationId });
    const laptop = await signInOn(student);
    expect(phone1.authDeviceId).toBe(phone2.authDeviceId);

    const res = await post(laptop, `/t/me/devices/${phone1.authDeviceId}/revoke`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { device_id: phone1.authDeviceId, revoked_sessions: 2 } });
    expect(await tokenWorks(phone1)).toBe(false);
    expect(await tokenWorks(phone2)).toBe(false);
    expect(await tokenWorks(laptop)).toBe(true);
    const refresh = await api("/auth/refresh", { body: { refresh_token: phone1.refreshToken } });
    expect(failure(refresh)).toEqual({ status: 401, error: "unauthorized" });

    const repeat = await post(laptop, `/t/me/devices/${phone1.authDeviceId}/revoke`);
    expect(repeat.body.data.revoked_sessions).toBe(0);
    const revoked = (await eventTypes(student.id)).filter((e) => e.type === "session_revoked");
    expect(revoked).toEqual([{ type: "session_revoked", auth_device_id: phone1.authDeviceId, detail: { reason: "self_revoke", sessions: 2 } }]);

    // The current device can sign itself out too.
    const self = await post(laptop, `/t/me/devices/${laptop.authDeviceId}/revoke`);
    expect(self.body.data.revoked_sessions).toBe(1);
    expect(await tokenWorks(laptop)).toBe(false);
  });

  it("404 device_not_found for another user's or an unknown device; 400 for a bad id", async () => {
    const { admin, student } = await schoolWithStudent();
    const s = await signInOn(student);
    const adminDevice = (await tenantCall(admin, "/t/me/devices")).body.data.devices[0].id;
    for (const id of [adminDevice, "0190a6c2-1111-7000-8000-000000000001"]) {
      const res = await post(s, `/t/me/devices/${id}/revoke`);
      expect([res.status, res.body.error]).toEqual([404, "device_not_found"]);
    }
    expect(await tokenWorks(admin)).toBe(true);
    expect((await post(s, "/t/me/devices/abc/revoke")).body.error).toBe("invalid_id_format");
  });

  it("403 device_self_management_disabled for students when the school forbids it (both self-service revocations)", async () => {
    const { admin, student } = await schoolWithStudent();
    await setPolicy(admin, { allow_self_management: false });
    const a = await signInOn(student);
    const b = await signInOn(student);
    const one = await post(a, `/t/me/devices/${b.authDeviceId}/revoke`);
    expect([one.status, one.body.error]).toEqual([403, "device_self_management_disabled"]);
    const others = await post(a, "/t/me/sessions/revoke-others");
    expect([others.status, others.body.error]).toEqual([403, "device_self_management_disabled"]);
    expect(await tokenWorks(b)).toBe(true);
    // The inventory stays readable, and staff still manage their own sessions.
    expect((await tenantCall(a, "/t/me/devices")).status).toBe(200);
    expect((await post(admin, "/t/me/sessions/revoke-others")).status).toBe(200);
  });
});

describe("POST /t/me/sessions/revoke-others", () => {
  it("ends every managed session except the current one", async () => {
    const { student } = await schoolWithStudent();
    const current = await signInOn(student);
    const second = await signInOn(student);
    const third = await signInOn(student, { browser: true });
    const res = await post(current, "/t/me/sessions/revoke-others");
    expect(res.body).toEqual({ success: true, data: { device_id: null, revoked_sessions: 2 } });
    expect(await tokenWorks(current)).toBe(true);
    expect(await tokenWorks(second)).toBe(false);
    expect(await tokenWorks(third)).toBe(false);
    const reasons = (await eventTypes(student.id)).filter((e) => e.type === "session_revoked").map((e) => e.detail?.reason);
    expect(reasons).toEqual(["revoke_others", "revoke_others"]);
  });
});

describe("admin device actions", () => {
  it("revoke ends the device's sessions", async () => {
    const { admin, student } = await schoolWithStudent();
    const s = await signInOn(student);
    const res = await post(admin, `/t/users/${student.id}/devices/${s.authDeviceId}/revoke`);
    expect(res.body).toEqual({ success: true, data: { device_id: s.authDeviceId, revoked_sessions: 1 } });
    expect(await tokenWorks(s)).toBe(false);
    const event = (await eventTypes(student.id)).find((e) => e.type === "session_revoked");
    expect(event).toMatchObject({ detail: { reason: "admin_revoke", sessions: 1 } });
    // Signing in again on that device is allowed (only a block forbids it).
    expect((await deviceLogin(student, { installationId: (await installation(admin, student.id, s.authDeviceId)) })).status).toBe(200);
  });

  it("block → 403 device_blocked at login and the sessions revoked; unblock lets it in again, old sessions stay revoked", async () => {
    const { admin, student } = await schoolWithStudent();
    const installationId = newInstallation();
    const s = await signInOn(student, { installationId });
    const other = await signInOn(student);

    const blocked = await post(admin, `/t/users/${student.id}/devices/${s.authDeviceId}/block`, { reason: "Reported stolen" });
    expect(blocked.status).toBe(200);
    expect(blocked.body.data).toEqual({
      device_id: s.authDeviceId,
      blocked: true,
      blocked_at: expect.any(String),
      block_reason: "Reported stolen",
      revoked_sessions: 1,
    });
    expect(await tokenWorks(s)).toBe(false);
    expect(await tokenWorks(other)).toBe(true);
    const refused = await deviceLogin(student, { installationId });
    expect([refused.status, refused.body.error]).toEqual([403, "device_blocked"]);
    const refresh = await api("/auth/refresh", { body: { refresh_token: s.refreshToken } });
    expect(failure(refresh)).toEqual({ status: 401, error: "unauthorized" });

    // Repeating changes nothing.
    const again = await post(admin, `/t/users/${student.id}/devices/${s.authDeviceId}/block`);
    expect(again.body.data).toMatchObject({ blocked: true, block_reason: "Reported stolen", revoked_sessions: 0 });

    const inventory = await tenantCall(admin, `/t/users/${student.id}/devices`);
    expect(inventory.body.data.devices.find((d: { id: string }) => d.id === s.authDeviceId)).toMatchObject({ status: "blocked", block_reason: "Reported stolen" });

    const unblocked = await post(admin, `/t/users/${student.id}/devices/${s.authDeviceId}/unblock`);
    expect(unblocked.body).toEqual({
      success: true,
      data: { device_id: s.authDeviceId, blocked: false, blocked_at: null, block_reason: null, revoked_sessions: 0 },
    });
    expect(await tokenWorks(s)).toBe(false);
    const back = await deviceLogin(student, { installationId });
    expect(back.status).toBe(200);
    expect(back.body.data.auth_device_id).toBe(s.authDeviceId);

    const types = (await eventTypes(student.id)).map((e) => e.type);
    expect(types).toEqual(["login", "login", "device_blocked", "login_refused", "device_unblocked", "login"]);
    const history = await eventTypes(student.id);
    expect(history[2]).toMatchObject({ auth_device_id: s.authDeviceId, detail: { reason: "Reported stolen", sessions: 1 } });
    expect(history[3]).toMatchObject({ auth_device_id: s.authDeviceId, detail: { reason: "device_blocked" } });
  });

  it("block takes an optional reason of up to 500 characters", async () => {
    const { admin, student } = await schoolWithStudent();
    const s = await signInOn(student);
    const long = await post(admin, `/t/users/${student.id}/devices/${s.authDeviceId}/block`, { reason: "x".repeat(501) });
    expect([long.status, long.body.error]).toEqual([400, "invalid_request_body"]);
    expect(await tokenWorks(s)).toBe(true);
    const noBody = await post(admin, `/t/users/${student.id}/devices/${s.authDeviceId}/block`);
    expect(noBody.body.data).toMatchObject({ blocked: true, block_reason: null, revoked_sessions: 1 });
  });

  it("block accepts a reason of exactly 500 characters", async () => {
    const { admin, student } = await schoolWithStudent();
    const s = await signInOn(student);
    const reason = "y".repeat(500);
    const res = await post(admin, `/t/users/${student.id}/devices/${s.authDeviceId}/block`, { reason });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ device_id: s.authDeviceId, blocked: true, block_reason: reason, revoked_sessions: 1 });
    expect(await tokenWorks(s)).toBe(false);
  });

  it("revoke-all ends every managed session of the student", async () => {
    const { admin, student } = await schoolWithStudent();
    const a = await signInOn(student);
    const b = await signInOn(student);
    const res = await post(admin, `/t/users/${student.id}/sessions/revoke-all`);
    expect(res.body).toEqual({ success: true, data: { device_id: null, revoked_sessions: 2 } });
    expect(await tokenWorks(a)).toBe(false);
    expect(await tokenWorks(b)).toBe(false);
    expect(await tokenWorks(admin)).toBe(true);
    const events = (await eventTypes(student.id)).filter((e) => e.type === "session_revoked");
    expect(events.map((e) => e.detail)).toEqual([
      { reason: "admin_revoke_all", sessions: 1 },
      { reason: "admin_revoke_all", sessions: 1 },
    ]);
    const history = await tenantCall(admin, `/t/users/${student.id}/device-events`);
    expect(history.body.data.events.filter((e: { type: string }) => e.type === "session_revoked").map((e: { actor_user_id: string }) => e.actor_user_id)).toEqual([
      admin.id,
      admin.id,
    ]);
  });

  it("404 user_not_found for non-students and other schools, 404 device_not_found for a device of someone else, 403 for non-admins", async () => {
    const { school, admin, student } = await schoolWithStudent();
    const s = await signInOn(student);
    const other = await schoolWithStudent();
    const foreign = await signInOn(other.student);
    const adminDevice = (await tenantCall(admin, "/t/me/devices")).body.data.devices[0].id;
    const actions = ["revoke", "block", "unblock"];
    for (const action of actions) {
      const wrongUser = await post(admin, `/t/users/${admin.id}/devices/${adminDevice}/${action}`);
      expect([action, wrongUser.status, wrongUser.body.error]).toEqual([action, 404, "user_not_found"]);
      const otherSchool = await post(admin, `/t/users/${other.student.id}/devices/${foreign.authDeviceId}/${action}`);
      expect([action, otherSchool.status, otherSchool.body.error]).toEqual([action, 404, "user_not_found"]);
      const wrongDevice = await post(admin, `/t/users/${student.id}/devices/${foreign.authDeviceId}/${action}`);
      expect([action, wrongDevice.status, wrongDevice.body.error]).toEqual([action, 404, "device_not_found"]);
    }
    const all = await post(admin, `/t/users/${other.student.id}/sessions/revoke-all`);
    expect([all.status, all.body.error]).toEqual([404, "user_not_found"]);
    expect(await tokenWorks(foreign)).toBe(true);

    const curator = await createUser(school.id, { role: "curator", permissions: { can_manage_students: true, can_manage_groups: true } });
    const curatorSession = await login(curator, { subdomain: school.subdomain });
    for (const path of [`/t/users/${student.id}/devices/${s.authDeviceId}/block`, `/t/users/${student.id}/sessions/revoke-all`]) {
      for (const token of [s.token, curatorSession.token]) {
        const res = await api(path, { method: "POST", token, tenant: school.subdomain });
        expect([res.status, res.body.error]).toEqual([403, "forbidden"]);
      }
    }
    expect(await tokenWorks(s)).toBe(true);
  });
});

describe("history of a whole session life", () => {
  it("records login, logout, refusal and revocation", async () => {
    const { admin, student } = await schoolWithStudent();
    await setPolicy(admin, { mode: "enforce", max_active_devices: 1 });
    const s = await signInOn(student);
    expect((await deviceLogin(student)).status).toBe(409);
    const logout = await api("/auth/logout", { body: { refresh_token: s.refreshToken } });
    expect(logout.status).toBe(200);
    const t = await signInOn(student);
    await post(admin, `/t/users/${student.id}/devices/${t.authDeviceId}/revoke`);
    expect((await eventTypes(student.id)).map((e) => e.type)).toEqual(["login", "login_refused", "logout", "login", "session_revoked"]);
  });
});

async function installation(admin: { token: string; subdomain: string }, userId: string, deviceId: string): Promise<string> {
  const devices = (await tenantCall(admin, `/t/users/${userId}/devices`)).body.data.devices as { id: string; installation_id: string }[];
  return devices.find((d) => d.id === deviceId)!.installation_id;
}
