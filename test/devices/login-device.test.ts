import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { openPushToken, pushTokenBinding, pushTokenHash, pushTokenKeys } from "../../src/platform/notifications/push-token-crypto";
import { createUser } from "../helpers/factories";
import { addStudent, deviceLogin, eventTypes, loginWithEnv, newInstallation, schoolWithStudent, setPolicy, signInOn, tenantCall } from "../helpers/devices";
import { fixtureD1 } from "../helpers/databases";

async function countRows(table: string, userId: string) {
  const row = await fixtureD1.prepare(`SELECT count(*) AS n FROM ${table} WHERE user_id = ?`).bind(userId).first<{ n: number }>();
  return row!.n;
}

describe("INSTALLATION_ID_REQUIRED rollout switch", () => {
  it("when on, refuses new student sessions without installation_id with 409 and records the refusal", async () => {
    const { admin, student } = await schoolWithStudent();
    const refused = await loginWithEnv(student, { INSTALLATION_ID_REQUIRED: "true" }, { installationId: null });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ success: false, error: "installation_id_required" });
    expect(await countRows("sessions", student.id)).toBe(0);
    expect((await eventTypes(student.id)).map((e) => [e.type, e.detail])).toEqual([["login_refused", { reason: "installation_id_required" }]]);

    const withId = await loginWithEnv(student, { INSTALLATION_ID_REQUIRED: "true" }, { installationId: newInstallation() });
    expect(withId.status).toBe(200);
    // Staff are not subject to it.
    const staff = await loginWithEnv({ ...admin, role: "admin" }, { INSTALLATION_ID_REQUIRED: "true" }, { installationId: null });
    expect(staff.status).toBe(200);
  });

  it("is off by default: a student may sign in without installation_id", async () => {
    const { student } = await schoolWithStudent();
    expect((await deviceLogin(student, { installationId: null })).status).toBe(200);
  });
});

describe("device_token at login", () => {
  it("stores the token encrypted with a keyed hash in the push registry, never in clear", async () => {
    const { student } = await schoolWithStudent();
    const installationId = newInstallation();
    const token = `fcm-token-${crypto.randomUUID()}`;
    const s = await signInOn(student, { installationId, deviceToken: token, platform: "ios", extra: { app_version: "3.1.0" } });
    const row = await fixtureD1.prepare("SELECT * FROM push_devices WHERE user_id = ?").bind(student.id).first<Record<string, unknown>>();
    expect(row).toMatchObject({ tenant_id: student.tenantId, installation_id: installationId, provider: "fcm", platform: "ios", enabled: 1, app_version: "3.1.0", deleted_at: null });
    expect(JSON.stringify(row)).not.toContain(token);
    const keys = (await pushTokenKeys(env.PUSH_TOKEN_KEY))!;
    // Sealed to the school and installation: it opens only with that binding.
    expect(await openPushToken(keys, row!.token_ciphertext as string, pushTokenBinding(student.tenantId, installationId))).toBe(token);
    await expect(openPushToken(keys, row!.token_ciphertext as string, pushTokenBinding(student.tenantId, "another-installation"))).rejects.toThrow();
    expect(row!.token_hash).toBe(await pushTokenHash(keys, token));
    expect(s.token).toEqual(expect.any(String));

    // A rotated token on the same installation updates the binding in place.
    await signInOn(student, { installationId, deviceToken: `${token}-rotated` });
    const rows = await fixtureD1.prepare("SELECT token_ciphertext FROM push_devices WHERE user_id = ?").bind(student.id).all<{ token_ciphertext: string }>();
    expect(rows.results).toHaveLength(1);
    expect(await openPushToken(keys, rows.results[0]!.token_ciphertext, pushTokenBinding(student.tenantId, installationId))).toBe(`${token}-rotated`);
  });

  it("takes a token away from the previous user of a shared installation", async () => {
    const { school, student } = await schoolWithStudent();
    const sibling = await addStudent(school);
    const installationId = newInstallation();
    const token = `fcm-token-${crypto.randomUUID()}`;
    await signInOn(student, { installationId, deviceToken: token });
    await signInOn(sibling, { installationId, deviceToken: token });
    const rows = await fixtureD1.prepare("SELECT user_id, token_hash IS NOT NULL AS has_token FROM push_devices WHERE installation_id = ? ORDER BY user_id = ?")
      .bind(installationId, sibling.id)
      .all<{ user_id: string; has_token: number }>();
    expect(rows.results).toEqual([
      { user_id: student.id, has_token: 0 },
      { user_id: sibling.id, has_token: 1 },
    ]);
  });

  it("moves a token away from the installation that held it before", async () => {
    const { student } = await schoolWithStudent();
    const token = `fcm-token-${crypto.randomUUID()}`;
    const first = newInstallation();
    await signInOn(student, { installationId: first, deviceToken: token });
    const second = newInstallation();
    await signInOn(student, { installationId: second, deviceToken: token });
    const rows = await fixtureD1.prepare("SELECT installation_id, token_hash, enabled FROM push_devices WHERE user_id = ? ORDER BY created_at")
      .bind(student.id)
      .all<{ installation_id: string; token_hash: string | null; enabled: number }>();
    expect(rows.results.map((r) => [r.installation_id, r.token_hash !== null, r.enabled])).toEqual([
      [first, false, 0],
      [second, true, 1],
    ]);
  });

  it("503 device_registration_failed when the key is missing or not 32 bytes, and nothing of the session is kept", async () => {
    const { student } = await schoolWithStudent();
    for (const key of [undefined, "", "c2hvcnQ=", "not base64 at all!"]) {
      const res = await loginWithEnv(student, { PUSH_TOKEN_KEY: key }, { deviceToken: "fcm-token" });
      expect({ key, status: res.status, error: res.body.error }).toEqual({ key, status: 503, error: "device_registration_failed" });
    }
    expect(await countRows("sessions", student.id)).toBe(0);
    expect(await countRows("auth_devices", student.id)).toBe(0);
    expect(await countRows("push_devices", student.id)).toBe(0);
    // Without a device_token the same configuration signs in.
    expect((await loginWithEnv(student, { PUSH_TOKEN_KEY: undefined })).status).toBe(200);
  });
});

describe("notify_on_new_device", () => {
  async function outbox(userId: string) {
    const { results } = await fixtureD1.prepare("SELECT * FROM notification_outbox WHERE user_id = ? AND event_code = 'security.new_device_login'")
      .bind(userId)
      .all<Record<string, unknown>>();
    return results;
  }

  it("queues one security.new_device_login push to the user's other devices on the first login from a new device", async () => {
    const { student } = await schoolWithStudent();
    const phoneInstallation = newInstallation();
    await signInOn(student, { installationId: phoneInstallation, deviceToken: `tok-${crypto.randomUUID()}` });
    expect(await outbox(student.id)).toEqual([]); // the first device has nobody to warn

    const laptop = await signInOn(student, { name: "Laptop", platform: "web" });
    const rows = await outbox(student.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      tenant_id: student.tenantId,
      category: "security",
      status: "pending",
      aggregate_type: "auth_device",
      aggregate_id: laptop.authDeviceId,
      dedupe_key: `security.new_device_login:${laptop.authDeviceId}`,
    });
    expect(JSON.parse(rows[0]!.data as string)).toMatchObject({ auth_device_id: laptop.authDeviceId, device_name: "Laptop", platform: "web" });

    // Signing in again on a known device is not news.
    await signInOn(student, { installationId: phoneInstallation });
    expect(await outbox(student.id)).toHaveLength(1);
  });

  it("queues nothing when the school turned it off", async () => {
    const { admin, student } = await schoolWithStudent();
    await setPolicy(admin, { notify_on_new_device: false });
    await signInOn(student, { deviceToken: `tok-${crypto.randomUUID()}` });
    await signInOn(student);
    expect(await outbox(student.id)).toEqual([]);
  });

  it("queues nothing for a refused login", async () => {
    const { admin, student } = await schoolWithStudent();
    await setPolicy(admin, { mode: "enforce", max_active_devices: 1 });
    await signInOn(student, { deviceToken: `tok-${crypto.randomUUID()}` });
    expect((await deviceLogin(student)).status).toBe(409);
    expect(await outbox(student.id)).toEqual([]);
  });
});

describe("superadmin sign-in", () => {
  it("is not limited and keeps no device_token (the platform has no push registry)", async () => {
    const superadmin = await createUser(null);
    const person = { ...superadmin, subdomain: "", tenantId: "" };
    const res = await deviceLogin(person, { deviceToken: "tok" });
    expect(res.status).toBe(200);
    // The control database has no push registry at all; no school database got a row either.
    for (const shard of [env.DB_SCHOOLS_0, env.DB_SCHOOLS_1!]) {
      const row = await shard.prepare("SELECT count(*) AS n FROM push_devices WHERE user_id = ?").bind(superadmin.id).first<{ n: number }>();
      expect(row!.n).toBe(0);
    }
  });
});

describe("device refusals at login come only after the password check", () => {
  it("a wrong password gets 400 invalid credentials where the right one would get a device error", async () => {
    const { admin, student } = await schoolWithStudent();
    const wrong = { ...student, password: "not-the-password-1" };
    const expectGeneric = (label: string, res: { status: number; body: { error?: string } }) =>
      expect({ label, status: res.status, error: res.body.error }).toEqual({ label, status: 400, error: "invalid credentials" });

    // device_registration_failed needs the credentials to be right (spec).
    expect((await loginWithEnv(student, { PUSH_TOKEN_KEY: undefined }, { deviceToken: "fcm-token" })).status).toBe(503);
    expectGeneric("device_registration_failed", await loginWithEnv(wrong, { PUSH_TOKEN_KEY: undefined }, { deviceToken: "fcm-token" }));

    expect((await loginWithEnv(student, { INSTALLATION_ID_REQUIRED: "true" }, { installationId: null })).status).toBe(409);
    expectGeneric("installation_id_required", await loginWithEnv(wrong, { INSTALLATION_ID_REQUIRED: "true" }, { installationId: null }));

    const installationId = newInstallation();
    const blocked = await signInOn(student, { installationId });
    const block = await tenantCall(admin, `/t/users/${student.id}/devices/${blocked.authDeviceId}/block`, { method: "POST", body: {} });
    expect(block.status).toBe(200);
    expect((await deviceLogin(student, { installationId })).body.error).toBe("device_blocked");
    expectGeneric("device_blocked", await deviceLogin(wrong, { installationId }));

    await setPolicy(admin, { mode: "enforce", max_active_devices: 1 });
    await signInOn(student);
    expect((await deviceLogin(student)).body.error).toBe("device_limit_reached");
    expectGeneric("device_limit_reached", await deviceLogin(wrong));
  });
});
