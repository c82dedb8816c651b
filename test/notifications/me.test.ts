import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../../src/app";
import { openPushToken, pushTokenBinding, pushTokenKeys } from "../../src/platform/notifications/push-token-crypto";
import { superadmin } from "../helpers/billing";
import { newInstallation } from "../helpers/devices";
import { createSchool } from "../helpers/factories";
import { failure, readResponse } from "../helpers/http";
import { signedIn } from "../helpers/users";
import { call, newPushToken, pushDeviceRow, registerDevice } from "./helpers";

async function school() {
  const created = await createSchool();
  const student = await signedIn(created, { role: "student" });
  return { school: created, student };
}

describe("GET and PATCH /t/notifications/me/preferences", () => {
  it("is on by default, switches off and on, and keeps the time of the change", async () => {
    const { student } = await school();
    const initial = await call(student, "/t/notifications/me/preferences");
    expect(initial.status).toBe(200);
    expect(initial.body.data).toEqual({ preference: { push_enabled: true, updated_at: null } });

    const off = await call(student, "/t/notifications/me/preferences", { method: "PATCH", body: { push_enabled: false } });
    expect(off.status).toBe(200);
    expect(off.body.data.preference).toEqual({ push_enabled: false, updated_at: expect.any(String) });
    expect((await call(student, "/t/notifications/me/preferences")).body.data.preference.push_enabled).toBe(false);

    const on = await call(student, "/t/notifications/me/preferences", { method: "PATCH", body: { push_enabled: true } });
    expect(on.body.data.preference.push_enabled).toBe(true);
  });

  it("400 push_enabled is required for a missing, null or non-boolean value", async () => {
    const { student } = await school();
    for (const body of [{}, { push_enabled: null }, { push_enabled: "false" }, { push_enabled: 1 }, { push_enabled: true, other: 1 }]) {
      const res = await call(student, "/t/notifications/me/preferences", { method: "PATCH", body });
      expect({ body, ...failure(res) }).toEqual({ body, status: 400, error: "push_enabled is required" });
    }
  });

  it("is per school member: the superadmin has none (403 forbidden)", async () => {
    const { school: created } = await school();
    const root = await superadmin();
    const res = await call({ token: root.token, subdomain: created.subdomain }, "/t/notifications/me/preferences");
    expect(failure(res)).toEqual({ status: 403, error: "forbidden" });
  });
});

describe("GET /t/notifications/me (history)", () => {
  it("pages from 1 with limit 1-100 (default 20) and starts empty", async () => {
    const { student } = await school();
    const res = await call(student, "/t/notifications/me");
    expect(res.body.data).toEqual({ notifications: [], total: 0, page: 1, limit: 20 });
    expect((await call(student, "/t/notifications/me?page=3&limit=100")).body.data).toEqual({ notifications: [], total: 0, page: 3, limit: 100 });
  });

  it("400 invalid_pagination for pages below 1 and limits outside 1-100", async () => {
    const { student } = await school();
    for (const query of ["page=0", "limit=0", "limit=101", "page=abc", "limit=1.5"]) {
      const res = await call(student, `/t/notifications/me?${query}`);
      expect({ query, ...failure(res) }).toEqual({ query, status: 400, error: "invalid_pagination" });
    }
  });
});

describe("push devices (/t/notifications/me/devices)", () => {
  it("registers a device, never returns its token, and stores it sealed to the school and installation", async () => {
    const { school: created, student } = await school();
    const installationId = newInstallation();
    const token = newPushToken();
    const res = await call(student, "/t/notifications/me/devices", { body: { installation_id: installationId, token, platform: "ios", app_version: "2.4.0" } });
    expect(res.status).toBe(200);
    const device = res.body.data.device;
    expect(device).toEqual({
      id: expect.any(String),
      installation_id: installationId,
      provider: "fcm",
      platform: "ios",
      enabled: true,
      app_version: "2.4.0",
      last_seen_at: expect.any(String),
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(JSON.stringify(res.body)).not.toContain(token);
    const listed = await call(student, "/t/notifications/me/devices");
    expect(listed.body.data).toEqual({ devices: [device] });
    expect(JSON.stringify(listed.body)).not.toContain(token);

    const row = await pushDeviceRow(device.id);
    expect(JSON.stringify(row)).not.toContain(token);
    expect(row.tokenCiphertext).toMatch(/^v2\./);
    const keys = (await pushTokenKeys(env.PUSH_TOKEN_KEY))!;
    expect(await openPushToken(keys, row.tokenCiphertext!, pushTokenBinding(created.id, installationId))).toBe(token);
    // Bound: the same ciphertext does not open for another school or installation.
    await expect(openPushToken(keys, row.tokenCiphertext!, pushTokenBinding(created.id, "another-installation"))).rejects.toThrow();
    await expect(openPushToken(keys, row.tokenCiphertext!, pushTokenBinding(crypto.randomUUID(), installationId))).rejects.toThrow();
  });

  it("is an idempotent upsert per installation: a repeat rotates the token, updates the platform and re-enables", async () => {
    const { student } = await school();
    const installationId = newInstallation();
    const first = await registerDevice(student, { installationId, platform: "android" });
    await call(student, `/t/notifications/me/devices/${first.id}`, { method: "PATCH", body: { enabled: false } });
    const rotated = newPushToken();
    const again = await call(student, "/t/notifications/me/devices", { body: { installation_id: installationId, token: rotated, platform: "ios" } });
    expect(again.body.data.device).toMatchObject({ id: first.id, platform: "ios", enabled: true });
    expect((await call(student, "/t/notifications/me/devices")).body.data.devices).toHaveLength(1);
    const keys = (await pushTokenKeys(env.PUSH_TOKEN_KEY))!;
    const row = await pushDeviceRow(first.id);
    expect(await openPushToken(keys, row.tokenCiphertext!, pushTokenBinding(student.tenantId, installationId))).toBe(rotated);
  });

  it("invalidates the binding a token had on another installation (or another user)", async () => {
    const { school: created, student } = await school();
    const sibling = await signedIn(created, { role: "student" });
    const token = newPushToken();
    const old = await registerDevice(student, { token });
    const moved = await registerDevice(student, { token });
    expect(await pushDeviceRow(old.id)).toMatchObject({ enabled: false, tokenCiphertext: null, tokenHash: null });
    expect(await pushDeviceRow(moved.id)).toMatchObject({ enabled: true });
    const taken = await registerDevice(sibling, { token });
    expect(await pushDeviceRow(moved.id)).toMatchObject({ enabled: false, tokenHash: null });
    expect(await pushDeviceRow(taken.id)).toMatchObject({ enabled: true });
  });

  it("400 invalid_request_body for out-of-range fields and unknown providers", async () => {
    const { student } = await school();
    const valid = { installation_id: newInstallation(), token: newPushToken(), platform: "android" };
    const bad = [
      { ...valid, installation_id: "" },
      { ...valid, installation_id: "x".repeat(256) },
      { ...valid, token: "" },
      { ...valid, token: "t".repeat(4097) },
      { ...valid, token: "has spaces" },
      { ...valid, platform: "windows" },
      { ...valid, provider: "apns" },
      { ...valid, app_version: "v".repeat(65) },
      { installation_id: valid.installation_id, platform: "ios" },
      { ...valid, extra: true },
    ];
    for (const body of bad) {
      const res = await call(student, "/t/notifications/me/devices", { body });
      expect({ body, ...failure(res) }).toEqual({ body, status: 400, error: "invalid_request_body" });
    }
    // The limits themselves are accepted.
    const edge = await call(student, "/t/notifications/me/devices", {
      body: { installation_id: "i".repeat(255), token: "t".repeat(4096), platform: "web", provider: "fcm", app_version: "a".repeat(64) },
    });
    expect(edge.status).toBe(200);
  });

  it("503 push_not_configured without a usable 32-byte key, and nothing is stored", async () => {
    const { student } = await school();
    for (const key of [undefined, "", "c2hvcnQ=", "not base64!"]) {
      const response = await app.request(
        "https://api.lms.localhost/api/v1/t/notifications/me/devices",
        {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${student.token}`, "x-tenant-subdomain": student.subdomain },
          body: JSON.stringify({ installation_id: newInstallation(), token: newPushToken(), platform: "android" }),
        },
        { ...env, PUSH_TOKEN_KEY: key },
      );
      const res = await readResponse(response, { method: "POST", path: "/api/v1/t/notifications/me/devices" });
      expect({ key, ...failure(res) }).toEqual({ key, status: 503, error: "push_not_configured" });
    }
    expect((await call(student, "/t/notifications/me/devices")).body.data.devices).toEqual([]);
  });

  it("PATCH changes the token, platform, switch and app version; installation and provider are immutable", async () => {
    const { student } = await school();
    const device = await registerDevice(student, { platform: "android" });
    const token = newPushToken();
    const res = await call(student, `/t/notifications/me/devices/${device.id}`, { method: "PATCH", body: { token, platform: "web", enabled: false, app_version: null } });
    expect(res.status).toBe(200);
    expect(res.body.data.device).toMatchObject({ id: device.id, installation_id: device.installation_id, platform: "web", enabled: false, app_version: null });
    const keys = (await pushTokenKeys(env.PUSH_TOKEN_KEY))!;
    expect(await openPushToken(keys, (await pushDeviceRow(device.id)).tokenCiphertext!, pushTokenBinding(student.tenantId, device.installation_id))).toBe(token);
    for (const body of [{ installation_id: "other" }, { provider: "fcm" }, { enabled: "yes" }]) {
      const refused = await call(student, `/t/notifications/me/devices/${device.id}`, { method: "PATCH", body });
      expect({ body, ...failure(refused) }).toEqual({ body, status: 400, error: "invalid_request_body" });
    }
  });

  it("404 push_device_not_found for another member's, another school's, a deleted or an unknown device", async () => {
    const { school: created, student } = await school();
    const sibling = await signedIn(created, { role: "student" });
    const { student: elsewhere } = await school();
    const siblings = await registerDevice(sibling);
    const foreign = await registerDevice(elsewhere);
    const gone = await registerDevice(student);
    expect((await call(student, `/t/notifications/me/devices/${gone.id}`, { method: "DELETE" })).body.data).toEqual({ deleted: true });
    for (const id of [siblings.id, foreign.id, gone.id, crypto.randomUUID()]) {
      const patch = await call(student, `/t/notifications/me/devices/${id}`, { method: "PATCH", body: { enabled: false } });
      expect({ id, ...failure(patch) }).toEqual({ id, status: 404, error: "push_device_not_found" });
      const remove = await call(student, `/t/notifications/me/devices/${id}`, { method: "DELETE" });
      expect({ id, ...failure(remove) }).toEqual({ id, status: 404, error: "push_device_not_found" });
    }
    expect(await pushDeviceRow(siblings.id)).toMatchObject({ enabled: true, deletedAt: null });
  });

  it("DELETE soft-deletes the binding and wipes the sealed token and its hash", async () => {
    const { student } = await school();
    const device = await registerDevice(student);
    const res = await call(student, `/t/notifications/me/devices/${device.id}`, { method: "DELETE" });
    expect(res.body).toEqual({ success: true, data: { deleted: true } });
    expect(await pushDeviceRow(device.id)).toMatchObject({ tokenCiphertext: null, tokenHash: null, enabled: false, deletedAt: expect.any(Number) });
    expect((await call(student, "/t/notifications/me/devices")).body.data.devices).toEqual([]);
    // The same installation can register again as a new binding.
    const again = await registerDevice(student, { installationId: device.installation_id });
    expect(again.id).not.toBe(device.id);
  });
});
