import { DeletedResult, jsonBody, optionalJsonBody } from "../../core/http/fields";
import { z } from "@hono/zod-openapi";
import { gates } from "../../core/http/gates";
import { createArea } from "../../core/http/area";
import { ok, okResponse } from "../../core/http/envelope";
import { IdParams } from "../../core/http/pagination";
import { defineRoute, tenantCtx } from "../../core/http/route";
import { billingErrors as e } from "./errors";
import * as s from "./schemas";
import { activate, extend, listPayments, ownBillingDossier, suspend, unsuspend } from "./service";
import { createTariff, deleteTariff, listTariffs, updateTariff } from "./tariff-service";

export const billingRoutes = createArea();

const idParams = { params: IdParams };
const VALIDATION = e.VALIDATION_ERROR.code;
const INVALID_ID = e.INVALID_ID_FORMAT.code;
const TARIFF_TAGS = ["Tariffs (superadmin)"];
const BILLING_TAGS = ["Billing (superadmin)"];

// ---------------------------------------------------------------------------------------------
// Tariffs

const createTariffRoute = defineRoute({
  method: "post",
  path: "/admin/tariffs",
  audit: { none: "platform tariff catalogue: belongs to no school's log" },
  gate: gates.superadmin,
  errors: { body: VALIDATION },
  tags: TARIFF_TAGS,
  summary: "Add a tariff to the catalog",
  request: jsonBody(s.CreateTariffBody),
  responses: { 201: okResponse(s.Tariff) },
});

billingRoutes.openapi(createTariffRoute, async (c) => ok(c, await createTariff(c.get("services"), c.req.valid("json")), 201));

const listTariffsRoute = defineRoute({
  method: "get",
  path: "/admin/tariffs",
  gate: gates.superadmin,
  errors: { query: VALIDATION },
  tags: TARIFF_TAGS,
  summary: "The tariff catalog in display order",
  request: { query: s.TariffsQuery },
  responses: { 200: okResponse(z.array(s.Tariff)) },
});

billingRoutes.openapi(listTariffsRoute, async (c) => ok(c, await listTariffs(c.get("services"), { activeOnly: c.req.valid("query").active })));

const updateTariffRoute = defineRoute({
  method: "patch",
  path: "/admin/tariffs/{id}",
  audit: { none: "platform tariff catalogue: belongs to no school's log" },
  gate: gates.superadmin,
  errors: { body: VALIDATION, param: INVALID_ID },
  tags: TARIFF_TAGS,
  summary: "Change a tariff (absent fields unchanged)",
  request: { ...idParams, ...jsonBody(s.UpdateTariffBody) },
  failures: [e.TARIFF_NOT_FOUND],
  responses: { 200: okResponse(s.Tariff) },
});

billingRoutes.openapi(updateTariffRoute, async (c) =>
  ok(c, await updateTariff(c.get("services"), { tariffId: c.req.valid("param").id, changes: c.req.valid("json") })),
);

const deleteTariffRoute = defineRoute({
  method: "delete",
  path: "/admin/tariffs/{id}",
  audit: { none: "platform tariff catalogue: belongs to no school's log" },
  gate: gates.superadmin,
  errors: { param: INVALID_ID },
  tags: TARIFF_TAGS,
  summary: "Soft-delete a tariff (payments keep their snapshot)",
  request: idParams,
  failures: [e.TARIFF_NOT_FOUND],
  responses: { 200: okResponse(DeletedResult) },
});

billingRoutes.openapi(deleteTariffRoute, async (c) => ok(c, await deleteTariff(c.get("services"), { tariffId: c.req.valid("param").id })));

// ---------------------------------------------------------------------------------------------
// Billing of schools. The school list and dossier (GET /admin/tenants, GET /admin/tenants/{id})
// live with the other /admin/tenants routes in src/platform/tenants/routes.ts.

const paymentsRoute = defineRoute({
  method: "get",
  path: "/admin/tenants/{id}/payments",
  gate: gates.superadmin,
  errors: { param: INVALID_ID },
  tags: BILLING_TAGS,
  summary: "A school's payments, newest first",
  request: { ...idParams, query: s.PaymentsQuery },
  failures: [e.TENANT_NOT_FOUND],
  responses: { 200: okResponse(s.PaymentsPage) },
});

billingRoutes.openapi(paymentsRoute, async (c) =>
  ok(c, await listPayments(c.get("services"), { tenantId: c.req.valid("param").id, page: c.req.valid("query") })),
);

const activateRoute = defineRoute({
  method: "post",
  path: "/admin/tenants/{id}/activate",
  audit: { actions: ["billing.activated"] },
  gate: gates.superadmin,
  errors: { body: e.INVALID_ACTIVATION_PAYLOAD.code, param: INVALID_ID },
  tags: BILLING_TAGS,
  summary: "Start a paid period, by tariff × periods or free-form",
  request: { ...idParams, ...jsonBody(s.ActivateBody) },
  failures: [e.TARIFF_INACTIVE, e.TARIFF_NOT_FOUND, e.TENANT_NOT_FOUND],
  responses: { 200: okResponse(s.Payment) },
});

billingRoutes.openapi(activateRoute, async (c) =>
  ok(c, await activate(c.get("services"), { tenantId: c.req.valid("param").id, actorUserId: c.get("actor")!.userId, body: c.req.valid("json"), by: c.get("actor")! })),
);

const extendRoute = defineRoute({
  method: "post",
  path: "/admin/tenants/{id}/extend",
  audit: { actions: ["billing.extended"] },
  gate: gates.superadmin,
  errors: { body: VALIDATION, param: INVALID_ID },
  tags: BILLING_TAGS,
  summary: "Add days to the current period",
  request: { ...idParams, ...jsonBody(s.ExtendBody) },
  failures: [e.TENANT_NOT_FOUND],
  responses: { 200: okResponse(s.Payment) },
});

billingRoutes.openapi(extendRoute, async (c) =>
  ok(c, await extend(c.get("services"), { tenantId: c.req.valid("param").id, actorUserId: c.get("actor")!.userId, body: c.req.valid("json"), by: c.get("actor")! })),
);

const suspendRoute = defineRoute({
  method: "post",
  path: "/admin/tenants/{id}/suspend",
  audit: { actions: ["billing.suspended"] },
  gate: gates.superadmin,
  errors: { body: VALIDATION, param: INVALID_ID },
  tags: BILLING_TAGS,
  summary: "Suspend a school manually (blocks /t/* including GET /t/billing/me)",
  request: { ...idParams, ...optionalJsonBody(s.SuspendBody) },
  failures: [e.TENANT_NOT_FOUND],
  responses: { 200: okResponse(s.Suspended) },
});

billingRoutes.openapi(suspendRoute, async (c) => {
  const body = c.req.valid("json") as z.infer<typeof s.SuspendBody> | undefined;
  return ok(c, await suspend(c.get("services"), { tenantId: c.req.valid("param").id, reason: body?.reason, by: c.get("actor")! }));
});

const unsuspendRoute = defineRoute({
  method: "post",
  path: "/admin/tenants/{id}/unsuspend",
  audit: { actions: ["billing.resumed"] },
  gate: gates.superadmin,
  errors: { param: INVALID_ID },
  tags: BILLING_TAGS,
  summary: "Lift a manual suspension",
  request: idParams,
  failures: [e.TENANT_NOT_FOUND],
  responses: { 200: okResponse(s.Unsuspended) },
});

billingRoutes.openapi(unsuspendRoute, async (c) => ok(c, await unsuspend(c.get("services"), { tenantId: c.req.valid("param").id, by: c.get("actor")! })));

const ownBillingRoute = defineRoute({
  method: "get",
  path: "/t/billing/me",
  gate: gates.admin,
  billing: "open_unless_manual",
  tags: ["Billing"],
  summary: "The school's own billing dossier (open on expiry, closed by a manual suspension)",
  responses: { 200: okResponse(s.SchoolBillingDossier) },
});

billingRoutes.openapi(ownBillingRoute, async (c) => ok(c, await ownBillingDossier(tenantCtx(c))));
