import { describe, expect, it } from "vitest";
import { superadmin } from "../helpers/billing";
import { newInstallation, schoolWithStudent, signInOn } from "../helpers/devices";
import { createUser } from "../helpers/factories";
import { api } from "../helpers/http";
import { eq } from "drizzle-orm";
import * as schema from "../../src/db/schema";
import { db } from "../helpers/factories";
import { addPushDevice, call, deliverNow, deliveriesOf, outboxRows, pushesFor, registerDevice, writePush } from "./helpers";

describe("delivery through the push queue (log provider, dev pushbox)", () => {
  it("a new sign-in reaches the user's other devices once, with the event code and rendered text", async () => {
    const { student } = await schoolWithStudent();
    const phone = await signInOn(student, { installationId: newInstallation(), deviceToken: `tok-${crypto.randomUUID()}`, platform: "ios" });
    const tablet = await registerDevice(phone, { platform: "android" });
    const laptop = await signInOn(student, { name: "Laptop", platform: "web" });

    await deliverNow(student.tenantId);
    const pushes = await pushesFor(student.id);
    expect(pushes).toHaveLength(2);
    expect(pushes.map((push) => push.installation_id)).toContain(tablet.installation_id);
    expect(pushes[0]).toMatchObject({
      user_id: student.id,
      event_code: "security.new_device_login",
      title: "Новый вход в аккаунт",
      data: { event_code: "security.new_device_login", auth_device_id: laptop.authDeviceId, device_name: "Laptop", platform: "web" },
    });
    expect(pushes[0]!.body).toMatch(/^Вход с нового устройства: Laptop, \d{2}\.\d{2}\.\d{4} \d{2}:\d{2}\./);

    // Redelivered messages push nothing more.
    await deliverNow(student.tenantId);
    await deliverNow(student.tenantId);
    expect(await pushesFor(student.id)).toHaveLength(2);
    const [row] = (await outboxRows(student.tenantId)).filter((r) => r.eventCode === "security.new_device_login");
    expect(row).toMatchObject({ status: "sent", sentAt: expect.any(Number) });
    expect(await deliveriesOf(row!.id)).toHaveLength(2);

    // History shows it once.
    const history = await call(phone, "/t/notifications/me");
    expect(history.body.data.total).toBe(1);
    expect(history.body.data.notifications[0]).toMatchObject({ id: row!.id, event_code: "security.new_device_login", aggregate_type: "auth_device", aggregate_id: laptop.authDeviceId });
  });
});

describe("who never gets a push", () => {
  it("push_enabled false: the producer writes nothing for that user, and a switch-off after enqueueing suppresses delivery", async () => {
    const { admin, student } = await schoolWithStudent();
    const phone = await signInOn(student, { installationId: newInstallation() });
    await registerDevice(phone);
    const other = await registerDevice(phone);
    await call(phone, "/t/notifications/me/preferences", { method: "PATCH", body: { push_enabled: false } });
    await call(admin, `/t/users/${student.id}/sessions/revoke-all`, { body: {} });
    expect((await outboxRows(student.tenantId)).filter((row) => row.userId === student.id)).toEqual([]);

    // Written while on, switched off before delivery: suppressed, never pushed, never in the history.
    await db().delete(schema.pushPreferences).where(eq(schema.pushPreferences.userId, student.id));
    await writePush(student.tenantId, student.id);
    await db().insert(schema.pushPreferences).values({ tenantId: student.tenantId, userId: student.id, pushEnabled: false, updatedAt: Date.now() });
    await deliverNow(student.tenantId);
    const rows = (await outboxRows(student.tenantId)).filter((row) => row.userId === student.id);
    expect(rows.map((row) => [row.eventCode, row.status])).toEqual([["security.password_reset", "suppressed"]]);
    expect(await pushesFor(student.id)).toEqual([]);
    const again = await signInOn(student, { installationId: other.installation_id });
    await call(again, "/t/notifications/me/preferences", { method: "PATCH", body: { push_enabled: true } });
    expect((await call(again, "/t/notifications/me")).body.data).toMatchObject({ notifications: [], total: 0 });
  });

  it("a user without an enabled device gets no row; a device disabled before delivery leaves the row suppressed", async () => {
    const { admin, student } = await schoolWithStudent();
    await signInOn(student, { installationId: newInstallation() });
    await call(admin, `/t/users/${student.id}/sessions/revoke-all`, { body: {} });
    expect(await outboxRows(student.tenantId)).toEqual([]);

    const device = await addPushDevice(student.tenantId, student.id);
    await writePush(student.tenantId, student.id);
    await db().update(schema.pushDevices).set({ enabled: false }).where(eq(schema.pushDevices.id, device.id));
    await deliverNow(student.tenantId);
    expect((await outboxRows(student.tenantId)).map((row) => [row.status, row.lastError])).toEqual([["suppressed", "no enabled push device"]]);
    expect(await pushesFor(student.id)).toEqual([]);
  });

  it("the actor of a request is never told of their own action", async () => {
    const { school } = await schoolWithStudent();
    const curatorUser = await createUser(school.id, { role: "curator", permissions: { can_manage_groups: true, can_manage_students: true } });
    const curator = await signInOn({ ...curatorUser, subdomain: school.subdomain, tenantId: school.id }, { installationId: newInstallation() });
    await registerDevice(curator);
    const studentUser = await createUser(school.id, { role: "student" });
    await addPushDevice(school.id, studentUser.id);
    expect((await call(curator, `/t/users/${studentUser.id}/curator`, { method: "PUT", body: { curator_id: curator.id } })).status).toBe(200);
    await deliverNow(school.id);
    expect((await pushesFor(studentUser.id)).map((push) => push.event_code)).toEqual(["account.curator_assigned"]);
    expect(await pushesFor(curator.id)).toEqual([]);
  });

  it("an event the school switched off produces nothing; while billing is closed only security and billing events are produced", async () => {
    const { school, admin, student } = await schoolWithStudent();
    await addPushDevice(school.id, student.id);
    await addPushDevice(school.id, admin.id);
    expect((await call(admin, "/t/notifications/admin/events/account.role_changed", { method: "PATCH", body: { enabled: false } })).status).toBe(200);
    await call(admin, `/t/users/${student.id}/role`, { method: "PUT", body: { role: "curator" } });
    expect(await outboxRows(school.id)).toEqual([]);
    await call(admin, "/t/notifications/admin/events/account.role_changed", { method: "PATCH", body: { enabled: true } });

    // Suspended: the superadmin may still act in the school, but account events stay quiet.
    const root = await superadmin();
    await api(`/admin/tenants/${school.id}/suspend`, { token: root.token, body: {} });
    const asRoot = { token: root.token, subdomain: school.subdomain };
    expect((await call(asRoot, `/t/users/${student.id}/role`, { method: "PUT", body: { role: "student" } })).status).toBe(200);
    expect((await call(asRoot, `/t/users/${student.id}/sessions/revoke-all`, { body: {} })).status).toBe(200);
    const codes = (await outboxRows(school.id)).map((row) => row.eventCode).sort();
    expect(codes).toEqual(["billing.suspended"]);
  });
});
