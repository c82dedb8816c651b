import { describe, expect, it } from "vitest";
import { DAY_MS, HOUR_MS, setClockForTests } from "../../src/core/lib/clock";
import { runCron } from "../helpers/billing";
import { superadmin } from "../helpers/billing";
import { createSchool, createUser, login } from "../helpers/factories";
import { api } from "../helpers/http";
import { emailsTo } from "../helpers/outbox";
import { newInstallation, signInOn, type Person } from "../helpers/devices";
import { addPushDevice, call, deliverNow, outboxRows, pushesFor, registerDevice, type Caller, type DevPush } from "./helpers";

/**
 * Every platform event wired so far, triggered through its real endpoint or the cron, reaches
 * its recipients exactly once, and a repeated request (or cron run) sends nothing more.
 */

async function school(options: Parameters<typeof createSchool>[0] = {}) {
  const created = await createSchool(options);
  const adminUser = await createUser(created.id, { role: "admin", firstName: "Aziza" });
  const admin: Caller & Person = { ...adminUser, subdomain: created.subdomain, tenantId: created.id, token: (await login(adminUser, { subdomain: created.subdomain })).token };
  return { school: created, admin };
}

/** A member with two push devices: one where they are signed in now, and another. */
async function memberWithDevices(created: { id: string; subdomain: string }, role: "student" | "curator" | "admin" = "student", firstName = "Bobur") {
  const user = await createUser(created.id, { role, firstName });
  const person: Person = { ...user, subdomain: created.subdomain, tenantId: created.id };
  const here = newInstallation();
  const signed = await signInOn(person, { installationId: here });
  const caller: Caller & Person = { ...person, token: signed.token };
  const current = await registerDevice(caller, { installationId: here });
  const other = await registerDevice(caller);
  return { ...caller, authDeviceId: signed.authDeviceId, current, other };
}

async function delivered(tenantId: string, userId: string, eventCode: string): Promise<DevPush[]> {
  await deliverNow(tenantId);
  return (await pushesFor(userId)).filter((push) => push.event_code === eventCode);
}

describe("security events", () => {
  it("security.new_device_login: the other devices once; signing in again on that device sends nothing", async () => {
    const { school: created } = await school();
    const student = await memberWithDevices(created);
    const installationId = newInstallation();
    await signInOn(student, { installationId, name: "Office PC", platform: "web" });
    await signInOn(student, { installationId, name: "Office PC", platform: "web" });
    const pushes = await delivered(created.id, student.id, "security.new_device_login");
    expect(pushes.map((push) => push.installation_id).sort()).toEqual([student.current.installation_id, student.other.installation_id].sort());
    expect(pushes[0]!.body).toContain("Office PC");
  });

  it("security.password_changed: the user's other devices, not the one that changed it; a replay changes nothing", async () => {
    const { school: created } = await school();
    const student = await memberWithDevices(created);
    const body = { current_password: student.password, new_password: "a-brand-new-password" };
    expect((await call(student, "/t/me/password", { body })).status).toBe(200);
    expect((await call(student, "/t/me/password", { body })).status).toBe(400);
    const pushes = await delivered(created.id, student.id, "security.password_changed");
    expect(pushes.map((push) => push.installation_id)).toEqual([student.other.installation_id]);
    expect(pushes[0]).toMatchObject({ title: "Пароль изменён", data: { event_code: "security.password_changed", user_id: student.id, changed_at: expect.any(String) } });
  });

  it("security.password_reset: every device of the user; the used code sends nothing more", async () => {
    const { school: created } = await school();
    const student = await memberWithDevices(created);
    expect((await api("/auth/forgot-password", { body: { email: student.email, subdomain: created.subdomain } })).status).toBe(200);
    const code = (await emailsTo(student.email))[0]!.metaJson.code as string;
    const reset = () => api("/auth/reset-password", { body: { email: student.email, subdomain: created.subdomain, code, new_password: "reset-to-this-one" } });
    expect((await reset()).status).toBe(200);
    expect((await reset()).status).toBe(400);
    const pushes = await delivered(created.id, student.id, "security.password_reset");
    expect(pushes.map((push) => push.installation_id).sort()).toEqual([student.current.installation_id, student.other.installation_id].sort());
  });

  it("security.device_blocked and security.device_unblocked: once each, repeats send nothing", async () => {
    const { school: created, admin } = await school();
    const student = await memberWithDevices(created);
    const path = `/t/users/${student.id}/devices/${student.authDeviceId}`;
    for (let i = 0; i < 2; i++) expect((await call(admin, `${path}/block`, { body: { reason: "lost" } })).status).toBe(200);
    const blocked = await delivered(created.id, student.id, "security.device_blocked");
    // The blocked device is left out: it cannot sign in any more.
    expect(blocked.map((push) => push.installation_id)).toEqual([student.other.installation_id]);

    for (let i = 0; i < 2; i++) expect((await call(admin, `${path}/unblock`, { body: {} })).status).toBe(200);
    const unblocked = await delivered(created.id, student.id, "security.device_unblocked");
    expect(unblocked.map((push) => push.installation_id).sort()).toEqual([student.current.installation_id, student.other.installation_id].sort());
    expect(unblocked[0]!.title).toBe("Устройство разблокировано");
  });

  it("security.device_signed_out: the other devices once; revoking again (no live session) sends nothing", async () => {
    const { school: created, admin } = await school();
    const student = await memberWithDevices(created);
    const path = `/t/users/${student.id}/devices/${student.authDeviceId}/revoke`;
    expect((await call(admin, path, { body: {} })).body.data.revoked_sessions).toBe(1);
    expect((await call(admin, path, { body: {} })).body.data.revoked_sessions).toBe(0);
    const pushes = await delivered(created.id, student.id, "security.device_signed_out");
    expect(pushes.map((push) => push.installation_id)).toEqual([student.other.installation_id]);
  });

  it("security.all_sessions_revoked: every device once with the number of sessions; a repeat sends nothing", async () => {
    const { school: created, admin } = await school();
    const student = await memberWithDevices(created);
    await signInOn(student, { installationId: student.other.installation_id });
    const path = `/t/users/${student.id}/sessions/revoke-all`;
    expect((await call(admin, path, { body: {} })).body.data.revoked_sessions).toBe(2);
    expect((await call(admin, path, { body: {} })).body.data.revoked_sessions).toBe(0);
    const pushes = await delivered(created.id, student.id, "security.all_sessions_revoked");
    expect(pushes).toHaveLength(2);
    expect(pushes[0]).toMatchObject({ body: "Администратор завершил все ваши сеансы (2). Войдите снова.", data: { sessions_count: 2 } });
  });

  it("security.device_limit_exceeded (off by default): once the school turns it on, admins hear of each monitored excess once", async () => {
    const { school: created, admin } = await school();
    await addPushDevice(created.id, admin.id);
    await call(admin, "/t/tenant/device-policy", { method: "PATCH", body: { mode: "monitor_only", max_active_devices: 1 } });
    const student = await memberWithDevices(created, "student", "Dilnoza");
    await signInOn(student, { name: "Second phone" });
    expect(await delivered(created.id, admin.id, "security.device_limit_exceeded")).toEqual([]);

    expect((await call(admin, "/t/notifications/admin/events/security.device_limit_exceeded", { method: "PATCH", body: { enabled: true } })).status).toBe(200);
    await signInOn(student, { name: "Third phone" });
    const pushes = await delivered(created.id, admin.id, "security.device_limit_exceeded");
    expect(pushes).toHaveLength(1);
    expect(pushes[0]!.body).toBe("Dilnoza User вошёл(ла) с устройства Third phone: активно 3 при лимите 1.");
    expect(pushes[0]!.data).toMatchObject({ active_devices: 3, max_active_devices: 1, student_name: "Dilnoza User", device_name: "Third phone" });
    await deliverNow(created.id);
    expect(await delivered(created.id, admin.id, "security.device_limit_exceeded")).toHaveLength(1);
  });
});

describe("account events", () => {
  it("account.role_changed: once, in the platform locale's words; the same role again sends nothing", async () => {
    const { school: created, admin } = await school();
    const member = await memberWithDevices(created);
    for (let i = 0; i < 2; i++) expect((await call(admin, `/t/users/${member.id}/role`, { method: "PUT", body: { role: "curator" } })).status).toBe(200);
    const pushes = await delivered(created.id, member.id, "account.role_changed");
    expect(pushes).toHaveLength(2); // one per device
    expect(pushes[0]).toMatchObject({ body: `Ваша роль в школе «${created.title}» теперь: куратор.`, data: { role: "curator", school_title: created.title } });
  });

  it("account.permissions_changed: once for a real change of the flags; the same flags again send nothing", async () => {
    const { school: created, admin } = await school();
    const curator = await memberWithDevices(created, "curator");
    const flags = { can_manage_courses: true, can_manage_students: false, can_manage_groups: false, can_view_analytics: true, can_manage_exams: false, can_manage_notifications: false };
    for (let i = 0; i < 2; i++) expect((await call(admin, `/t/users/${curator.id}/permissions`, { method: "PUT", body: flags })).status).toBe(200);
    expect(await delivered(created.id, curator.id, "account.permissions_changed")).toHaveLength(2);
  });

  it("account.curator_assigned and account.student_assigned: the student and the new curator once; the same curator again sends nothing", async () => {
    const { school: created, admin } = await school();
    const student = await memberWithDevices(created, "student", "Kamola");
    const curator = await memberWithDevices(created, "curator", "Rustam");
    for (let i = 0; i < 2; i++) expect((await call(admin, `/t/users/${student.id}/curator`, { method: "PUT", body: { curator_id: curator.id } })).status).toBe(200);
    const toStudent = await delivered(created.id, student.id, "account.curator_assigned");
    expect(toStudent).toHaveLength(2);
    expect(toStudent[0]!.body).toBe("Вашим куратором назначен(а) Rustam User.");
    const toCurator = await delivered(created.id, curator.id, "account.student_assigned");
    expect(toCurator).toHaveLength(2);
    expect(toCurator[0]!.body).toBe("Вам назначен студент Kamola User.");
  });

  it("account.activated: a real reactivation (single or bulk) once; activating an active account sends nothing", async () => {
    const { school: created, admin } = await school();
    const student = await memberWithDevices(created);
    await call(admin, `/t/users/${student.id}`, { method: "PUT", body: { is_active: false } });
    for (let i = 0; i < 2; i++) expect((await call(admin, `/t/users/${student.id}`, { method: "PUT", body: { is_active: true } })).status).toBe(200);
    expect(await call(admin, "/t/users/bulk-activate", { body: { ids: [student.id] } })).toMatchObject({ status: 200 });
    expect(await delivered(created.id, student.id, "account.activated")).toHaveLength(2);

    await call(admin, "/t/users/bulk-deactivate", { body: { ids: [student.id] } });
    for (let i = 0; i < 2; i++) expect((await call(admin, "/t/users/bulk-activate", { body: { ids: [student.id] } })).status).toBe(200);
    expect(await delivered(created.id, student.id, "account.activated")).toHaveLength(4);
  });

  it("account.device_limit_changed: when the effective limit changes (override set, then removed); the same override again sends nothing", async () => {
    const { school: created, admin } = await school();
    const student = await memberWithDevices(created);
    const path = `/t/users/${student.id}/device-policy-override`;
    for (let i = 0; i < 2; i++) expect((await call(admin, path, { method: "PUT", body: { unlimited_devices: false, max_active_devices: 3 } })).status).toBe(200);
    const set = await delivered(created.id, student.id, "account.device_limit_changed");
    expect(set).toHaveLength(2);
    expect(set[0]!.body).toBe("Ваш лимит устройств теперь: 3.");
    expect((await call(admin, path, { method: "DELETE" })).status).toBe(200);
    const all = await delivered(created.id, student.id, "account.device_limit_changed");
    expect(all).toHaveLength(4);
    // The school has no limit: null renders in words.
    expect(all.map((push) => push.body)).toContain("Ваш лимит устройств теперь: без ограничений.");
  });
});

describe("billing events", () => {
  it("billing.activated and billing.extended: each payment once, to every active admin with a device", async () => {
    const { school: created, admin } = await school({ planState: "trial" });
    await addPushDevice(created.id, admin.id);
    const root = await superadmin();
    const activated = await api(`/admin/tenants/${created.id}/activate`, { token: root.token, body: { days: 30, amount_cents: 100, title: "Monthly" } });
    expect(activated.status).toBe(200);
    const pushes = await delivered(created.id, admin.id, "billing.activated");
    expect(pushes).toHaveLength(1);
    expect(pushes[0]!.body).toMatch(/^Тариф «Monthly» оплачен на 30 дн\. Доступ открыт до \d{2}\.\d{2}\.\d{4} \d{2}:\d{2}\.$/);
    expect(pushes[0]!.data.expires_at).toBe(activated.body.data.applied_expires_at);

    expect((await api(`/admin/tenants/${created.id}/extend`, { token: root.token, body: { days: 10 } })).status).toBe(200);
    expect(await delivered(created.id, admin.id, "billing.extended")).toHaveLength(1);
    expect(await delivered(created.id, admin.id, "billing.activated")).toHaveLength(1);
  });

  it("billing.suspended and billing.unsuspended: once each; repeated calls send nothing", async () => {
    const { school: created, admin } = await school();
    await addPushDevice(created.id, admin.id);
    const root = await superadmin();
    for (let i = 0; i < 2; i++) expect((await api(`/admin/tenants/${created.id}/suspend`, { token: root.token, body: {} })).status).toBe(200);
    expect(await delivered(created.id, admin.id, "billing.suspended")).toHaveLength(1);
    for (let i = 0; i < 2; i++) expect((await api(`/admin/tenants/${created.id}/unsuspend`, { token: root.token, body: {} })).status).toBe(200);
    const pushes = await delivered(created.id, admin.id, "billing.unsuspended");
    expect(pushes).toHaveLength(1);
    expect(pushes[0]!.body).toBe(`Доступ школы «${created.title}» снова открыт.`);
  });

  it("billing.expiry_reminder and billing.expired from the cron: once each, re-runs send nothing", async () => {
    const noon = Date.parse("2031-05-10T07:00:00Z"); // 12:00 in Tashkent
    setClockForTests({ now: () => noon });
    const { school: created, admin } = await school({ planState: "paid", expiresAt: noon + 3 * DAY_MS });
    await addPushDevice(created.id, admin.id);
    await runCron(noon);
    await runCron(noon);
    const reminders = await delivered(created.id, admin.id, "billing.expiry_reminder");
    expect(reminders).toHaveLength(1);
    expect(reminders[0]!.body).toBe(`Доступ школы «${created.title}» закончится через 3 дн. (13.05.2031 12:00). Продлите подписку, чтобы обучение не прервалось.`);

    setClockForTests({ now: () => noon + 3 * DAY_MS + HOUR_MS });
    await runCron();
    await runCron();
    const expired = await delivered(created.id, admin.id, "billing.expired");
    expect(expired).toHaveLength(1);
    expect(expired[0]!.data).toMatchObject({ event_code: "billing.expired", tenant_id: created.id, plan_state: "suspended" });
    expect((await outboxRows(created.id)).map((row) => row.eventCode).sort()).toEqual(["billing.expired", "billing.expiry_reminder"]);
  });
});
