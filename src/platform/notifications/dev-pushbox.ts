import { and, desc, eq } from "drizzle-orm";
import { notificationDeliveries, notificationOutbox, pushDevices } from "../../db/schema";
import type { ServiceContext } from "../../core/http/context";
import { iso } from "../../core/lib/clock";
import { inEveryDatabase } from "../../core/db/client";

const PUSHBOX_LIMIT = 100;

/**
 * Every push the `log` provider delivered to a user's devices, newest first, one entry per device
 * reached (DEV_PUSHBOX, local development only). Deliveries of a real provider are never listed.
 */
export async function readDevPushbox(ctx: ServiceContext, input: { userId: string }) {
  // Local development only: the user's school is not known here, so every school database is read.
  const found = await inEveryDatabase(ctx.env, (db) =>
    db
    .select({
      id: notificationDeliveries.id,
      userId: notificationDeliveries.userId,
      notificationId: notificationOutbox.id,
      eventCode: notificationOutbox.eventCode,
      title: notificationOutbox.title,
      body: notificationOutbox.body,
      deepLink: notificationOutbox.deepLink,
      data: notificationOutbox.data,
      deliveredAt: notificationDeliveries.deliveredAt,
      deviceId: pushDevices.id,
      installationId: pushDevices.installationId,
      platform: pushDevices.platform,
    })
    .from(notificationDeliveries)
    .innerJoin(notificationOutbox, eq(notificationOutbox.id, notificationDeliveries.outboxId))
    .innerJoin(pushDevices, eq(pushDevices.id, notificationDeliveries.pushDeviceId))
    .where(and(eq(notificationDeliveries.userId, input.userId), eq(notificationDeliveries.status, "sent"), eq(notificationDeliveries.provider, "log")))
    .orderBy(desc(notificationDeliveries.deliveredAt), desc(notificationDeliveries.id))
    .limit(PUSHBOX_LIMIT),
  );
  const rows = found.sort((a, b) => (b.deliveredAt ?? 0) - (a.deliveredAt ?? 0) || (a.id < b.id ? 1 : -1)).slice(0, PUSHBOX_LIMIT);
  return {
    pushes: rows.map((row) => ({
      id: row.id,
      notification_id: row.notificationId,
      user_id: row.userId,
      installation_id: row.installationId,
      device: { id: row.deviceId, installation_id: row.installationId, platform: row.platform },
      event_code: row.eventCode,
      title: row.title,
      body: row.body,
      deep_link: row.deepLink,
      data: row.data,
      delivered_at: iso(row.deliveredAt ?? 0),
    })),
  };
}
