import { describe, expect, it } from "vitest";
import { setClockForTests } from "../../src/core/lib/clock";
import { refreshNative } from "../helpers/auth";
import { newInstallation, schoolWithStudent, signInOn, tenantCall, tokenWorks } from "../helpers/devices";
import { api, failure } from "../helpers/http";
import { byDevice, historyOf } from "../helpers/history";
import { emailsTo } from "../helpers/outbox";
import { expectSignedOut, UNAUTHORIZED } from "../helpers/sessions";

const CLIENT_IP = "192.0.2.10";
const revokedEvent = (
  device: { authDeviceId: string },
  detail: { reason: string; sessions: number },
  who: { session?: string | null; actor?: string | null; ip?: string | null } = {},
) => ({
  type: "session_revoked",
  auth_device_id: device.authDeviceId,
  // One session ended on the device: the event names it; several: it names none.
  session_id: who.session ?? null,
  actor_user_id: who.actor ?? null,
  ip: who.ip ?? null,
  detail,
});

/** Every path that ends sessions leaves `session_revoked` events with its reason (issue: security history). */
describe("security history of sessions ended outside the device endpoints", () => {
  it("password reset: one event for the device whose session ended, no actor", async () => {
    const { student } = await schoolWithStudent();
    const session = await signInOn(student);
    expect((await api("/auth/forgot-password", { body: { email: student.email, subdomain: student.subdomain } })).status).toBe(200);
    const [email] = await emailsTo(student.email);
    const res = await api("/auth/reset-password", {
      body: { email: student.email, subdomain: student.subdomain, code: email!.metaJson.code, new_password: "a-new-password" },
    });
    expect(res.status).toBe(200);
    await expectSignedOut(session);
    expect(await historyOf(student.id, "session_revoked")).toEqual([
      revokedEvent(session, { reason: "password_reset", sessions: 1 }, { session: session.sessionId }),
    ]);
  });

  it("password change ends the other sessions only", async () => {
    const { student } = await schoolWithStudent();
    const current = await signInOn(student);
    const other = await signInOn(student);
    const res = await tenantCall(current, "/t/me/password", {
      method: "POST",
      body: { current_password: student.password, new_password: "another-password-1" },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.other_sessions_revoked).toBe(1);
    expect(await tokenWorks(current)).toBe(true);
    await expectSignedOut(other);
    expect(await historyOf(student.id, "session_revoked")).toEqual([
      revokedEvent(other, { reason: "password_change", sessions: 1 }, { session: other.sessionId }),
    ]);
  });

  it("deactivation (single and bulk) and deletion, with the staff member as actor", async () => {
    const { admin, student } = await schoolWithStudent();
    const single = await signInOn(student);
    const deactivated = await tenantCall(admin, `/t/users/${student.id}`, { method: "PUT", body: { is_active: false } });
    expect(deactivated.status).toBe(200);
    await expectSignedOut(single);
    expect(await historyOf(student.id, "session_revoked")).toEqual([
      revokedEvent(single, { reason: "user_deactivated", sessions: 1 }, { session: single.sessionId, actor: admin.id }),
    ]);

    const { admin: bulkAdmin, student: bulkStudent } = await schoolWithStudent();
    const bulk = await signInOn(bulkStudent);
    expect((await tenantCall(bulkAdmin, "/t/users/bulk-deactivate", { method: "POST", body: { ids: [bulkStudent.id] } })).status).toBe(200);
    await expectSignedOut(bulk);
    // A repeat ends nothing more and records nothing more.
    expect((await tenantCall(bulkAdmin, "/t/users/bulk-deactivate", { method: "POST", body: { ids: [bulkStudent.id] } })).status).toBe(200);
    expect(await historyOf(bulkStudent.id, "session_revoked")).toEqual([
      revokedEvent(bulk, { reason: "user_deactivated", sessions: 1 }, { session: bulk.sessionId, actor: bulkAdmin.id }),
    ]);

    const { admin: otherAdmin, student: removed } = await schoolWithStudent();
    const gone = await signInOn(removed);
    expect((await tenantCall(otherAdmin, `/t/users/${removed.id}`, { method: "DELETE" })).status).toBe(200);
    expect(await historyOf(removed.id, "session_revoked")).toEqual([
      revokedEvent(gone, { reason: "user_deleted", sessions: 1 }, { session: gone.sessionId, actor: otherAdmin.id }),
    ]);
  });
});

describe("security history of the device endpoints", () => {
  it("single revoke: the student's own (with the caller's address) and the admin's (with the admin as actor, no address)", async () => {
    const { admin, student } = await schoolWithStudent();
    const laptop = await signInOn(student);
    const phone = await signInOn(student);
    const tablet = await signInOn(student);

    const own = await api(`/t/me/devices/${phone.authDeviceId}/revoke`, {
      method: "POST",
      token: laptop.token,
      tenant: student.subdomain,
      headers: { "cf-connecting-ip": CLIENT_IP },
    });
    expect(own.status).toBe(200);
    const byAdmin = await tenantCall(admin, `/t/users/${student.id}/devices/${tablet.authDeviceId}/revoke`, { method: "POST" });
    expect(byAdmin.status).toBe(200);

    expect(byDevice(await historyOf(student.id, "session_revoked"))).toEqual(
      byDevice([
        revokedEvent(phone, { reason: "self_revoke", sessions: 1 }, { session: phone.sessionId, ip: CLIENT_IP }),
        revokedEvent(tablet, { reason: "admin_revoke", sessions: 1 }, { session: tablet.sessionId, actor: admin.id }),
      ]),
    );
    expect(await tokenWorks(laptop)).toBe(true);
  });

  it("bulk revoke-others: one event per other device with its session count; the current device has none", async () => {
    const { student } = await schoolWithStudent();
    const current = await signInOn(student);
    const installationId = newInstallation();
    // Two sessions of one installation are one device.
    const twiceFirst = await signInOn(student, { installationId });
    const twiceSecond = await signInOn(student, { installationId });
    expect(twiceSecond.authDeviceId).toBe(twiceFirst.authDeviceId);
    const once = await signInOn(student);

    const res = await api("/t/me/sessions/revoke-others", {
      method: "POST",
      token: current.token,
      tenant: student.subdomain,
      headers: { "cf-connecting-ip": CLIENT_IP },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ device_id: null, revoked_sessions: 3 });
    expect(byDevice(await historyOf(student.id, "session_revoked"))).toEqual(
      byDevice([
        revokedEvent(twiceFirst, { reason: "revoke_others", sessions: 2 }, { ip: CLIENT_IP }),
        revokedEvent(once, { reason: "revoke_others", sessions: 1 }, { session: once.sessionId, ip: CLIENT_IP }),
      ]),
    );
    expect(await tokenWorks(current)).toBe(true);
  });

  it("bulk revoke-all by the admin: one event per device, the admin as actor, no address", async () => {
    const { admin, student } = await schoolWithStudent();
    const installationId = newInstallation();
    const twiceFirst = await signInOn(student, { installationId });
    await signInOn(student, { installationId });
    const once = await signInOn(student);

    const res = await tenantCall(admin, `/t/users/${student.id}/sessions/revoke-all`, { method: "POST" });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ device_id: null, revoked_sessions: 3 });
    expect(byDevice(await historyOf(student.id, "session_revoked"))).toEqual(
      byDevice([
        revokedEvent(twiceFirst, { reason: "admin_revoke_all", sessions: 2 }, { actor: admin.id }),
        revokedEvent(once, { reason: "admin_revoke_all", sessions: 1 }, { session: once.sessionId, actor: admin.id }),
      ]),
    );
    // A repeat finds nothing live and records nothing.
    expect((await tenantCall(admin, `/t/users/${student.id}/sessions/revoke-all`, { method: "POST" })).body.data.revoked_sessions).toBe(0);
    expect(await historyOf(student.id, "session_revoked")).toHaveLength(2);
  });
});

describe("security history of sign-out and refresh-token reuse", () => {
  it("logout records a `logout` event with the caller's address and no session_revoked", async () => {
    const { student } = await schoolWithStudent();
    const session = await signInOn(student);
    const out = await api("/auth/logout", { body: { refresh_token: session.refreshToken }, headers: { "cf-connecting-ip": CLIENT_IP } });
    expect(out.status).toBe(200);
    expect(await historyOf(student.id, "logout")).toEqual([
      { type: "logout", auth_device_id: session.authDeviceId, session_id: session.sessionId, actor_user_id: null, ip: CLIENT_IP, detail: null },
    ]);
    expect(await historyOf(student.id, "session_revoked")).toEqual([]);
  });

  it("confirmed reuse records session_revoked (refresh_token_reuse) for that session with the replayer's address; other devices record nothing", async () => {
    const { student } = await schoolWithStudent();
    const stolen = await signInOn(student);
    const untouched = await signInOn(student);
    const rotated = await refreshNative(stolen.refreshToken);
    expect(rotated.status).toBe(200);
    const later = Date.now() + 11_000;
    setClockForTests({ now: () => later });

    const replay = await api("/auth/refresh", { body: { refresh_token: stolen.refreshToken }, headers: { "cf-connecting-ip": CLIENT_IP } });
    expect(failure(replay)).toEqual(UNAUTHORIZED);
    expect(await historyOf(student.id, "session_revoked")).toEqual([
      revokedEvent(stolen, { reason: "refresh_token_reuse", sessions: 1 }, { session: stolen.sessionId, ip: CLIENT_IP }),
    ]);
    await expectSignedOut({ token: rotated.body.data.token, subdomain: student.subdomain });
    expect(await tokenWorks(untouched)).toBe(true);

    // A second replay finds the session ended: refused again, recorded once.
    expect(failure(await refreshNative(stolen.refreshToken))).toEqual(UNAUTHORIZED);
    expect(await historyOf(student.id, "session_revoked")).toHaveLength(1);
  });
});
