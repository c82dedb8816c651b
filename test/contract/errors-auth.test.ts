import { describe, expect, it } from "vitest";
import { BROWSER_ORIGIN, cookiePair, refreshNative } from "../helpers/auth";
import { deviceLogin, loginWithEnv, newInstallation, schoolWithStudent, setPolicy, signInOn, tenantCall } from "../helpers/devices";
import { createSchool, createUser, login } from "../helpers/factories";
import { api, failure } from "../helpers/http";
import { emailsTo } from "../helpers/outbox";

/** Every listed failure of the contract's /auth endpoints, provoked over HTTP. */

const loginCall = (body: Record<string, unknown>) => api("/auth/login", { body });

/** Signs in as a browser on the configured scheme: the refresh token comes back as a cookie. */
async function browserSession(user: { email: string; password: string }, subdomain: string) {
  const res = await api("/auth/login", { body: { email: user.email, password: user.password, subdomain }, headers: BROWSER_ORIGIN });
  expect(res.status).toBe(200);
  return { sessionId: res.body.data.session_id as string, authDeviceId: res.body.data.auth_device_id as string, cookie: cookiePair(res.headers.get("set-cookie")) };
}

async function member(options: { role?: "admin" | "student" } = {}) {
  const school = await createSchool();
  const user = await createUser(school.id, { role: options.role ?? "student" });
  return { school, user };
}

describe("POST /auth/login failures", () => {
  it("400 invalid credentials", async () => {
    const { school, user } = await member();
    const res = await loginCall({ email: user.email, password: "not-the-password", subdomain: school.subdomain });
    expect(failure(res)).toEqual({ status: 400, error: "invalid credentials" });
  });

  it("403 email_not_verified", async () => {
    const school = await createSchool({ status: "pending", planState: "trial" });
    const admin = await createUser(school.id, { role: "admin" });
    const res = await loginCall({ email: admin.email, password: admin.password, subdomain: school.subdomain });
    expect(failure(res)).toEqual({ status: 403, error: "email_not_verified" });
  });

  it("403 device_blocked", async () => {
    const { admin, student } = await schoolWithStudent();
    const installationId = newInstallation();
    const device = await signInOn(student, { installationId });
    const block = await tenantCall(admin, `/t/users/${student.id}/devices/${device.authDeviceId}/block`, { method: "POST", body: {} });
    expect(block.status).toBe(200);
    expect(failure(await deviceLogin(student, { installationId }))).toEqual({ status: 403, error: "device_blocked" });
  });

  it("409 device_limit_reached", async () => {
    const { admin, student } = await schoolWithStudent();
    await setPolicy(admin, { mode: "enforce", max_active_devices: 1 });
    await signInOn(student);
    expect(failure(await deviceLogin(student))).toEqual({ status: 409, error: "device_limit_reached" });
  });

  it("409 installation_id_required", async () => {
    const { student } = await schoolWithStudent();
    const res = await loginWithEnv(student, { INSTALLATION_ID_REQUIRED: "true" }, { installationId: null });
    expect(failure(res)).toEqual({ status: 409, error: "installation_id_required" });
  });

  it("423 too many attempts, try again later", async () => {
    const { school, user } = await member();
    for (let attempt = 0; attempt < 5; attempt++) {
      await loginCall({ email: user.email, password: "not-the-password", subdomain: school.subdomain });
    }
    const res = await loginCall({ email: user.email, password: user.password, subdomain: school.subdomain });
    expect(failure(res)).toEqual({ status: 423, error: "too many attempts, try again later" });
  });

  it("503 device_registration_failed (push key missing from the environment)", async () => {
    const { student } = await schoolWithStudent();
    const res = await loginWithEnv(student, { PUSH_TOKEN_KEY: undefined }, { deviceToken: "fcm-token" });
    expect(failure(res)).toEqual({ status: 503, error: "device_registration_failed" });
  });
});

describe("POST /auth/refresh failures", () => {
  it("400 session_id_required, auth_device_id_required and refresh_token_required from a browser", async () => {
    const { school, user } = await member();
    const { sessionId, authDeviceId, cookie } = await browserSession(user, school.subdomain);
    const noSession = await api("/auth/refresh", { body: { auth_device_id: authDeviceId }, headers: { ...BROWSER_ORIGIN, cookie } });
    expect(failure(noSession)).toEqual({ status: 400, error: "session_id_required" });
    const noDevice = await api("/auth/refresh", { body: { session_id: sessionId }, headers: { ...BROWSER_ORIGIN, cookie } });
    expect(failure(noDevice)).toEqual({ status: 400, error: "auth_device_id_required" });
    const noCookie = await api("/auth/refresh", { body: { session_id: sessionId, auth_device_id: authDeviceId }, headers: BROWSER_ORIGIN });
    expect(failure(noCookie)).toEqual({ status: 400, error: "refresh_token_required" });
  });

  it("401 unauthorized for a forged refresh token", async () => {
    const { school, user } = await member();
    const session = await login(user, { subdomain: school.subdomain });
    const forged = `${session.session_id}.${"x".repeat(43)}`;
    expect(failure(await refreshNative(forged))).toEqual({ status: 401, error: "unauthorized" });
  });

  it("409 stale_refresh_token for the secret just rotated", async () => {
    const { school, user } = await member();
    const session = await login(user, { subdomain: school.subdomain });
    expect((await refreshNative(session.refresh_token!)).status).toBe(200);
    expect(failure(await refreshNative(session.refresh_token!))).toEqual({ status: 409, error: "stale_refresh_token" });
  });
});

describe("POST /auth/logout failures", () => {
  it("400 session_id_required and auth_device_id_required from a browser, 401 unauthorized without its cookie", async () => {
    const { school, user } = await member();
    const { sessionId, authDeviceId, cookie } = await browserSession(user, school.subdomain);
    const noSession = await api("/auth/logout", { body: { auth_device_id: authDeviceId }, headers: { ...BROWSER_ORIGIN, cookie } });
    expect(failure(noSession)).toEqual({ status: 400, error: "session_id_required" });
    const noDevice = await api("/auth/logout", { body: { session_id: sessionId }, headers: { ...BROWSER_ORIGIN, cookie } });
    expect(failure(noDevice)).toEqual({ status: 400, error: "auth_device_id_required" });
    const noCookie = await api("/auth/logout", { body: { session_id: sessionId, auth_device_id: authDeviceId }, headers: BROWSER_ORIGIN });
    expect(failure(noCookie)).toEqual({ status: 401, error: "unauthorized" });
  });
});

describe("POST /auth/device-limit/replace failures", () => {
  const replace = (body: Record<string, unknown>) => api("/auth/device-limit/replace", { body });

  async function refusedLogin(limit = 1, preSigned = 0) {
    const ctx = await schoolWithStudent();
    await setPolicy(ctx.admin, { mode: "enforce", max_active_devices: limit });
    const old = await signInOn(ctx.student);
    for (let i = 0; i < preSigned; i++) await signInOn(ctx.student);
    const refused = await deviceLogin(ctx.student, { installationId: newInstallation() });
    expect(refused.status).toBe(409);
    return { ...ctx, old, token: refused.body.data.replacement_token as string };
  }

  it("403 device_self_replacement_disabled", async () => {
    const { admin, old, token } = await refusedLogin();
    await setPolicy(admin, { allow_self_replacement: false });
    const res = await replace({ replacement_token: token, revoke_device_id: old.authDeviceId });
    expect(failure(res)).toEqual({ status: 403, error: "device_self_replacement_disabled" });
  });

  it("409 invalid_device_replacement_token", async () => {
    const { old } = await refusedLogin();
    const res = await replace({ replacement_token: "not-a-real-token", revoke_device_id: old.authDeviceId });
    expect(failure(res)).toEqual({ status: 409, error: "invalid_device_replacement_token" });
  });

  it("409 device_limit_reached when the limit was lowered after the refusal", async () => {
    const { admin, old, token } = await refusedLogin(2, 1);
    await setPolicy(admin, { max_active_devices: 1 });
    const res = await replace({ replacement_token: token, revoke_device_id: old.authDeviceId });
    expect(failure(res)).toEqual({ status: 409, error: "device_limit_reached" });
  });
});

describe("registration failures", () => {
  it("POST /auth/register: 400 duplicate key for a taken slug", async () => {
    const existing = await createSchool();
    const res = await api("/auth/register", {
      body: {
        tenant_title: "Registered School",
        tenant_slug: existing.slug,
        email: `founder.${existing.slug}@example.test`,
        password: "founder-pass-1",
        first_name: "Dilnoza",
        last_name: "Karimova",
      },
    });
    expect(failure(res)).toEqual({ status: 400, error: "duplicate key" });
  });

  it("POST /auth/verify-email: 400 invalid_or_expired_email_verification for an unknown token", async () => {
    const res = await api("/auth/verify-email", { body: { token: "unknown-token" } });
    expect(failure(res)).toEqual({ status: 400, error: "invalid_or_expired_email_verification" });
  });
});

describe("password reset failures", () => {
  async function requestCode(email: string, subdomain: string) {
    expect((await api("/auth/forgot-password", { body: { email, subdomain } })).status).toBe(200);
    const [latest] = await emailsTo(email);
    return latest!.metaJson.code as string;
  }
  const reset = (email: string, subdomain: string, code: string) =>
    api("/auth/reset-password", { body: { email, subdomain, code, new_password: "brand-new-pass" } });
  const wrongCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, "0");

  it("POST /auth/forgot-password: 400 validation error and 404 no account with this email and school", async () => {
    const { user } = await member();
    const other = await createSchool();
    expect(failure(await api("/auth/forgot-password", { body: { email: "not-an-email" } }))).toEqual({ status: 400, error: "validation error" });
    const missing = await api("/auth/forgot-password", { body: { email: user.email, subdomain: other.subdomain } });
    expect(failure(missing)).toEqual({ status: 404, error: "no account with this email and school" });
  });

  it("POST /auth/reset-password: 400 invalid or expired confirmation code, then 423 after five wrong codes", async () => {
    const { school, user } = await member();
    const code = await requestCode(user.email, school.subdomain);
    for (let attempt = 0; attempt < 5; attempt++) {
      expect(failure(await reset(user.email, school.subdomain, wrongCode(code)))).toEqual({ status: 400, error: "invalid or expired confirmation code" });
    }
    expect(failure(await reset(user.email, school.subdomain, code))).toEqual({ status: 423, error: "too many attempts, request a new code" });
  });
});
