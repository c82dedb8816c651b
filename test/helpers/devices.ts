import { env } from "cloudflare:test";
import { app } from "../../src/app";
import { createSchool, createUser, login } from "./factories";
import { api, type ApiResponse } from "./http";
import { fixtureD1 } from "./databases";

export interface Person {
  id: string;
  email: string;
  password: string;
  role: string;
  subdomain: string;
  tenantId: string;
}

export interface SignedIn extends Person {
  token: string;
  sessionId: string;
  authDeviceId: string;
  refreshToken: string;
}

let installationCounter = 0;
/** A fresh installation id, unique across the run. */
export const newInstallation = () => `inst-${Date.now().toString(36)}-${(installationCounter++).toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

export interface DeviceLoginOptions {
  installationId?: string | null;
  deviceToken?: string;
  platform?: "web" | "ios" | "android";
  name?: string;
  ip?: string;
  browser?: boolean;
  extra?: Record<string, unknown>;
}

function loginBody(person: Person, options: DeviceLoginOptions) {
  const installationId = options.installationId === undefined ? newInstallation() : options.installationId;
  return {
    email: person.email,
    password: person.password,
    subdomain: person.subdomain,
    device_platform: options.platform ?? "android",
    ...(installationId ? { installation_id: installationId } : {}),
    ...(options.deviceToken ? { device_token: options.deviceToken } : {}),
    ...(options.name ? { device_name: options.name } : {}),
    ...options.extra,
  };
}

function loginHeaders(options: DeviceLoginOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  if (options.ip) headers["cf-connecting-ip"] = options.ip;
  if (options.browser) headers.origin = "http://demo.lms.localhost";
  return headers;
}

/** POST /auth/login from a device; the raw response (refusals are what many tests look at). */
export function deviceLogin(person: Person, options: DeviceLoginOptions = {}): Promise<ApiResponse> {
  return api("/auth/login", { body: loginBody(person, options), headers: loginHeaders(options) });
}

/** A successful device login, or the test fails with the refusal. */
export async function signInOn(person: Person, options: DeviceLoginOptions = {}): Promise<SignedIn> {
  const res = await deviceLogin(person, options);
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { ...person, token: res.body.data.token, sessionId: res.body.data.session_id, authDeviceId: res.body.data.auth_device_id, refreshToken: res.body.data.refresh_token };
}

/**
 * POST /auth/login through the app with some vars replaced (INSTALLATION_ID_REQUIRED,
 * PUSH_TOKEN_KEY): config is parsed per env object, so a copy gets its own configuration.
 */
export async function loginWithEnv(person: Person, vars: Record<string, string | undefined>, options: DeviceLoginOptions = {}): Promise<ApiResponse> {
  const response = await app.request(
    "https://api.lms.localhost/api/v1/auth/login",
    { method: "POST", headers: { "content-type": "application/json", ...loginHeaders(options) }, body: JSON.stringify(loginBody(person, options)) },
    { ...env, ...vars },
  );
  return { status: response.status, body: await response.json(), headers: response.headers, request: { method: "POST", path: "/api/v1/auth/login" } };
}

/** A school with a signed-in admin and a student (not signed in). */
export async function schoolWithStudent() {
  const school = await createSchool();
  const adminUser = await createUser(school.id, { role: "admin" });
  const adminSession = await login(adminUser, { subdomain: school.subdomain });
  const studentUser = await createUser(school.id, { role: "student" });
  const admin = { ...adminUser, subdomain: school.subdomain, tenantId: school.id, token: adminSession.token };
  const student: Person = { ...studentUser, subdomain: school.subdomain, tenantId: school.id };
  return { school, admin, student };
}

/** Another student of the same school. */
export async function addStudent(school: { id: string; subdomain: string }): Promise<Person> {
  const user = await createUser(school.id, { role: "student" });
  return { ...user, subdomain: school.subdomain, tenantId: school.id };
}

/** Calls a /t/* endpoint with a token of the school. */
export function tenantCall(who: { token: string; subdomain: string }, path: string, call: { method?: string; body?: unknown } = {}) {
  return api(path, { ...call, token: who.token, tenant: who.subdomain });
}

/** PATCH /t/tenant/device-policy as the admin; fails the test unless it is accepted. */
export async function setPolicy(admin: { token: string; subdomain: string }, patch: Record<string, unknown>) {
  const res = await tenantCall(admin, "/t/tenant/device-policy", { method: "PATCH", body: patch });
  if (res.status !== 200) throw new Error(`policy update failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

/** The access token still works (GET /auth/me is the cheapest authenticated call). */
export async function tokenWorks(who: { token: string; subdomain: string }): Promise<boolean> {
  const res = await api("/auth/me", { token: who.token, tenant: who.subdomain });
  if (res.status !== 200 && res.status !== 401) throw new Error(`unexpected /auth/me status ${res.status}`);
  return res.status === 200;
}

/** Event types of a user's history, oldest first, straight from D1. */
export async function eventTypes(userId: string): Promise<{ type: string; detail: Record<string, unknown> | null; auth_device_id: string | null }[]> {
  const { results } = await fixtureD1.prepare("SELECT type, detail, auth_device_id FROM device_events WHERE user_id = ? ORDER BY created_at, id")
    .bind(userId)
    .all<{ type: string; detail: string | null; auth_device_id: string | null }>();
  return results.map((row) => ({ ...row, detail: row.detail ? JSON.parse(row.detail) : null }));
}
