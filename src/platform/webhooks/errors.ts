import { errorCatalogue } from "../../core/http/errors";

/** Failures of the webhook routes (05 section 5). */
export const webhooksErrors = errorCatalogue({
  INVALID_WEBHOOK_URL: [400, "invalid_webhook_url", "The URL must be https and name a public host."],
  UNKNOWN_WEBHOOK_EVENT: [400, "unknown_webhook_event", "Unknown webhook event."],
  WEBHOOK_LIMIT_REACHED: [409, "webhook_limit_reached", "A school has at most 10 webhooks."],
  /** Unknown, or another school's. */
  WEBHOOK_NOT_FOUND: [404, "webhook_not_found", "Webhook not found."],
  WEBHOOK_DELIVERY_NOT_FOUND: [404, "webhook_delivery_not_found", "Webhook delivery not found."],
});
