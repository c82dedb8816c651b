import { describe, expect, it } from "vitest";
import { api } from "../helpers/http";
import { deviceLogin, newInstallation, schoolWithStudent, setPolicy, signInOn, tenantCall } from "../helpers/devices";
import { unknownId } from "../helpers/users";
import { auditActions, auditLog, auditRows } from "./helpers";

describe("audit entries of device management", () => {
  it("device.blocked and device.unblocked with before and after; a repeat writes none", async () => {
    const { admin, student } = await schoolWithStudent();
    const device = await signInOn(student);
    const base = `/t/users/${student.id}/devices/${device.authDeviceId}`;
    expect((await tenantCall(admin, `${base}/block`, { method: "POST", body: { reason: "Lost" } })).status).toBe(200);
    expect((await tenantCall(admin, `${base}/block`, { method: "POST", body: { reason: "Again" } })).status).toBe(200);
    expect((await tenantCall(admin, `${base}/unblock`, { method: "POST" })).status).toBe(200);
    expect((await tenantCall(admin, `${base}/unblock`, { method: "POST" })).status).toBe(200);
    expect((await tenantCall(admin, `/t/users/${student.id}/devices/${unknownId()}/block`, { method: "POST" })).status).toBe(404);
    expect(await auditActions(admin)).toEqual([
      { action: "device.unblocked", target_id: device.authDeviceId, changes: { blocked: [true, false], block_reason: ["Lost", null] } },
      { action: "device.blocked", target_id: device.authDeviceId, changes: { blocked: [false, true], block_reason: [null, "Lost"] } },
    ]);
  });

  it("session.revoked per session ended; none when nothing was live", async () => {
    const { admin, student } = await schoolWithStudent();
    const one = await signInOn(student);
    const two = await signInOn(student);
    expect((await tenantCall(admin, `/t/users/${student.id}/devices/${one.authDeviceId}/revoke`, { method: "POST" })).status).toBe(200);
    expect((await tenantCall(admin, `/t/users/${student.id}/devices/${one.authDeviceId}/revoke`, { method: "POST" })).status).toBe(200);
    expect((await tenantCall(admin, `/t/users/${student.id}/sessions/revoke-all`, { method: "POST" })).status).toBe(200);
    expect((await tenantCall(admin, `/t/users/${student.id}/sessions/revoke-all`, { method: "POST" })).status).toBe(200);
    expect(await auditActions(admin)).toEqual([
      { action: "session.revoked", target_id: two.sessionId, changes: { revoked: [false, true] } },
      { action: "session.revoked", target_id: one.sessionId, changes: { revoked: [false, true] } },
    ]);
    expect((await auditLog(admin)).entries.map((entry) => entry.target_type)).toEqual(["session", "session"]);
  });

  it("device_policy.updated from the defaults, then from the saved policy; the same values again write none", async () => {
    const { admin } = await schoolWithStudent();
    await setPolicy(admin, { mode: "enforce", max_active_devices: 2, allow_self_replacement: false });
    await setPolicy(admin, { max_active_devices: 3, allow_self_replacement: false });
    await setPolicy(admin, { max_active_devices: 3 });
    const entries = await auditActions(admin);
    expect(entries.length).toBe(2);
    expect(entries[0]).toEqual({ action: "device_policy.updated", target_id: admin.tenantId, changes: { max_active_devices: [2, 3] } });
    expect(entries[1]!.action).toBe("device_policy.updated");
    expect(entries[1]!.changes.max_active_devices![1]).toBe(2);
    expect(entries[1]!.changes.allow_self_replacement).toEqual([true, false]);
  });

  it("device_override.set and .removed; a 404 removal writes none", async () => {
    const { admin, student } = await schoolWithStudent();
    const path = `/t/users/${student.id}/device-policy-override`;
    expect((await tenantCall(admin, path, { method: "PUT", body: { unlimited_devices: false, max_active_devices: 4, reason: "Two tablets" } })).status).toBe(200);
    expect((await tenantCall(admin, path, { method: "PUT", body: { unlimited_devices: true } })).status).toBe(200);
    expect((await tenantCall(admin, path, { method: "DELETE" })).status).toBe(200);
    expect((await tenantCall(admin, path, { method: "DELETE" })).status).toBe(404);
    expect(await auditActions(admin)).toEqual([
      { action: "device_override.removed", target_id: student.id, changes: { unlimited_devices: [true, null] } },
      // A PUT replaces the whole override: the reason not sent again goes.
      { action: "device_override.set", target_id: student.id, changes: { unlimited_devices: [false, true], max_active_devices: [4, null], reason: ["Two tablets", null] } },
      { action: "device_override.set", target_id: student.id, changes: { unlimited_devices: [null, false], max_active_devices: [null, 4], reason: [null, "Two tablets"] } },
    ]);
  });

  it("device.replaced with the student as actor, once", async () => {
    const { admin, student } = await schoolWithStudent();
    await setPolicy(admin, { mode: "enforce", max_active_devices: 1 });
    const old = await signInOn(student);
    const refused = await deviceLogin(student, { installationId: newInstallation() });
    expect(refused.status).toBe(409);
    const body = { replacement_token: refused.body.data.replacement_token, revoke_device_id: old.authDeviceId, tenant_subdomain: student.subdomain };
    expect((await api("/auth/device-limit/replace", { body })).status).toBe(200);
    expect((await api("/auth/device-limit/replace", { body })).status).toBe(409);
    const entries = (await auditLog(admin, "action=device.replaced")).entries;
    expect(entries.map((entry) => [entry.action, entry.target_type, entry.target_id, entry.actor, entry.changes])).toEqual([
      ["device.replaced", "device", old.authDeviceId, { id: student.id, role: "student", name: "Test User" }, {}],
    ]);
    expect((await auditRows(student.tenantId)).filter((row) => row.action === "device.replaced").length).toBe(1);
  });
});
