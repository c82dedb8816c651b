import { log } from "../../src/core/lib/log";
import type { PushProvider } from "../../src/platform/notifications/delivery";

/**
 * Delivers nowhere: one structured line per push (ids and the event, never the token). The dev
 * pushbox (DEV_PUSHBOX) reads what it delivered from the deliveries table.
 */
export function logPushProvider(): PushProvider {
  return {
    name: "log",
    async send(push) {
      log.info("push (log provider)", { delivery_id: push.id, notification_id: push.data.notification_id, event_code: push.data.event_code });
      return { ok: true, providerMessageId: `log:${push.id}` };
    },
  };
}
