import { describe, expect, it } from "vitest";
import { DAY_MS, HOUR_MS, setClockForTests } from "../../src/core/lib/clock";
import { createUser, login } from "../helpers/factories";
import { addStudent, deviceLogin, schoolWithStudent, setPolicy, signInOn, tenantCall } from "../helpers/devices";

const path = (userId: string) => `/t/users/${userId}/device-policy-override`;

describe("per-student device override", () => {
  it("GET is 404 while the school defaults apply; PUT creates and replaces; DELETE removes", async () => {
    const { admin, student } = await schoolWithStudent();
    const none = await tenantCall(admin, path(student.id));
    expect([none.status, none.body.error]).toEqual([404, "device_policy_override_not_found"]);

    const expiresAt = new Date(Date.now() + 7 * DAY_MS).toISOString();
    const put = await tenantCall(admin, path(student.id), {
      method: "PUT",
      body: { unlimited_devices: false, max_active_devices: 4, expires_at: expiresAt, reason: "two phones and a tablet" },
    });
    expect(put.status).toBe(200);
    expect(put.body.data).toEqual({
      user_id: student.id,
      unlimited_devices: false,
      max_active_devices: 4,
      expires_at: expiresAt,
      reason: "two phones and a tablet",
      created_by_user_id: admin.id,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect((await tenantCall(admin, path(student.id))).body.data).toEqual(put.body.data);

    const replaced = await tenantCall(admin, path(student.id), { method: "PUT", body: { unlimited_devices: true } });
    expect(replaced.body.data).toMatchObject({ unlimited_devices: true, max_active_devices: null, expires_at: null, reason: null });

    const deleted = await tenantCall(admin, path(student.id), { method: "DELETE" });
    expect(deleted.body).toEqual({ success: true, data: { deleted: true } });
    expect((await tenantCall(admin, path(student.id))).status).toBe(404);
    const again = await tenantCall(admin, path(student.id), { method: "DELETE" });
    expect([again.status, again.body.error]).toEqual([404, "device_policy_override_not_found"]);
  });

  it("400 invalid_request_body for a past expiry, an out-of-range limit, a limit with unlimited, a long reason", async () => {
    const { admin, student } = await schoolWithStudent();
    const bad = [
      { unlimited_devices: false, max_active_devices: 2, expires_at: new Date(Date.now() - 1000).toISOString() },
      { unlimited_devices: false, max_active_devices: 11 },
      { unlimited_devices: false, max_active_devices: 0 },
      { unlimited_devices: true, max_active_devices: 3 },
      { unlimited_devices: false, reason: "x".repeat(501) },
      { unlimited_devices: false, expires_at: "tomorrow" },
      { max_active_devices: 3 },
    ];
    for (const body of bad) {
      const res = await tenantCall(admin, path(student.id), { method: "PUT", body });
      expect({ body, status: res.status, error: res.body.error }).toEqual({ body, status: 400, error: "invalid_request_body" });
    }
    expect((await tenantCall(admin, path(student.id))).status).toBe(404);
  });

  it("404 user_not_found for staff, unknown and other-school ids; 403 for non-admins", async () => {
    const { school, admin, student } = await schoolWithStudent();
    const curator = await createUser(school.id, { role: "curator", permissions: { can_manage_students: true } });
    const other = await schoolWithStudent();
    for (const id of [curator.id, admin.id, other.student.id, "0190a6c2-1111-7000-8000-000000000001"]) {
      for (const method of ["GET", "PUT", "DELETE"]) {
        const res = await tenantCall(admin, path(id), { method, body: method === "PUT" ? { unlimited_devices: true } : undefined });
        expect({ id, method, status: res.status, error: res.body.error }).toEqual({ id, method, status: 404, error: "user_not_found" });
      }
    }
    const bad = await tenantCall(admin, path("not-a-uuid"));
    expect([bad.status, bad.body.error]).toEqual([400, "invalid_id_format"]);
    const curatorSession = await login(curator, { subdomain: school.subdomain });
    const denied = await tenantCall({ token: curatorSession.token, subdomain: school.subdomain }, path(student.id), { method: "PUT", body: { unlimited_devices: true } });
    expect([denied.status, denied.body.error]).toEqual([403, "forbidden"]);
  });

  it("DELETE for a user who is no longer a student answers 404 user_not_found and removes nothing", async () => {
    const { admin, student } = await schoolWithStudent();
    expect((await tenantCall(admin, path(student.id), { method: "PUT", body: { unlimited_devices: true, reason: "kept" } })).status).toBe(200);
    const setRole = (role: string) => tenantCall(admin, `/t/users/${student.id}/role`, { method: "PUT", body: { role } });
    expect((await setRole("curator")).status).toBe(200);

    const refused = await tenantCall(admin, path(student.id), { method: "DELETE" });
    expect([refused.status, refused.body.error]).toEqual([404, "user_not_found"]);

    expect((await setRole("student")).status).toBe(200);
    const kept = await tenantCall(admin, path(student.id));
    expect([kept.status, kept.body.data?.reason]).toEqual([200, "kept"]);
  });

  it("takes precedence over the school limit at login and in the inventory", async () => {
    const { school, admin, student } = await schoolWithStudent();
    const neighbour = await addStudent(school);
    await setPolicy(admin, { mode: "enforce", max_active_devices: 1 });
    await tenantCall(admin, path(student.id), { method: "PUT", body: { unlimited_devices: false, max_active_devices: 2 } });

    const a = await signInOn(student);
    await signInOn(student);
    expect((await deviceLogin(student)).status).toBe(409);
    // The school limit still holds for everyone else.
    await signInOn(neighbour);
    expect((await deviceLogin(neighbour)).status).toBe(409);

    const mine = await tenantCall(a, "/t/me/devices");
    expect(mine.body.data).toMatchObject({ max_active_devices: 2, active_devices: 2 });
    const inventory = await tenantCall(admin, `/t/users/${student.id}/devices`);
    expect(inventory.body.data).toMatchObject({ max_active_devices: 2, limit_source: "override", mode: "enforce", override: { max_active_devices: 2 } });

    await tenantCall(admin, path(student.id), { method: "PUT", body: { unlimited_devices: true } });
    await signInOn(student);
    await signInOn(student);
    expect((await tenantCall(admin, `/t/users/${student.id}/devices`)).body.data).toMatchObject({ max_active_devices: null, limit_source: "override", active_devices: 4 });

    // Unlimited false without a number keeps the school's limit.
    await tenantCall(admin, path(student.id), { method: "PUT", body: { unlimited_devices: false, reason: "note only" } });
    expect((await tenantCall(admin, `/t/users/${student.id}/devices`)).body.data).toMatchObject({
      max_active_devices: 1,
      limit_source: "school",
      override: { unlimited_devices: false, max_active_devices: null, reason: "note only" },
    });
  });

  it("stops applying when it expires (by the clock), and GET then answers 404", async () => {
    const { admin, student } = await schoolWithStudent();
    await setPolicy(admin, { mode: "enforce", max_active_devices: 1 });
    const t0 = Date.now();
    setClockForTests({ now: () => t0 });
    const put = await tenantCall(admin, path(student.id), {
      method: "PUT",
      body: { unlimited_devices: true, expires_at: new Date(t0 + HOUR_MS).toISOString() },
    });
    expect(put.status).toBe(200);
    await signInOn(student);
    await signInOn(student);

    setClockForTests({ now: () => t0 + HOUR_MS + 1 });
    const refused = await deviceLogin(student);
    expect([refused.status, refused.body.error]).toEqual([409, "device_limit_reached"]);
    expect(refused.body.data.max_active_devices).toBe(1);
    const fresh = await signInOn({ ...admin, role: "admin" });
    expect((await tenantCall(fresh, path(student.id))).status).toBe(404);
    expect((await tenantCall(fresh, `/t/users/${student.id}/devices`)).body.data).toMatchObject({ max_active_devices: 1, limit_source: "school", override: null });
  });
});

describe("per-student override limits at their boundaries", () => {
  it("accepts max_active_devices 1 and 10 and a reason of exactly 500 characters", async () => {
    const { admin, student } = await schoolWithStudent();
    for (const max of [1, 10]) {
      const res = await tenantCall(admin, path(student.id), { method: "PUT", body: { unlimited_devices: false, max_active_devices: max } });
      expect({ max, status: res.status, stored: res.body.data?.max_active_devices }).toEqual({ max, status: 200, stored: max });
    }
    const reason = "r".repeat(500);
    const res = await tenantCall(admin, path(student.id), { method: "PUT", body: { unlimited_devices: true, reason } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ unlimited_devices: true, reason });
    expect((await tenantCall(admin, path(student.id))).body.data.reason).toBe(reason);
  });
});
