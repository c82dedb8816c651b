import { contractRoutes, routeKey } from "./contract";
import type { Policy } from "./gates";

/**
 * Routes the code serves beyond the contract's list, each with why. Any other route the code
 * registers outside the contract fails the coverage test. Extras that take a token carry a policy
 * in the contract's words, so the gate matrix checks them like contract routes.
 */
export interface Extra {
  method: string;
  path: string;
  reason: string;
  /** Whether it is declared with defineRoute (in the route registry) or a plain Hono route. */
  registered: boolean;
  policy?: Policy;
}

const contractTwin = (method: string, path: string): Policy => {
  const twin = contractRoutes.find((route) => routeKey(route) === `${method} ${path}`);
  if (!twin) throw new Error(`no contract route ${method} ${path}`);
  return twin;
};

const ownProfile = (method: string, path: string): Policy => ({
  method,
  path,
  family: "tenant",
  gate: "tenant_member",
  deny: null,
  billing: "enforced",
  errors: [],
});

export const ALLOWED_EXTRAS: readonly Extra[] = [
  { method: "GET", path: "/api/v1/health", reason: "liveness probe for the platform", registered: true },
  { method: "GET", path: "/api/v1/openapi.json", reason: "the generated OpenAPI document", registered: false },
  { method: "GET", path: "/api/v1/docs", reason: "the interactive reference over the OpenAPI document", registered: false },
  { method: "GET", path: "/api/v1/dev/mailbox", reason: "development mailbox, served only with DEV_MAILBOX=true", registered: true },
  { method: "GET", path: "/api/v1/dev/pushes", reason: "development pushbox, served only with DEV_PUSHBOX=true", registered: true },
  {
    method: "POST",
    path: "/api/v1/admin/tenants",
    reason: "the contract writes POST /admin/tenants/ with a trailing slash; the slashless form is an alias with the same policy",
    registered: true,
    policy: { ...contractTwin("POST", "/api/v1/admin/tenants/"), path: "/api/v1/admin/tenants" },
  },
  {
    method: "PATCH",
    path: "/api/v1/t/me/profile",
    reason: `project endpoint (docs/decisions/users.md, "Own profile"): a member edits their own name and avatar`,
    registered: true,
    policy: ownProfile("PATCH", "/api/v1/t/me/profile"),
  },
  {
    method: "POST",
    path: "/api/v1/media/:id/upload",
    reason: `project endpoint (docs/decisions/media.md, "Media"): the upload target of MEDIA_UPLOAD_MODE=worker; the signed form is its authorization`,
    registered: true,
  },
  {
    method: "GET",
    path: "/api/v1/media/:id/download",
    reason: `project endpoint (docs/decisions/media.md, "Media"): the signed, expiring download link every asset read hands out`,
    registered: true,
  },
  {
    method: "GET",
    path: "/api/v1/data-exports/:id/download",
    reason: `project endpoint (docs/decisions/data-export.md, "Download links"): the signed, expiring link GET /t/data-exports/:id hands out`,
    registered: true,
  },
  {
    method: "POST",
    path: "/api/v1/t/me/password",
    reason: `project endpoint (docs/decisions/users.md, "Own profile"): a member changes their own password`,
    registered: true,
    policy: ownProfile("POST", "/api/v1/t/me/password"),
  },
];
