import { describe, expect, it } from "vitest";
import { createSchool, createUser, login } from "../helpers/factories";
import { api, failure } from "../helpers/http";
import { schoolWithStudent, signInOn, tenantCall } from "../helpers/devices";

const DEFAULTS = {
  mode: "monitor_only",
  max_active_devices: null,
  inactive_device_days: 30,
  allow_self_management: true,
  allow_self_replacement: true,
  notify_on_new_device: true,
  revoke_on_password_change: true,
  revoke_on_password_reset: true,
  session_idle_timeout_minutes: 20_160,
  session_absolute_lifetime_days: 90,
  event_retention_days: 180,
  ip_visibility: "masked",
  updated_at: null,
};

const patch = (who: { token: string; subdomain: string }, body: unknown) => tenantCall(who, "/t/tenant/device-policy", { method: "PATCH", body });

describe("GET /t/tenant/device-policy", () => {
  it("returns the defaults until an admin saves a policy, to any member", async () => {
    const { admin, student } = await schoolWithStudent();
    const studentSession = await signInOn(student);
    for (const who of [admin, studentSession]) {
      const res = await tenantCall(who, "/t/tenant/device-policy");
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, data: DEFAULTS });
    }
  });
});

describe("PATCH /t/tenant/device-policy", () => {
  it("changes only the fields sent and keeps the rest", async () => {
    const { admin } = await schoolWithStudent();
    const first = await patch(admin, { mode: "enforce", max_active_devices: 3 });
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual({ ...DEFAULTS, mode: "enforce", max_active_devices: 3, updated_at: expect.any(String) });

    const second = await patch(admin, { ip_visibility: "full", session_idle_timeout_minutes: 5, event_retention_days: 3650 });
    expect(second.body.data).toMatchObject({ mode: "enforce", max_active_devices: 3, ip_visibility: "full", session_idle_timeout_minutes: 5, event_retention_days: 3650 });

    const all = {
      mode: "monitor_only",
      max_active_devices: 10,
      inactive_device_days: 365,
      allow_self_management: false,
      allow_self_replacement: false,
      notify_on_new_device: false,
      revoke_on_password_change: false,
      revoke_on_password_reset: false,
      session_idle_timeout_minutes: 525_600,
      session_absolute_lifetime_days: 365,
      event_retention_days: 1,
      ip_visibility: "none",
    };
    const third = await patch(admin, all);
    expect(third.body.data).toEqual({ ...all, updated_at: expect.any(String) });
    const read = await tenantCall(admin, "/t/tenant/device-policy");
    expect(read.body.data).toEqual(third.body.data);
  });

  it("explicit null for max_active_devices means no limit; an empty body changes nothing", async () => {
    const { admin } = await schoolWithStudent();
    await patch(admin, { max_active_devices: 4 });
    const cleared = await patch(admin, { max_active_devices: null });
    expect(cleared.body.data.max_active_devices).toBeNull();
    const empty = await patch(admin, {});
    expect(empty.status).toBe(200);
    expect(empty.body.data.max_active_devices).toBeNull();
  });

  it("400 invalid_device_policy for every value out of range, and nothing is saved", async () => {
    const { admin } = await schoolWithStudent();
    const bad = [
      { mode: "strict" },
      { max_active_devices: 0 },
      { max_active_devices: 11 },
      { max_active_devices: 2.5 },
      { inactive_device_days: 0 },
      { inactive_device_days: 366 },
      { session_idle_timeout_minutes: 4 },
      { session_idle_timeout_minutes: 525_601 },
      { session_absolute_lifetime_days: 0 },
      { session_absolute_lifetime_days: 366 },
      { event_retention_days: 0 },
      { event_retention_days: 3651 },
      { ip_visibility: "partial" },
      { allow_self_management: "yes" },
      { inactive_device_days: null },
      { unknown_field: true },
    ];
    for (const body of bad) {
      const res = await patch(admin, body);
      expect({ body, status: res.status, error: res.body.error }).toEqual({ body, status: 400, error: "invalid_device_policy" });
    }
    const malformed = await api("/t/tenant/device-policy", { method: "PATCH", raw: "{not json", token: admin.token, tenant: admin.subdomain });
    expect([malformed.status, malformed.body.error]).toEqual([400, "invalid_device_policy"]);
    const read = await tenantCall(admin, "/t/tenant/device-policy");
    expect(read.body.data).toEqual(DEFAULTS);
  });

  it("403 forbidden for students and curators; the superadmin may change any school's policy", async () => {
    const { school, student } = await schoolWithStudent();
    const studentSession = await signInOn(student);
    const curator = await createUser(school.id, { role: "curator", permissions: { can_manage_students: true, can_manage_groups: true } });
    const curatorSession = await login(curator, { subdomain: school.subdomain });
    for (const who of [studentSession, { token: curatorSession.token, subdomain: school.subdomain }]) {
      const res = await patch(who, { mode: "enforce" });
      expect([res.status, res.body.error]).toEqual([403, "forbidden"]);
    }
    const superadmin = await createUser(null);
    const superSession = await login(superadmin, { subdomain: "" });
    const res = await patch({ token: superSession.token, subdomain: school.subdomain }, { mode: "enforce" });
    expect(res.status).toBe(200);
    expect((await tenantCall(studentSession, "/t/tenant/device-policy")).body.data.mode).toBe("enforce");
  });

  it("is per school: another school's admin cannot touch it (401 for a foreign school header)", async () => {
    const { admin } = await schoolWithStudent();
    const other = await createSchool();
    const res = await api("/t/tenant/device-policy", { method: "PATCH", body: { mode: "enforce" }, token: admin.token, tenant: other.subdomain });
    expect(failure(res)).toEqual({ status: 401, error: "unauthorized" });
    const otherAdmin = await createUser(other.id, { role: "admin" });
    const otherSession = await login(otherAdmin, { subdomain: other.subdomain });
    expect((await patch({ token: otherSession.token, subdomain: other.subdomain }, { mode: "enforce" })).status).toBe(200);
    expect((await tenantCall(admin, "/t/tenant/device-policy")).body.data.mode).toBe("monitor_only");
  });
});

describe("PATCH /t/tenant/device-policy range boundaries", () => {
  const ranges: [field: string, min: number, max: number][] = [
    ["max_active_devices", 1, 10],
    ["inactive_device_days", 1, 365],
    ["session_idle_timeout_minutes", 5, 525_600],
    ["session_absolute_lifetime_days", 1, 365],
    ["event_retention_days", 1, 3650],
  ];

  it("accepts the lowest and the highest value of every range and stores it", async () => {
    const { admin } = await schoolWithStudent();
    for (const [field, min, max] of ranges) {
      for (const value of [min, max]) {
        const res = await patch(admin, { [field]: value });
        expect({ field, value, status: res.status, stored: res.body.data?.[field] }).toEqual({ field, value, status: 200, stored: value });
        expect((await tenantCall(admin, "/t/tenant/device-policy")).body.data[field]).toBe(value);
      }
    }
  });
});
