import { sql } from "drizzle-orm";
import type { DeviceDescription, StartedSessionRefs } from "../auth/session-service";
import type { BatchItem } from "../../core/db/batch";
import type { ServiceContext } from "../../core/http/context";
import { uuidv7 } from "../../core/lib/ids";
import { batchable } from "../../core/db/batch";

const NEW_DEVICE_EVENT_CODE = "security.new_device_login";

/**
 * `notify_on_new_device`: the first successful login from a new device queues one
 * `security.new_device_login` push to the user's other registered devices. The outbox row is
 * written in the login batch, only when the batch created the device, only when another enabled
 * push binding exists, and its dedupe key is the device id, so a retried batch records it once.
 * Delivery (and excluding the new installation, named in `data`) belongs to the notifications area.
 */
export function newDeviceNotificationStatement(
  ctx: ServiceContext,
  input: { tenantId: string; userId: string; device: DeviceDescription; pushInstallationId: string; refs: StartedSessionRefs },
): BatchItem {
  const now = ctx.clock.now();
  const { refs, device } = input;
  const deviceLabel = device.name ?? [device.osName ?? device.browserName, device.platform].filter(Boolean).join(", ");
  const data = {
    auth_device_id: refs.newDeviceId,
    device_name: device.name ?? null,
    platform: device.platform,
    exclude_installation_id: input.pushInstallationId,
    signed_in_at: new Date(now).toISOString(),
  };
  return batchable(ctx, sql`
    INSERT INTO notification_outbox (id, tenant_id, user_id, event_code, category, title, body, deep_link, data, aggregate_type, aggregate_id, dedupe_key, status, attempts, created_at)
    SELECT ${uuidv7(now)}, ${input.tenantId}, ${input.userId}, ${NEW_DEVICE_EVENT_CODE}, 'security', 'New sign-in to your account',
           ${`Your account was just signed in on a new device (${deviceLabel}). If this was not you, sign that device out and change your password.`},
           NULL, ${JSON.stringify(data)}, 'auth_device', ${refs.newDeviceId}, ${`${NEW_DEVICE_EVENT_CODE}:${refs.newDeviceId}`}, 'pending', 0, ${now}
    WHERE ${refs.onNewDevice}
      AND EXISTS (SELECT 1 FROM push_devices WHERE tenant_id = ${input.tenantId} AND user_id = ${input.userId} AND deleted_at IS NULL
                  AND enabled = 1 AND token_hash IS NOT NULL AND installation_id <> ${input.pushInstallationId})
    ON CONFLICT (dedupe_key) DO NOTHING`);
}
