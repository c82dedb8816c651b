import { describe, expect, it } from "vitest";
import { cookiePair } from "../helpers/auth";
import { deviceLogin, newInstallation, schoolWithStudent, setPolicy, signInOn } from "../helpers/devices";
import { createSchool, createUser, login } from "../helpers/factories";
import { api, failure } from "../helpers/http";

/** APP_DOMAIN is lms.localhost on http in wrangler.toml: these are refused for every cookie flow. */
const FOREIGN: Record<string, string>[] = [
  { origin: "https://evil.example" },
  { origin: "http://evil.example" },
  { origin: "http://deeper.demo.lms.localhost" },
  { origin: "https://demo.lms.localhost" },
  { origin: "http://lms.localhost.evil.example" },
  { origin: "null" },
  { "sec-fetch-site": "cross-site" },
  { "sec-fetch-site": "same-site" },
];
const ALLOWED_ORIGIN = "http://demo.lms.localhost:5173";

async function schoolMember() {
  const school = await createSchool();
  const user = await createUser(school.id, { role: "admin" });
  return { school, user };
}

describe("origin check on the cookie flows", () => {
  it("refuses a foreign browser origin with 403 origin_not_allowed on login, refresh, logout and device replacement, before any work", async () => {
    const { school, user } = await schoolMember();
    const native = await login(user, { subdomain: school.subdomain });
    const bodies: Record<string, unknown> = {
      "/auth/login": { email: user.email, password: user.password, subdomain: school.subdomain },
      "/auth/refresh": { refresh_token: native.refresh_token },
      "/auth/logout": { refresh_token: native.refresh_token },
      "/auth/device-limit/replace": { replacement_token: "x".repeat(43), revoke_device_id: native.auth_device_id, tenant_subdomain: school.subdomain },
    };
    for (const [path, body] of Object.entries(bodies)) {
      for (const headers of FOREIGN) {
        const res = await api(path, { body, headers });
        expect({ path, headers, ...failure(res) }).toEqual({ path, headers, status: 403, error: "origin_not_allowed" });
      }
    }
    // Nothing was done: the native session still refreshes (a refused refresh would have rotated or revoked it).
    const refreshed = await api("/auth/refresh", { body: { refresh_token: native.refresh_token } });
    expect(refreshed.status).toBe(200);
  });

  it("lets an allowed browser origin sign in, refresh and log out with its cookie", async () => {
    const { school, user } = await schoolMember();
    const origin = { origin: ALLOWED_ORIGIN };
    const signedIn = await api("/auth/login", { body: { email: user.email, password: user.password, subdomain: school.subdomain }, headers: origin });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.data.refresh_token).toBeUndefined();
    const selectors = { session_id: signedIn.body.data.session_id, auth_device_id: signedIn.body.data.auth_device_id };
    const refreshed = await api("/auth/refresh", { body: selectors, headers: { ...origin, cookie: cookiePair(signedIn.headers.get("set-cookie")) } });
    expect(refreshed.status).toBe(200);
    const out = await api("/auth/logout", { body: selectors, headers: { ...origin, cookie: cookiePair(refreshed.headers.get("set-cookie")) } });
    expect(out.status).toBe(200);
  });

  it("lets the API's own pages (same-origin, no Origin header) and native clients through", async () => {
    const { school, user } = await schoolMember();
    const body = { email: user.email, password: user.password, subdomain: school.subdomain };
    expect((await api("/auth/login", { body, headers: { "sec-fetch-site": "same-origin" } })).status).toBe(200);
    expect((await api("/auth/login", { body })).status).toBe(200);
  });

  it("lets an allowed browser origin replace a device", async () => {
    const { admin, student } = await schoolWithStudent();
    await setPolicy(admin, { mode: "enforce", max_active_devices: 1 });
    const old = await signInOn(student, { name: "Old phone" });
    const refused = await deviceLogin(student, { installationId: newInstallation(), name: "New phone", platform: "ios" });
    expect(refused.status).toBe(409);
    const body = { replacement_token: refused.body.data.replacement_token, revoke_device_id: old.authDeviceId, tenant_subdomain: student.subdomain };
    const foreign = await api("/auth/device-limit/replace", { body, headers: { origin: "https://evil.example" } });
    expect(failure(foreign)).toEqual({ status: 403, error: "origin_not_allowed" });
    // The refusal did not spend the single-use token.
    const replaced = await api("/auth/device-limit/replace", { body, headers: { origin: `http://${student.subdomain}.lms.localhost` } });
    expect(replaced.status).toBe(200);
    expect(replaced.body.data.revoked_device_id).toBe(old.authDeviceId);
  });
});
