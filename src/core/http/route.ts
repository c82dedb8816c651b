import { createRoute, type RouteConfig } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { authenticate } from "../../platform/auth/authenticate";
import { checkBilling, type BillingRule } from "../../platform/auth/billing-gate";
import { passesGate, type Gate } from "../../platform/auth/gates";
import type { AppEnv } from "./context";
import { errorResponses } from "./envelope";
import { ApiError } from "./errors";

export const API_PREFIX = "/api/v1";

/** The spec's validation identifier per request part; each endpoint names its own spelling. */
interface ValidationErrors {
  /** JSON body problems, including malformed JSON and a wrong content type. Default `invalid_request_body`. */
  body?: string;
  /** Query-string problems. Default `invalid_params`. */
  query?: string;
  /** Path parameters (uuid checks). Default `invalid_id_format`. */
  param?: string;
}

interface RoutePolicy {
  gate: Gate;
  /** The identifier a caller below the gate gets: the spec says `forbidden` or `permission_denied` per endpoint. */
  deny?: "forbidden" | "permission_denied";
  /** How the billing gate treats this `/t/*` route. Default `enforced`. */
  billing?: BillingRule;
  errors?: ValidationErrors;
}

export interface RouteMeta extends Required<Omit<RoutePolicy, "errors">> {
  method: string;
  /** Full path in Hono form, e.g. `/api/v1/t/users/:id`. */
  path: string;
  family: "public" | "auth" | "tenant" | "admin" | "system";
  errors: Required<ValidationErrors>;
  /** The JSON body may be left out: an empty body or `null` then reads as `{}`. */
  optionalBody: boolean;
}

/** Every route declared with `defineRoute`, so tests can walk them all (gate matrix, input fuzzing). */
export const routeRegistry: RouteMeta[] = [];

function familyOf(path: string): RouteMeta["family"] {
  if (path.startsWith("/t/")) return "tenant";
  if (path.startsWith("/admin/")) return "admin";
  if (path.startsWith("/auth/")) return "auth";
  if (path.startsWith("/public/")) return "public";
  return "system";
}

/**
 * Declares a route with its gate next to its schemas. The returned config carries a guard
 * middleware that runs before the validators: who may call is decided before what they sent.
 */
export function defineRoute<const R extends Omit<RouteConfig, "middleware">>(definition: R & RoutePolicy): R {
  const { gate, deny, billing, errors, ...route } = definition;
  const meta: RouteMeta = {
    method: route.method.toUpperCase(),
    path: API_PREFIX + route.path.replaceAll(/\{(\w+)\}/g, ":$1"),
    family: familyOf(route.path),
    gate,
    deny: deny ?? "forbidden",
    billing: billing ?? "enforced",
    errors: {
      body: errors?.body ?? "invalid_request_body",
      query: errors?.query ?? "invalid_params",
      param: errors?.param ?? "invalid_id_format",
    },
    optionalBody: route.request?.body !== undefined && route.request.body.required !== true,
  };
  routeRegistry.push(meta);
  const config = route as unknown as RouteConfig;
  return createRoute({
    ...config,
    ...(gate.kind === "public" ? {} : { security: config.security ?? [{ bearer: [] }] }),
    responses: withGateResponses(config.responses, meta),
    middleware: [guard(meta)],
  }) as unknown as R;
}

/** The failures the guard itself can answer, derived from the gate so no route has to list them. */
function guardFailures(meta: RouteMeta): Partial<Record<400 | 401 | 403, string[]>> {
  if (meta.gate.kind === "public") return {};
  const forbidden: string[] = meta.gate.kind === "roles" || meta.gate.kind === "permission" ? [meta.deny] : [];
  if (meta.family === "tenant" && meta.billing !== "whitelisted") forbidden.push("PAYMENT_REQUIRED");
  return {
    401: ["unauthorized"],
    ...(forbidden.length > 0 ? { 403: forbidden } : {}),
    ...(meta.family === "admin" ? { 400: ["tenant_header_not_allowed"] } : {}),
  };
}

/** The route's documented responses plus the guard's; codes of the same status are listed together. */
function withGateResponses(responses: RouteConfig["responses"], meta: RouteMeta): RouteConfig["responses"] {
  const merged: RouteConfig["responses"] = { ...responses };
  for (const [status, codes] of Object.entries(guardFailures(meta))) {
    const own = merged[status] as { description: string } | undefined;
    const missing = codes.filter((code) => !own?.description.includes(`\`${code}\``));
    if (missing.length === 0) continue;
    const added = errorResponses({ [status]: missing } as Parameters<typeof errorResponses>[0])[status]!;
    merged[status] = own ? { ...added, ...own, description: `${own.description}, ${added.description}` } : added;
  }
  return merged;
}

function guard(meta: RouteMeta): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    c.set("route", meta);
    if (meta.family === "admin" && c.req.header("x-tenant-subdomain") !== undefined) {
      throw new ApiError(400, "tenant_header_not_allowed");
    }
    if (meta.gate.kind !== "public") {
      const actor = await authenticate(c.get("services"), {
        authorization: c.req.header("authorization"),
        // The URL's host: workerd does not expose a Host header on the Request.
        subdomain: requestedSubdomain(c.req.header("x-tenant-subdomain"), new URL(c.req.url).host, c.get("services").config.appDomain, meta.family),
        requireTenant: meta.family === "tenant",
      });
      c.set("actor", actor);
      if (!passesGate(meta.gate, actor)) throw new ApiError(403, meta.deny);
      if (meta.family === "tenant") checkBilling(meta.billing, actor, c.get("services").clock.now());
    }
    if (meta.optionalBody) await emptyBodyAsObject(c);
    return next();
  };
}

/**
 * A client that leaves an optional body out may still send `Content-Type: application/json` with
 * nothing (or `null`) after it; the validators would call that malformed. Hono parses JSON from
 * its cached text, so caching "{}" makes it validate as the empty object it means.
 */
async function emptyBodyAsObject(c: Context<AppEnv>): Promise<void> {
  if (!/json/i.test(c.req.header("content-type") ?? "")) return;
  const text = (await c.req.text()).trim();
  if (text === "" || text === "null") (c.req.bodyCache as Record<string, Promise<unknown>>).text = Promise.resolve("{}");
}

/** `X-Tenant-Subdomain`, else (on `/t/*` only) the first label of a Host under APP_DOMAIN. */
function requestedSubdomain(
  header: string | undefined,
  host: string | undefined,
  appDomain: string,
  family: RouteMeta["family"],
): string | null {
  if (header !== undefined && header.trim() !== "") return header.trim().toLowerCase();
  if (family !== "tenant" || !host) return null;
  const hostname = host.toLowerCase().replace(/:\d+$/, "");
  const suffix = "." + appDomain;
  if (!hostname.endsWith(suffix)) return null;
  const label = hostname.slice(0, -suffix.length);
  return /^[a-z0-9]+$/.test(label) ? label : null;
}
