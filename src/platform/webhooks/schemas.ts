import { z } from "@hono/zod-openapi";
import { plainText } from "../../core/http/fields";
import { pageQuery, uuidParam } from "../../core/http/pagination";
import { PUBLIC_URL_MAX } from "../../core/lib/public-url";

/** Checked against the URL policy by the service (400 `invalid_webhook_url`, not a body error). */
const url = z.string().trim().min(1).max(PUBLIC_URL_MAX).openapi({ type: "string", format: "uri", example: "https://crm.example.com/hooks/lms" });
/** Checked against the event list by the service (400 `unknown_webhook_event`). */
const events = z
  .array(z.string().max(100))
  .min(1)
  .max(50)
  .openapi({ example: ["enrollment.created", "course.completed"], description: '1-50 event names, or ["*"] for every event' });
const description = plainText({ max: 200 }).nullable();

export const CreateWebhookBody = z.object({ url, events, description: description.optional() }).openapi("CreateWebhookRequest");
export type CreateWebhookBody = z.infer<typeof CreateWebhookBody>;

export const UpdateWebhookBody = z
  .object({ url: url.optional(), events: events.optional(), description: description.optional(), status: z.enum(["active", "disabled"]).optional() })
  .openapi("UpdateWebhookRequest");
export type UpdateWebhookBody = z.infer<typeof UpdateWebhookBody>;

export const Webhook = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(z.string()),
    description: z.string().nullable(),
    status: z.enum(["active", "disabled"]),
    consecutive_failures: z.number().int(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("Webhook");

export const WebhookWithSecret = Webhook.extend({ secret: z.string().openapi({ description: "whsec_ + base64 of 32 bytes; shown only here" }) }).openapi("WebhookWithSecret");

export const WebhookList = z.object({ webhooks: z.array(Webhook) }).openapi("WebhookList");

export const RotatedSecret = z.object({ secret: z.string() }).openapi("WebhookRotatedSecret");

export const WebhookDelivery = z
  .object({
    id: z.string(),
    event_id: z.string(),
    type: z.string(),
    status: z.enum(["pending", "delivered", "failed"]),
    attempts: z.number().int(),
    response_status: z.number().int().nullable(),
    duration_ms: z.number().int().nullable(),
    response_excerpt: z.string().nullable(),
    next_attempt_at: z.string().nullable(),
    created_at: z.string(),
    delivered_at: z.string().nullable(),
  })
  .openapi("WebhookDelivery");

export const DeliveriesQuery = z.object({ status: z.enum(["pending", "delivered", "failed"]).optional(), ...pageQuery({ maxLimit: 100, defaultLimit: 20 }) });

export const DeliveryList = z
  .object({ deliveries: z.array(WebhookDelivery), total: z.number().int(), page: z.number().int(), limit: z.number().int() })
  .openapi("WebhookDeliveryList");

export const DeliveryParams = z.object({ id: uuidParam, delivery_id: uuidParam });
