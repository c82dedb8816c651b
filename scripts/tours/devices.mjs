import { DEMO } from "../seed/demo.mjs";
import { PEOPLE, label, pick } from "./lib/tour.mjs";

export const summary = "the device policy enforced: a second device refused, replaced without the password; the admin's view";

/** Works on Sara (student1): ends her sessions first, so the limit starts from zero, and puts the policy back to the defaults. */
export async function run(t) {
  const { admin, student1 } = PEOPLE;
  const ada = await t.login(admin);

  t.section(`Start clean: end every session of ${label(student1)} (how many depends on what ran before)`);
  await t.step("Revoke all her sessions", { method: "POST", who: ada, path: `/t/users/${student1.id}/sessions/revoke-all` });

  t.section("One device at a time for students, enforced");
  try {
    await t.step("Enforce a limit of one", { method: "PATCH", who: ada, path: "/t/tenant/device-policy", body: { mode: "enforce", max_active_devices: 1 }, show: (json) => pick(json.data, ["mode", "max_active_devices"]) });

    t.section("Sara signs in on a phone, then tries a tablet: 409 with the devices and a replacement token");
    const phoneName = `phone-${t.runId}`;
    const tabletName = `tablet-${t.runId}`;
    const device = (name) => ({ installation_id: name, device_platform: "android", device_name: name });
    const phone = await t.login(student1, { extra: device(phoneName), title: `Sara signs in on ${phoneName}` });
    const refused = await t.step(`Sara tries ${tabletName}`, {
      method: "POST",
      path: "/auth/login",
      body: { email: student1.email, password: "demo12345", subdomain: DEMO.subdomain, ...device(tabletName) },
      expect: 409,
      show: (json) => ({ error: json.error, devices: json.data.devices.map((d) => pick(d, ["name", "platform"])) }),
    });

    t.section("Give up the phone for the tablet (the password is not sent again); the phone's token stops working");
    await t.step("Replace the phone", {
      method: "POST",
      path: "/auth/device-limit/replace",
      body: { tenant_subdomain: DEMO.subdomain, replacement_token: refused.data.replacement_token, revoke_device_id: phone.login.data.auth_device_id },
      show: (json) => ({ user: json.data.user.email, revoked_device_id: json.data.revoked_device_id }),
    });
    await t.step("The phone's token", { who: phone, path: "/t/me/devices", expect: 401 });

    t.section("The admin sees the student's devices (this run's two) and history");
    await t.step("Her devices", {
      who: ada,
      path: `/t/users/${student1.id}/devices`,
      show: (json) => ({ ...pick(json.data, ["active_devices", "max_active_devices"]), devices: json.data.devices.filter((d) => [phoneName, tabletName].includes(d.name)).map((d) => pick(d, ["name", "status"])) }),
    });
    const events = await t.step("Her latest device events, newest first", { who: ada, path: `/t/users/${student1.id}/device-events?limit=4`, show: (json) => json.data.events.map((e) => e.type) });
    t.check(events.data.events[0].type === "session_revoked", "the newest event is the phone's session_revoked");
  } finally {
    t.section("Back to the defaults: monitor only, no limit");
    await t.step("Reset the policy", { method: "PATCH", who: ada, path: "/t/tenant/device-policy", body: { mode: "monitor_only", max_active_devices: null }, show: (json) => pick(json.data, ["mode", "max_active_devices"]) });
  }
}
