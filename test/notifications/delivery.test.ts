import { describe, expect, it } from "vitest";
import { newInstallation, schoolWithStudent, signInOn } from "../helpers/devices";
import { call, deliverNow, deliveriesOf, outboxRows, pushesFor, registerDevice } from "./helpers";

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
