import { describe, expect, it } from "vitest";
import { api, failure } from "../helpers/http";
import { deviceLogin, newInstallation, setPolicy, signInOn } from "../helpers/devices";
import { createUser } from "../helpers/factories";
import { as, curatorWith, schoolWithAdmin, signedIn } from "../helpers/users";
import { auditLog, auditRows } from "./helpers";

describe("GET /t/audit-log", () => {
  it("filters by actor, action, target and time; pages newest first with the total", async () => {
    const { school, admin } = await schoolWithAdmin();
    const other = await signedIn(school, { role: "admin" });
    const [a, b] = [await createUser(school.id, { role: "student" }), await createUser(school.id, { role: "student" })];
    expect((await as(admin, `/t/users/${a.id}`, { method: "PUT", body: { first_name: "Aa" } })).status).toBe(200);
    expect((await as(admin, `/t/users/${b.id}`, { method: "PUT", body: { first_name: "Bb" } })).status).toBe(200);
    expect((await as(other, `/t/users/${a.id}/role`, { method: "PUT", body: { role: "curator" } })).status).toBe(200);

    const all = await auditLog(admin);
    expect([all.total, all.page, all.limit, all.entries.map((entry) => entry.action)]).toEqual([3, 1, 50, ["user.role_changed", "user.updated", "user.updated"]]);
    expect((await auditLog(admin, `actor_id=${other.id}`)).entries.map((entry) => entry.action)).toEqual(["user.role_changed"]);
    expect((await auditLog(admin, "action=user.updated")).total).toBe(2);
    expect((await auditLog(admin, `target_type=user&target_id=${a.id}`)).entries.map((entry) => entry.action)).toEqual(["user.role_changed", "user.updated"]);
    expect((await auditLog(admin, "action=user.purged")).entries).toEqual([]);
    const second = await auditLog(admin, "limit=2&page=2");
    expect([second.total, second.page, second.limit, second.entries.map((entry) => entry.id)]).toEqual([3, 2, 2, [all.entries[2]!.id]]);
    expect((await auditLog(admin, "limit=2&page=9")).entries).toEqual([]);
    const future = new Date(Date.now() + 60_000).toISOString();
    expect((await auditLog(admin, `from=${encodeURIComponent(future)}`)).total).toBe(0);
    expect((await auditLog(admin, `to=${encodeURIComponent(future)}&from=2020-01-01T00:00:00Z`)).total).toBe(3);
  });

  it("shows only the school's own entries", async () => {
    const one = await schoolWithAdmin();
    const two = await schoolWithAdmin();
    const student = await createUser(one.school.id, { role: "student" });
    expect((await as(one.admin, `/t/users/${student.id}`, { method: "PUT", body: { first_name: "Zz" } })).status).toBe(200);
    expect((await auditLog(two.admin)).total).toBe(0);
    expect((await auditLog(two.admin, `target_id=${student.id}`)).total).toBe(0);
  });

  it("403 forbidden for curators and students; 400 invalid_params for bad query values", async () => {
    const { school, admin } = await schoolWithAdmin();
    const curator = await signedIn(school, curatorWith({ can_manage_students: true, can_view_analytics: true }));
    const student = await signedIn(school, { role: "student" });
    for (const who of [curator, student]) {
      expect(failure(await as(who, "/t/audit-log"))).toEqual({ status: 403, error: "forbidden" });
    }
    for (const query of [
      "limit=0",
      "limit=101",
      "page=0",
      "page=-1",
      "actor_id=not-a-uuid",
      "from=yesterday",
      "to=2026-13-01T00:00:00Z",
      "from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z",
      "action=" + "a".repeat(65),
      "action=USER.UPDATED",
      "target_id=" + encodeURIComponent("x\u202Ey"),
      "target_type=" + encodeURIComponent("user'; DROP"),
    ]) {
      expect([query, failure(await as(admin, `/t/audit-log?${query}`))]).toEqual([query, { status: 400, error: "invalid_params" }]);
    }
  });

  it("no stored entry carries a password, a hash, a token or a webhook secret", async () => {
    const { school, admin } = await schoolWithAdmin();
    // Staff actions, a password change, a reset request and a device replacement in the school.
    const created = await as(admin, "/t/users", {
      method: "POST",
      body: { email: "scan.me@example.test", password: "Sup3r-secret-pass", first_name: "Scan", last_name: "Me", role: "student" },
    });
    expect(created.status).toBe(201);
    const studentId = created.body.data.id as string;
    expect((await as(admin, `/t/users/${studentId}`, { method: "PUT", body: { last_name: "Again", is_active: false } })).status).toBe(200);
    expect((await as(admin, `/t/users/${studentId}`, { method: "PUT", body: { is_active: true } })).status).toBe(200);
    const self = await signedIn(school, { role: "student" });
    expect((await as(self, "/t/me/password", { method: "POST", body: { current_password: self.password, new_password: "An0ther-secret-pass" } })).status).toBe(200);
    expect((await api("/auth/forgot-password", { body: { email: self.email, subdomain: school.subdomain } })).status).toBeLessThan(500);
    await setPolicy(admin, { mode: "enforce", max_active_devices: 1 });
    const device = await createUser(school.id, { role: "student" });
    const person = { ...device, subdomain: school.subdomain, tenantId: school.id };
    const old = await signInOn(person);
    const refused = await deviceLogin(person, { installationId: newInstallation() });
    expect(refused.status).toBe(409);
    const token = refused.body.data.replacement_token as string;
    expect((await api("/auth/device-limit/replace", { body: { replacement_token: token, revoke_device_id: old.authDeviceId, tenant_subdomain: school.subdomain } })).status).toBe(200);
    expect((await as(admin, `/t/users/${studentId}/permanent`, { method: "DELETE" })).status).toBe(200);

    const rows = await auditRows(school.id);
    expect(rows.length).toBeGreaterThanOrEqual(5);
    const stored = JSON.stringify(rows);
    for (const secret of ["Sup3r-secret-pass", "An0ther-secret-pass", token, old.token, old.refreshToken, "whsec_", "$argon", "$pbkdf2", "pbkdf2", "password"]) {
      expect(stored.includes(secret), secret).toBe(false);
    }
    expect(stored).not.toMatch(/"[^"]*(hash|token|secret)[^"]*":/i);
  });
});
