import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../src/db/schema";
import { createSchool, createUser, db, login, DEFAULT_PASSWORD } from "../helpers/factories";
import { api } from "../helpers/http";
import { fixtureD1 } from "../helpers/databases";

const loginCall = (body: Record<string, unknown>, headers: Record<string, string> = {}) => api("/auth/login", { body, headers });
const withoutRequestId = (body: Record<string, unknown>) => ({ ...body, request_id: undefined });

describe("POST /auth/login", () => {
  it("signs a native client in with the refresh token in JSON", async () => {
    const school = await createSchool();
    const user = await createUser(school.id, { role: "admin", firstName: "Aziza" });
    const res = await loginCall({ email: user.email, password: user.password, subdomain: school.subdomain, device_platform: "ios", device_name: "iPhone" });
    expect(res.status).toBe(200);
    expect(res.headers.get("set-cookie")).toBeNull();
    const data = res.body.data;
    expect(Object.keys(data).sort()).toEqual(
      ["access_expires_at", "auth_device_id", "refresh_expires_at", "refresh_token", "session_id", "token", "user"].sort(),
    );
    expect(data.user).toEqual({ id: user.id, email: user.email, role: "admin", first_name: "Aziza", last_name: "User" });
    expect(data.refresh_token.startsWith(`${data.session_id}.`)).toBe(true);
    expect(Date.parse(data.access_expires_at) - Date.now()).toBeGreaterThan(14 * 60_000);
    expect(Date.parse(data.access_expires_at) - Date.now()).toBeLessThanOrEqual(15 * 60_000);
    const [device] = await db().select().from(schema.authDevices).where(eq(schema.authDevices.id, data.auth_device_id));
    expect(device).toMatchObject({ platform: "ios", name: "iPhone", userId: user.id, tenantId: school.id });
  });

  it("stores only a hash of the refresh secret", async () => {
    const school = await createSchool();
    const user = await createUser(school.id);
    const session = await login(user, { subdomain: school.subdomain });
    const secret = session.refresh_token!.split(".")[1]!;
    const dump = await fixtureD1.prepare("SELECT * FROM sessions WHERE id = ?").bind(session.session_id).first();
    expect(JSON.stringify(dump)).not.toContain(secret);
  });

  it("gives a browser an HttpOnly cookie scoped to school and device, and forces platform web", async () => {
    const school = await createSchool();
    const user = await createUser(school.id);
    const res = await loginCall(
      { email: user.email, password: user.password, subdomain: school.subdomain, device_platform: "android" },
      { origin: `http://${school.subdomain}.lms.localhost` },
    );
    expect(res.status).toBe(200);
    expect(res.body.data.refresh_token).toBeUndefined();
    const cookie = res.headers.get("set-cookie")!;
    const deviceHex = res.body.data.auth_device_id.replaceAll("-", "");
    expect(cookie).toMatch(new RegExp(`^lms_rt_${school.subdomain}_${deviceHex}=${res.body.data.session_id}\\.`));
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("Secure");
    expect(cookie).toContain("SameSite=Lax");
    expect(cookie).toContain("Path=/api/v1/auth");
    const [device] = await db().select().from(schema.authDevices).where(eq(schema.authDevices.id, res.body.data.auth_device_id));
    expect(device!.platform).toBe("web");
  });

  it("answers an unknown email exactly like a wrong password", async () => {
    const school = await createSchool();
    const user = await createUser(school.id);
    const wrong = await loginCall({ email: user.email, password: "not-the-password", subdomain: school.subdomain });
    const unknown = await loginCall({ email: `nobody.${user.email}`, password: "not-the-password", subdomain: school.subdomain });
    expect(wrong.status).toBe(400);
    expect(unknown.status).toBe(400);
    expect(wrong.body.error).toBe("invalid credentials");
    expect(withoutRequestId(unknown.body)).toEqual(withoutRequestId(wrong.body));
  });

  it("treats an inactive account, another school and a deleted school as invalid credentials", async () => {
    const school = await createSchool();
    const other = await createSchool();
    const inactive = await createUser(school.id, { isActive: false });
    const active = await createUser(school.id);
    expect((await loginCall({ email: inactive.email, password: inactive.password, subdomain: school.subdomain })).body.error).toBe("invalid credentials");
    expect((await loginCall({ email: active.email, password: active.password, subdomain: other.subdomain })).body.error).toBe("invalid credentials");
    await db().update(schema.tenants).set({ deletedAt: Date.now() }).where(eq(schema.tenants.id, school.id));
    const res = await loginCall({ email: active.email, password: active.password, subdomain: school.subdomain });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("invalid credentials");
  });

  it("refuses a pending school's admin with the right password: 403 email_not_verified", async () => {
    const school = await createSchool({ status: "pending", planState: "trial" });
    const admin = await createUser(school.id, { role: "admin" });
    const right = await loginCall({ email: admin.email, password: admin.password, subdomain: school.subdomain });
    expect(right.status).toBe(403);
    expect(right.body.error).toBe("email_not_verified");
    const wrong = await loginCall({ email: admin.email, password: "wrong-password", subdomain: school.subdomain });
    expect(wrong.body.error).toBe("invalid credentials");
  });

  it("signs the superadmin in without a subdomain: tenant_id null and no tenant block", async () => {
    const superadmin = await createUser(null, { role: "superadmin" });
    const session = await login(superadmin, { subdomain: "" });
    const claims = JSON.parse(atob(session.token.split(".")[1]!.replaceAll("-", "+").replaceAll("_", "/")));
    expect(claims.tenant_id).toBeNull();
    expect(claims.role).toBe("superadmin");
    const me = await api("/auth/me", { token: session.token });
    expect(me.status).toBe(200);
    expect(me.body.data).toEqual({ id: superadmin.id, email: superadmin.email, role: "superadmin", first_name: "Test", last_name: "User" });
  });

  it("refuses a blocked installation with 403 device_blocked", async () => {
    const school = await createSchool();
    const user = await createUser(school.id);
    const session = await login(user, { subdomain: school.subdomain, installationId: "install-blocked-1" });
    await db().update(schema.authDevices).set({ blockedAt: Date.now() }).where(eq(schema.authDevices.id, session.auth_device_id));
    const res = await loginCall({ email: user.email, password: user.password, subdomain: school.subdomain, installation_id: "install-blocked-1" });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe("device_blocked");
  });

  it("reuses the device row of a known installation", async () => {
    const school = await createSchool();
    const user = await createUser(school.id);
    const first = await login(user, { subdomain: school.subdomain, installationId: "install-same" });
    const second = await login(user, { subdomain: school.subdomain, installationId: "install-same" });
    expect(second.auth_device_id).toBe(first.auth_device_id);
    expect(second.session_id).not.toBe(first.session_id);
  });

  it("rejects malformed input with 400 invalid_request_body", async () => {
    for (const body of [{}, { email: "not-an-email", password: "x" }, { email: "a@b.co", password: "x", device_name: "n".repeat(121) }]) {
      const res = await loginCall(body);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe("invalid_request_body");
    }
    const malformed = await api("/auth/login", { raw: "{not json" });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toBe("invalid_request_body");
  });

  it("lower-cases the email before looking it up", async () => {
    const school = await createSchool();
    const user = await createUser(school.id);
    const res = await loginCall({ email: user.email.toUpperCase(), password: DEFAULT_PASSWORD, subdomain: school.subdomain.toUpperCase() });
    expect(res.status).toBe(200);
  });
});
