import { createArea } from "../../core/http/area";
import { ok, okResponse } from "../../core/http/envelope";
import { jsonBody } from "../../core/http/fields";
import { gates } from "../../core/http/gates";
import { IdParams } from "../../core/http/pagination";
import { defineRoute, tenantCtx } from "../../core/http/route";
import { webhooksErrors as e } from "./errors";
import * as s from "./schemas";
import { createWebhook, deleteWebhook, getWebhook, listDeliveries, listWebhooks, redeliver, rotateWebhookSecret, testWebhook, updateWebhook } from "./service";

/** Signed webhooks (05 section 5, docs/decisions/webhooks.md). */
export const webhookRoutes = createArea();

const tags = ["Webhooks"];
const admin = { gate: gates.admin, deny: "forbidden" } as const;

const createRoute = defineRoute({
  method: "post",
  path: "/t/webhooks",
  ...admin,
  tags,
  summary: "Create a webhook; its signing secret is in this answer only",
  request: jsonBody(s.CreateWebhookBody),
  failures: [e.INVALID_WEBHOOK_URL, e.UNKNOWN_WEBHOOK_EVENT, e.WEBHOOK_LIMIT_REACHED],
  audit: { actions: ["webhook.created"] },
  responses: { 201: okResponse(s.WebhookWithSecret) },
});
webhookRoutes.openapi(createRoute, async (c) => ok(c, await createWebhook(tenantCtx(c), { body: c.req.valid("json") }), 201));

const listRoute = defineRoute({
  method: "get",
  path: "/t/webhooks",
  ...admin,
  tags,
  summary: "The school's webhooks (at most 10), newest first; no secrets",
  responses: { 200: okResponse(s.WebhookList) },
});
webhookRoutes.openapi(listRoute, async (c) => ok(c, await listWebhooks(tenantCtx(c))));

const getRoute = defineRoute({
  method: "get",
  path: "/t/webhooks/{id}",
  ...admin,
  tags,
  summary: "A webhook (no secret)",
  request: { params: IdParams },
  failures: [e.WEBHOOK_NOT_FOUND],
  responses: { 200: okResponse(s.Webhook) },
});
webhookRoutes.openapi(getRoute, async (c) => ok(c, await getWebhook(tenantCtx(c), { id: c.req.valid("param").id })));

const patchRoute = defineRoute({
  method: "patch",
  path: "/t/webhooks/{id}",
  ...admin,
  tags,
  summary: "Change a webhook's URL, events, description or status; re-enabling resets the failure count",
  request: { params: IdParams, ...jsonBody(s.UpdateWebhookBody) },
  failures: [e.INVALID_WEBHOOK_URL, e.UNKNOWN_WEBHOOK_EVENT, e.WEBHOOK_NOT_FOUND],
  audit: { actions: ["webhook.updated"] },
  responses: { 200: okResponse(s.Webhook) },
});
webhookRoutes.openapi(patchRoute, async (c) => ok(c, await updateWebhook(tenantCtx(c), { id: c.req.valid("param").id, body: c.req.valid("json") })));

const deleteRoute = defineRoute({
  method: "delete",
  path: "/t/webhooks/{id}",
  ...admin,
  tags,
  summary: "Delete a webhook; its pending deliveries are dropped",
  request: { params: IdParams },
  failures: [e.WEBHOOK_NOT_FOUND],
  audit: { actions: ["webhook.deleted"] },
  responses: { 204: { description: "Deleted" } },
});
webhookRoutes.openapi(deleteRoute, async (c) => {
  await deleteWebhook(tenantCtx(c), { id: c.req.valid("param").id });
  return c.body(null, 204);
});

const rotateRoute = defineRoute({
  method: "post",
  path: "/t/webhooks/{id}/rotate-secret",
  ...admin,
  tags,
  summary: "A new signing secret (shown once); the previous one keeps signing for 24 hours",
  request: { params: IdParams },
  failures: [e.WEBHOOK_NOT_FOUND],
  audit: { actions: ["webhook.secret_rotated"] },
  responses: { 200: okResponse(s.RotatedSecret) },
});
webhookRoutes.openapi(rotateRoute, async (c) => ok(c, await rotateWebhookSecret(tenantCtx(c), { id: c.req.valid("param").id })));

const testRoute = defineRoute({
  method: "post",
  path: "/t/webhooks/{id}/test",
  ...admin,
  tags,
  summary: "Queue a webhook.test delivery to this webhook",
  request: { params: IdParams },
  failures: [e.WEBHOOK_NOT_FOUND],
  audit: { none: "a test delivery changes no setting; it shows in the delivery log" },
  responses: { 200: okResponse(s.WebhookDelivery) },
});
webhookRoutes.openapi(testRoute, async (c) => ok(c, await testWebhook(tenantCtx(c), { id: c.req.valid("param").id })));

const deliveriesRoute = defineRoute({
  method: "get",
  path: "/t/webhooks/{id}/deliveries",
  ...admin,
  tags,
  summary: "A webhook's delivery log (30 days), newest first",
  request: { params: IdParams, query: s.DeliveriesQuery },
  failures: [e.WEBHOOK_NOT_FOUND],
  responses: { 200: okResponse(s.DeliveryList) },
});
webhookRoutes.openapi(deliveriesRoute, async (c) => ok(c, await listDeliveries(tenantCtx(c), { id: c.req.valid("param").id, ...c.req.valid("query") })));

const redeliverRoute = defineRoute({
  method: "post",
  path: "/t/webhooks/{id}/deliveries/{delivery_id}/redeliver",
  ...admin,
  tags,
  summary: "Try a delivery again now",
  request: { params: s.DeliveryParams },
  failures: [e.WEBHOOK_NOT_FOUND, e.WEBHOOK_DELIVERY_NOT_FOUND],
  audit: { none: "a new try of a delivery changes no setting; it shows in the delivery log" },
  responses: { 200: okResponse(s.WebhookDelivery) },
});
webhookRoutes.openapi(redeliverRoute, async (c) => {
  const params = c.req.valid("param");
  return ok(c, await redeliver(tenantCtx(c), { id: params.id, deliveryId: params.delivery_id }));
});
