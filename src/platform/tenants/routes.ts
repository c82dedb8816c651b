import { DeletedResult, jsonBody } from "../../core/http/fields";
import { gates } from "../../core/http/gates";
import { createArea } from "../../core/http/area";
import { ok, okResponse } from "../../core/http/envelope";
import { IdParams } from "../../core/http/pagination";
import { defineRoute, tenantCtx } from "../../core/http/route";
import { billingErrors } from "../billing/errors";
import * as billing from "../billing/schemas";
import { billingDossier, listTenantsBilling } from "../billing/service";
import { tenantsErrors as e } from "./errors";
import * as s from "./schemas";
import { createTenant, deleteTenant, getOwnTenant, publicBranding, updateOwnTenant, updateTenant } from "./service";

export const tenantsRoutes = createArea();

const idParams = { params: IdParams };
const ADMIN_TAGS = ["Schools (superadmin)"];

const publicTenantRoute = defineRoute({
  method: "get",
  path: "/public/tenant",
  gate: gates.public,
  errors: { query: e.SUBDOMAIN_REQUIRED.code },
  tags: ["Schools"],
  summary: "Branding of an active school for its login page",
  request: { query: s.PublicTenantQuery },
  failures: [e.BRANDING_NOT_FOUND],
  responses: { 200: okResponse(s.PublicBranding) },
});

tenantsRoutes.openapi(publicTenantRoute, async (c) => ok(c, await publicBranding(c.get("services"), c.req.valid("query"))));

/**
 * The contract writes this path with a trailing slash. Both spellings work; the document lists the
 * operation once, without the slash (a trailing slash is a lint error for API documents).
 */
function createTenantRoute(path: "/admin/tenants/" | "/admin/tenants", summary: string) {
  return defineRoute({
    method: "post",
    path,
    audit: { none: "the platform operator creates a school; its log starts empty" },
    hide: path.endsWith("/"),
    gate: gates.superadmin,
    errors: { body: e.VALIDATION_ERROR.code },
    tags: ADMIN_TAGS,
    summary,
    request: jsonBody(s.CreateTenantBody),
    failures: [e.SLUG_OR_SUBDOMAIN_TAKEN],
    responses: { 201: okResponse(s.Tenant) },
  });
}

for (const route of [
  createTenantRoute("/admin/tenants/", "Create a school (pending, trial period)"),
  createTenantRoute("/admin/tenants", "Create a school (pending, trial period); `POST /admin/tenants/` is the same operation"),
]) {
  tenantsRoutes.openapi(route, async (c) => ok(c, await createTenant(c.get("services"), c.req.valid("json")), 201));
}

// Every /admin/tenants and /admin/tenants/{id} route is here; the billing actions on a school
// (/admin/tenants/{id}/payments, activate, extend, suspend, unsuspend) are in src/platform/billing/routes.ts.

const listTenantsRoute = defineRoute({
  method: "get",
  path: "/admin/tenants",
  gate: gates.superadmin,
  tags: ADMIN_TAGS,
  summary: "Schools with their billing state",
  request: { query: billing.TenantsBillingQuery },
  responses: { 200: okResponse(billing.BillingList) },
});

tenantsRoutes.openapi(listTenantsRoute, async (c) => ok(c, await listTenantsBilling(c.get("services"), c.req.valid("query"))));

const dossierRoute = defineRoute({
  method: "get",
  path: "/admin/tenants/{id}",
  gate: gates.superadmin,
  errors: { param: e.INVALID_ID_FORMAT.code },
  tags: ADMIN_TAGS,
  summary: "Billing dossier of a school",
  request: idParams,
  failures: [billingErrors.TENANT_NOT_FOUND],
  responses: { 200: okResponse(billing.BillingDossier) },
});

tenantsRoutes.openapi(dossierRoute, async (c) => ok(c, await billingDossier(c.get("services"), { tenantId: c.req.valid("param").id })));

const updateTenantRoute = defineRoute({
  method: "put",
  path: "/admin/tenants/{id}",
  audit: { none: "the platform operator edits the school record in the control database; not a staff change of the school (docs/decisions/audit.md, \"What is not audited\")" },
  gate: gates.superadmin,
  errors: { body: e.VALIDATION_ERROR.code, param: e.INVALID_ID_FORMAT.code },
  tags: ADMIN_TAGS,
  summary: "Update a school's title, branding, menu flags, time zone or storage quota",
  request: { ...idParams, ...jsonBody(s.AdminUpdateTenantBody) },
  failures: [e.TENANT_NOT_FOUND],
  responses: { 200: okResponse(s.Tenant) },
});

tenantsRoutes.openapi(updateTenantRoute, async (c) =>
  ok(c, await updateTenant(c.get("services"), { tenantId: c.req.valid("param").id, changes: c.req.valid("json") })),
);

const deleteTenantRoute = defineRoute({
  method: "delete",
  path: "/admin/tenants/{id}",
  audit: { none: "the school itself is deleted: its log goes with it" },
  gate: gates.superadmin,
  errors: { param: e.INVALID_ID_FORMAT.code },
  tags: ADMIN_TAGS,
  summary: "Soft-delete a school: branding, login and tokens stop at once",
  request: idParams,
  failures: [e.TENANT_NOT_FOUND],
  responses: { 200: okResponse(DeletedResult) },
});

tenantsRoutes.openapi(deleteTenantRoute, async (c) => ok(c, await deleteTenant(c.get("services"), { tenantId: c.req.valid("param").id })));

const ownTenantRoute = defineRoute({
  method: "get",
  path: "/t/tenant",
  gate: gates.member,
  billing: "whitelisted",
  tags: ["Schools"],
  summary: "The school's full record (available while billing is suspended)",
  failures: [e.TENANT_NOT_FOUND],
  responses: { 200: okResponse(s.Tenant) },
});

tenantsRoutes.openapi(ownTenantRoute, async (c) => ok(c, await getOwnTenant(tenantCtx(c))));

const patchOwnTenantRoute = defineRoute({
  method: "patch",
  path: "/t/tenant",
  audit: { actions: ["school.branding_updated", "school.settings_updated"] },
  gate: gates.admin,
  errors: { body: e.VALIDATION_ERROR.code },
  tags: ["Schools"],
  summary: "Update the school's title, branding, menu flags or time zone",
  request: jsonBody(s.SchoolUpdateTenantBody),
  failures: [e.TENANT_NOT_FOUND],
  responses: { 200: okResponse(s.Tenant) },
});

tenantsRoutes.openapi(patchOwnTenantRoute, async (c) => ok(c, await updateOwnTenant(tenantCtx(c), { changes: c.req.valid("json") })));
