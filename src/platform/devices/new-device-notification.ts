import { sql, type SQL } from "drizzle-orm";
import type { DeviceDescription, StartedSessionRefs } from "./session-service";
import type { BatchItem } from "../../core/db/batch";
import type { SchoolActor, SchoolCtx } from "../../core/http/context";
import { iso } from "../../core/lib/clock";
import { enqueue } from "../notifications/enqueue";

/** A device as a push names it: its name, or failing that "OS or browser, platform". */
export function deviceLabel(device: Pick<DeviceDescription, "name" | "osName" | "browserName" | "platform">): string {
  return device.name ?? [device.osName ?? device.browserName, device.platform].filter(Boolean).join(", ");
}

/** The same label as SQL over an `auth_devices` row, for devices the caller has not read. */
export function deviceLabelSql(deviceId: string | SQL): SQL {
  return sql`(SELECT COALESCE(d.name, CASE WHEN COALESCE(d.os_name, d.browser_name) IS NULL THEN d.platform ELSE COALESCE(d.os_name, d.browser_name) || ', ' || d.platform END)
    FROM auth_devices d WHERE d.id = ${deviceId})`;
}

/** The push installation of an auth device: its installation id, or `auth-device:<id>` without one. */
export function devicePushInstallationSql(deviceId: string): SQL {
  return sql`(SELECT COALESCE(d.installation_id, 'auth-device:' || d.id) FROM auth_devices d WHERE d.id = ${deviceId})`;
}

/**
 * `notify_on_new_device`: the first successful login from a new device queues one
 * `security.new_device_login` push to the user's other devices (the new installation is left
 * out). The outbox row is written in the login batch, only when the batch created the device, and
 * its dedupe key is the device id, so a retried batch records it once. The context is the school's
 * (its shard holds the login's rows).
 */
export function newDeviceNotificationStatement(
  ctx: SchoolCtx<SchoolActor>,
  input: { userId: string; device: DeviceDescription; pushInstallationId: string; refs: StartedSessionRefs },
): Promise<BatchItem> {
  const { refs, device } = input;
  return enqueue(
    ctx,
    "security.new_device_login",
    { token: "user_other_devices", userId: input.userId, excludeInstallationId: input.pushInstallationId },
    { device_name: deviceLabel(device), platform: device.platform, signed_in_at: iso(ctx.clock.now()) },
    { id: refs.newDeviceId },
    { exact: `security.new_device_login:${refs.newDeviceId}` },
    { when: refs.onNewDevice },
  );
}

/**
 * `security.device_limit_exceeded` (school admins, off by default): a monitored login admitted a
 * student's device beyond the limit. Written in the login batch after the `device_limit_exceeded`
 * device event and only if that event was written; the event's id is the dedupe key's `v`.
 */
export function deviceLimitExceededPush(
  ctx: SchoolCtx<SchoolActor>,
  input: { userId: string; sessionId: string; limitEventId: string; limit: number },
): Promise<BatchItem> {
  const deviceId = sql`(SELECT s.auth_device_id FROM sessions s WHERE s.id = ${input.sessionId})`;
  return enqueue(
    ctx,
    "security.device_limit_exceeded",
    { token: "school_admins" },
    {
      student_name: sql`(SELECT u.first_name || ' ' || u.last_name FROM users u WHERE u.id = ${input.userId})`,
      device_name: deviceLabelSql(deviceId),
      active_devices: sql`(SELECT json_extract(e.detail, '$.active_devices') FROM device_events e WHERE e.id = ${input.limitEventId})`,
      max_active_devices: input.limit,
    },
    { id: deviceId },
    sql`${"security.device_limit_exceeded:"} || ${deviceId} || ${`:${input.limitEventId}`}`,
    { when: sql`EXISTS (SELECT 1 FROM device_events e WHERE e.id = ${input.limitEventId})` },
  );
}
