import { PEOPLE, label, pick } from "./lib/tour.mjs";

export const summary = "sign in, who am I, refresh and log out; register a school, verify its email, reset a password";

/** Registers a new school each run (a fresh slug and email); the demo admin's session ends at the end of part one. */
export async function run(t) {
  const { admin } = PEOPLE;

  t.section(`Sign in as ${label(admin)} (a native client: no Origin header, so the refresh token comes in the JSON)`);
  const ada = await t.login(admin, { extra: { device_platform: "android", device_name: "tour" } });
  await t.step("Who am I (school users get their school's billing summary)", { who: ada, path: "/auth/me" });
  const refreshed = await t.step("Refresh: single-use, so keep the new refresh token", {
    method: "POST",
    path: "/auth/refresh",
    body: { tenant_subdomain: "demo", refresh_token: ada.login.data.refresh_token },
    show: (json) => pick(json.data, ["session_id", "access_expires_at"]),
  });
  t.check(refreshed.data.session_id === ada.login.data.session_id, "the same session, a new expiry");
  const fresh = t.session(admin, refreshed.data.token);
  await t.step("Log out: the session ends", { method: "POST", path: "/auth/logout", body: { tenant_subdomain: "demo", refresh_token: refreshed.data.refresh_token } });
  await t.step("Its access token stops working at once", { who: fresh, path: "/auth/me", expect: 401 });

  t.section("Register a school, verify the admin's email and find the school by email");
  const slug = `acme${t.runId}`;
  const email = `owner@${slug}.test`;
  const owner = { email, firstName: "Olga" };
  await t.step("Register Acme Academy", {
    method: "POST",
    path: "/auth/register",
    body: { tenant_title: "Acme Academy", tenant_slug: slug, email, password: "acme-password", first_name: "Olga", last_name: "Owner" },
    expect: 201,
  });
  await t.step("Sign-in waits for the email to be verified", { method: "POST", path: "/auth/login", body: { email, password: "acme-password", subdomain: slug }, expect: 403 });
  const mail = await t.step("The verification email (local dev mailbox)", {
    path: `/dev/mailbox?to=${encodeURIComponent(email)}`,
    show: (json) => json.data.messages.map((m) => pick(m, ["kind", "subject"])),
  });
  const verify = mail.data.messages.find((m) => m.kind === "verification").meta.token;
  await t.step("Verify", { method: "POST", path: "/auth/verify-email", body: { token: verify } });
  await t.login(owner, { subdomain: slug, password: "acme-password", title: "Sign in as Olga, the new school's admin" });
  await t.step("Her schools, by email", { method: "POST", path: "/auth/schools", body: { email } });

  t.section("Reset the password with the 6-digit code (it also appears in the `npm run dev` console)");
  await t.step("Forgot password", { method: "POST", path: "/auth/forgot-password", body: { email, subdomain: slug }, show: (json) => json.data.message });
  const reset = await t.step("The code (local dev mailbox)", {
    path: `/dev/mailbox?to=${encodeURIComponent(email)}`,
    show: (json) => json.data.messages.map((m) => pick(m, ["kind", "subject"])),
  });
  const code = reset.data.messages.find((m) => m.kind === "password_reset").meta.code;
  await t.step("Reset", { method: "POST", path: "/auth/reset-password", body: { email, subdomain: slug, code, new_password: "a-new-password" }, show: (json) => json.data.message });
  await t.step("The old password no longer works", { method: "POST", path: "/auth/login", body: { email, password: "acme-password", subdomain: slug }, expect: 400 });
  await t.login(owner, { subdomain: slug, password: "a-new-password", title: "The new one does" });
}
