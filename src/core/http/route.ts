import { createRoute, z, type RouteConfig } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { shardSession, validBookmark } from "../db/client";
import { serverTimingValue, type StatementTiming } from "../db/timing";
import { forSchool } from "../school";
import type { Actor, AppEnv, ServiceContext, SchoolCtx, TenantSummary } from "./context";
import { ErrorBody, errorResponses, errorSchemaWithIdentifiers } from "./envelope";
import { ApiError, coreErrors, type ErrorEntry } from "./errors";
import { passesGate, type Gate } from "./gates";
import { browserRequestAllowed } from "./origins";

/**
 * `enforced`: blocked while billing is suspended or expired.
 * `whitelisted`: the school read/branding endpoints, always open.
 * `open_unless_manual`: GET /t/billing/me, open on expiry but closed by a manual suspension.
 */
export type BillingRule = "enforced" | "whitelisted" | "open_unless_manual";

/**
 * Who the caller is and whether their school's billing admits the route. The platform's auth area
 * provides it and app assembly hands it to every request (`accessControl`, src/app.ts): core knows
 * the guard's order, not how tokens work.
 */
export interface AccessControl {
  authenticate(ctx: ServiceContext, input: { authorization: string | undefined; subdomain: string | null; requireTenant: boolean }): Promise<Actor>;
  checkBilling(rule: BillingRule, actor: Actor, now: number): void;
  /** Bookkeeping of an admitted caller (last activity) to finish after the response; null when nothing is due. */
  afterAdmission(ctx: ServiceContext, actor: Actor): Promise<unknown> | null;
}

/** The app-wide middleware that makes `control` the access control of every route's guard. */
export function accessControl(control: AccessControl): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    c.set("access", control);
    await next();
  };
}

export const API_PREFIX = "/api/v1";

/**
 * Read replicas (./../db/client.ts `shardSession`): every `/t/*` answer carries the bookmark of its
 * D1 session; a client that sends it back reads at least what that answer saw or wrote. The auth
 * check and the billing gate read the primary (authenticate does not use the session).
 */
export const BOOKMARK_HEADER = "X-D1-Bookmark";

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
  /**
   * The identifier a caller below the gate gets: the spec says `forbidden` or `permission_denied`
   * per endpoint, or names an area's own (an entry of its catalogue, such as `student_only`).
   */
  deny?: "forbidden" | "permission_denied" | ErrorEntry;
  /** How the billing gate treats this `/t/*` route. Default `enforced`. */
  billing?: BillingRule;
  errors?: ValidationErrors;
  /**
   * Sign-in and refresh-cookie flows: a browser request from an origin that is not allowed is
   * refused (403 `origin_not_allowed`) before any work, so a foreign page cannot sign a user in or
   * spend their refresh cookie. Native requests are unaffected.
   */
  cookieFlow?: boolean;
  /**
   * The failures the handler's verbs can answer, from the areas' error catalogues. They are
   * documented with the guard's and validators' own, so no route writes an error response by hand.
   */
  failures?: readonly ErrorEntry[];
  /**
   * A `/t/*` route that answers a valid token addressing no school with 403 `tenant_required`
   * instead of the usual 401 (the contract names the endpoints that do).
   */
  schoolRequired?: boolean;
  /**
   * The audit log (05 section 6, docs/decisions/audit.md): the actions a successful call writes,
   * or why this write route writes none. test/audit/route-walk.test.ts walks the registry with it.
   */
  audit?: AuditDeclaration;
}

/** What a route writes to the audit log: its actions (`user.updated`), or `none` with the reason. */
export type AuditDeclaration = { actions: readonly string[] } | { none: string };

export interface RouteMeta extends Required<Omit<RoutePolicy, "errors" | "failures" | "cookieFlow" | "schoolRequired" | "deny" | "audit">> {
  /** Null where the route says nothing (reads, and areas the audit log does not cover). */
  audit: AuditDeclaration | null;
  /** The deny identifier. */
  deny: string;
  cookieFlow: boolean;
  schoolRequired: boolean;
  method: string;
  /** Full path in Hono form, e.g. `/api/v1/t/users/:id`. */
  path: string;
  family: "public" | "auth" | "tenant" | "admin" | "system";
  errors: Required<ValidationErrors>;
  /** The JSON body may be left out: an empty body or `null` then reads as `{}`. */
  optionalBody: boolean;
  /** False for an alias left out of the OpenAPI document (`hide: true`), such as a trailing-slash twin. */
  documented: boolean;
  /** Every (status, identifier) the route documents: its verbs', its validators' and its guard's. */
  failures: { status: number; code: string }[];
}

/** Every route declared with `defineRoute`, so tests can walk them all (gate matrix, input fuzzing). */
export const routeRegistry: RouteMeta[] = [];

function familyOf(path: string): RouteMeta["family"] {
  if (path.startsWith("/t/")) return "tenant";
  if (path.startsWith("/admin/")) return "admin";
  if (path.startsWith("/auth/")) return "auth";
  if (path.startsWith("/public/")) return "public";
  // 05 section 4: certificate verification and its keys, public and without a school.
  if (path.startsWith("/verify/") || path.startsWith("/.well-known/")) return "public";
  return "system";
}

/**
 * Declares a route with its gate next to its schemas. The returned config carries a guard
 * middleware that runs before the validators: who may call is decided before what they sent.
 */
export function defineRoute<const R extends Omit<RouteConfig, "middleware">>(definition: R & RoutePolicy): R {
  const { gate, deny, billing, errors, failures, cookieFlow, schoolRequired, audit, ...route } = definition;
  const meta: RouteMeta = {
    method: route.method.toUpperCase(),
    path: API_PREFIX + route.path.replaceAll(/\{(\w+)\}/g, ":$1"),
    family: familyOf(route.path),
    gate,
    deny: typeof deny === "object" ? deny.code : (deny ?? "forbidden"),
    billing: billing ?? "enforced",
    errors: {
      body: errors?.body ?? "invalid_request_body",
      query: errors?.query ?? "invalid_params",
      param: errors?.param ?? "invalid_id_format",
    },
    optionalBody: route.request?.body !== undefined && route.request.body.required !== true,
    cookieFlow: cookieFlow ?? false,
    schoolRequired: schoolRequired ?? false,
    audit: audit ?? null,
    documented: route.hide !== true,
    failures: [],
  };
  const config = route as unknown as RouteConfig;
  const documented = [...validationFailures(config, meta), ...(failures ?? [])];
  meta.failures = uniqueFailures([...documented, ...guardEntries(meta)]);
  routeRegistry.push(meta);
  const denial = typeof deny === "object" ? deny : deny === "permission_denied" ? coreErrors.PERMISSION_DENIED : coreErrors.FORBIDDEN;
  return createRoute({
    ...config,
    operationId: config.operationId ?? operationIdOf(route.method, route.path),
    // A public operation says so explicitly, so generated clients send no credentials.
    security: config.security ?? (gate.kind === "public" ? [] : [{ bearer: [] }]),
    ...(meta.family === "tenant"
      ? { parameters: [...(config.parameters ?? []), { ...TENANT_HEADER_PARAMETER }, { ...BOOKMARK_HEADER_PARAMETER }] as RouteConfig["parameters"] }
      : {}),
    responses: withErrorEnums(withGateResponses(withFailures(meta.family === "tenant" ? withBookmarkHeader(config.responses) : config.responses, documented), meta), meta.failures),
    middleware: [guard(meta, denial)],
  }) as unknown as R;
}

/**
 * `X-Tenant-Subdomain`, documented as required on every `/t/*` operation so "Try it" and generated
 * clients send it. The guard also accepts the school from the Host (`<school>.APP_DOMAIN`), which is
 * why it is not validated as a header: a browser on the school's own subdomain may leave it out.
 */
export const TENANT_HEADER_PARAMETER = {
  name: "X-Tenant-Subdomain",
  in: "header" as const,
  required: true,
  description: "The school's subdomain (lower case). May be left out when the request's host is `<school>.APP_DOMAIN`.",
  schema: { type: "string" as const, pattern: "^[a-z0-9]+$", example: "demo" },
};

const BOOKMARK_DESCRIPTION =
  "The bookmark of the D1 session that served this request (read replicas). Send it back as `X-D1-Bookmark` and the next request reads at least what this one saw or wrote.";

/** `X-D1-Bookmark` on every `/t/*` operation: optional; a malformed value is ignored. */
export const BOOKMARK_HEADER_PARAMETER = {
  name: BOOKMARK_HEADER,
  in: "header" as const,
  required: false,
  description:
    "The `X-D1-Bookmark` of an earlier answer: this request then reads data at least as fresh as that answer's (read your own writes). Without it, reads may be served by a read replica a moment behind. A malformed value is ignored.",
  schema: { type: "string" as const, maxLength: 300, example: "00000085-0000024c-00004c6d-8e61117bf38d7adb71b934ebbf891683" },
};

/** The bookmark header documented on a `/t/*` operation's success answers. */
function withBookmarkHeader(responses: RouteConfig["responses"]): RouteConfig["responses"] {
  return Object.fromEntries(
    Object.entries(responses).map(([status, response]) =>
      status.startsWith("2") && response && !("$ref" in response)
        ? [status, { ...response, headers: { ...(response.headers as object | undefined), [BOOKMARK_HEADER]: { description: BOOKMARK_DESCRIPTION, schema: { type: "string" } } } }]
        : [status, response],
    ),
  ) as RouteConfig["responses"];
}

/** A stable operationId from method and path: `GET /t/users/{id}/devices` → `getTUsersByIdDevices`. */
export function operationIdOf(method: string, path: string): string {
  const words = path
    .split("/")
    .filter(Boolean)
    .map((segment) => {
      const param = /^\{(\w+)\}$/.exec(segment);
      const word = param ? `by-${param[1]!}` : segment;
      return word
        .split(/[^A-Za-z0-9]+/)
        .filter(Boolean)
        .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
        .join("");
    });
  return method.toLowerCase() + words.join("");
}

/** The validators' identifiers for the request parts the route declares. */
function validationFailures(config: RouteConfig, meta: RouteMeta): ErrorEntry[] {
  const request = config.request ?? {};
  const parts: [keyof ValidationErrors, unknown][] = [
    ["param", request.params],
    ["query", request.query],
    ["body", request.body],
  ];
  return parts
    .filter(([, declared]) => declared !== undefined)
    .map(([part]) => ({ status: 400, code: meta.errors[part], message: `The request's ${part} is invalid.` }));
}

function uniqueFailures(entries: readonly { status: number; code: string }[]): { status: number; code: string }[] {
  const seen = new Map<string, { status: number; code: string }>();
  for (const { status, code } of entries) seen.set(`${status} ${code}`, { status, code });
  return [...seen.values()];
}

/** The guard's failures as entries, for the route's registry record. */
function guardEntries(meta: RouteMeta): { status: number; code: string }[] {
  return Object.entries(guardFailures(meta)).flatMap(([status, codes]) => (codes ?? []).map((code) => ({ status: Number(status), code })));
}

/** Adds catalogue entries to the route's documented responses, grouped by status. */
function withFailures(responses: RouteConfig["responses"], entries: readonly ErrorEntry[]): RouteConfig["responses"] {
  const byStatus: Record<string, string[]> = {};
  for (const entry of entries) (byStatus[entry.status] ??= []).push(entry.code);
  return mergeResponses(responses, byStatus);
}

/** The failures the guard itself can answer, derived from the gate so no route has to list them. */
function guardFailures(meta: RouteMeta): Partial<Record<400 | 401 | 403, string[]>> {
  if (meta.gate.kind === "public") return meta.cookieFlow ? { 403: [coreErrors.ORIGIN_NOT_ALLOWED.code] } : {};
  const forbidden: string[] = meta.gate.kind === "roles" || meta.gate.kind === "permission" ? [meta.deny] : [];
  if (meta.family === "tenant" && meta.billing !== "whitelisted") forbidden.push("PAYMENT_REQUIRED");
  if (meta.schoolRequired) forbidden.push(coreErrors.TENANT_REQUIRED.code);
  return {
    401: ["unauthorized"],
    ...(forbidden.length > 0 ? { 403: forbidden } : {}),
    ...(meta.family === "admin" ? { 400: ["tenant_header_not_allowed"] } : {}),
  };
}

/** The route's documented responses plus the guard's; codes of the same status are listed together. */
function withGateResponses(responses: RouteConfig["responses"], meta: RouteMeta): RouteConfig["responses"] {
  return mergeResponses(responses, guardFailures(meta));
}

function mergeResponses(responses: RouteConfig["responses"], failures: Partial<Record<string, string[]>>): RouteConfig["responses"] {
  const merged: RouteConfig["responses"] = { ...responses };
  for (const [status, codes] of Object.entries(failures)) {
    if (!codes) continue;
    const own = merged[status] as { description: string } | undefined;
    const missing = [...new Set(codes)].filter((code) => !own?.description.includes(`\`${code}\``));
    if (missing.length === 0) continue;
    const added = errorResponses({ [status]: missing } as Parameters<typeof errorResponses>[0])[status]!;
    merged[status] = own ? { ...added, ...own, description: `${own.description}, ${added.description}` } : added;
  }
  return merged;
}

/**
 * Each failure response's `error` as the enum of that status's identifiers (an `allOf` over the
 * shared `Error` schema, or over a response's own extension of it such as `DeviceLimitError`), so
 * generated clients get the exact union per operation and status
 * (docs/decisions/api-client.md, "Error identifiers as enums in the document").
 */
function withErrorEnums(responses: RouteConfig["responses"], failures: readonly { status: number; code: string }[]): RouteConfig["responses"] {
  const out: RouteConfig["responses"] = { ...responses };
  for (const [status, response] of Object.entries(out)) {
    if (status.startsWith("2") || !response || "$ref" in response) continue;
    const json = response.content?.["application/json"];
    const schema = json && "schema" in json ? json.schema : undefined;
    const codes = [...new Set(failures.filter((failure) => String(failure.status) === status).map((failure) => failure.code))];
    if (!json || codes.length === 0) continue;
    let narrowed;
    if (schema === ErrorBody) narrowed = errorSchemaWithIdentifiers(codes);
    else if (schema instanceof z.ZodObject) narrowed = schema.extend({ error: z.enum(codes as [string, ...string[]]) });
    else continue;
    out[status] = { ...response, content: { ...response.content, "application/json": { ...json, schema: narrowed } } };
  }
  return out;
}

function guard(meta: RouteMeta, denial: ErrorEntry): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    c.set("route", meta);
    if (meta.cookieFlow) {
      const headers = { origin: c.req.header("origin"), secFetchSite: c.req.header("sec-fetch-site") };
      if (!browserRequestAllowed(headers, c.get("services").config)) throw new ApiError(coreErrors.ORIGIN_NOT_ALLOWED);
    }
    if (meta.family === "admin" && c.req.header("x-tenant-subdomain") !== undefined) {
      throw new ApiError(coreErrors.TENANT_HEADER_NOT_ALLOWED);
    }
    if (meta.gate.kind !== "public") {
      const access = c.get("access");
      if (!access) throw new Error("the app was assembled without accessControl(...)");
      const services = c.get("services");
      // The URL's host: workerd does not expose a Host header on the Request.
      const subdomain = requestedSubdomain(c.req.header("x-tenant-subdomain"), new URL(c.req.url).host, services.config.appDomain, meta.family);
      const schoolMissing = meta.family === "tenant" && subdomain === null && meta.schoolRequired;
      const actor = await access.authenticate(services, {
        authorization: c.req.header("authorization"),
        subdomain,
        requireTenant: meta.family === "tenant" && !schoolMissing,
      });
      // The token is valid (authenticate passed), so the caller learns what is missing.
      if (schoolMissing) throw new ApiError(coreErrors.TENANT_REQUIRED);
      c.set("actor", actor);
      if (!passesGate(meta.gate, actor)) throw new ApiError(denial);
      let session: ReturnType<typeof shardSession> | null = null;
      const timing: StatementTiming | undefined = services.config.d1Timing ? { count: 0, slowestMs: 0 } : undefined;
      if (meta.family === "tenant") {
        access.checkBilling(meta.billing, actor, services.clock.now());
        session = shardSession(services.env, schoolOf(actor).shard, {
          readOnly: meta.method === "GET",
          bookmark: validBookmark(c.req.header(BOOKMARK_HEADER)),
          timing,
        });
        c.set("tenantCtx", forSchool(services, schoolOf(actor), actor, session.db));
      }
      const pending = access.afterAdmission(services, actor);
      if (pending) afterResponse(c, pending);
      if (session) {
        if (meta.optionalBody) await emptyBodyAsObject(c);
        await next();
        const bookmark = session.bookmark();
        if (bookmark) c.header(BOOKMARK_HEADER, bookmark);
        if (timing) {
          // A streamed body (the enrollments CSV) runs its statements after the header would go
          // out; the bench's timing reads the whole body first so they count.
          if (c.res.body) c.res = new Response(await c.res.arrayBuffer(), c.res);
          c.header("Server-Timing", serverTimingValue(timing));
        }
        return;
      }
    }
    if (meta.optionalBody) await emptyBodyAsObject(c);
    return next();
  };
}

/** Off the response path when the runtime offers it (`waitUntil`); `app.request` in tests has no execution context. */
function afterResponse(c: Context<AppEnv>, work: Promise<unknown>): void {
  let executionCtx: { waitUntil(promise: Promise<unknown>): void } | undefined;
  try {
    executionCtx = c.executionCtx;
  } catch {
    executionCtx = undefined;
  }
  if (executionCtx) executionCtx.waitUntil(work);
  else void work;
}

function schoolOf(actor: Actor): TenantSummary {
  // authenticate requires a school on /t/* routes, so this is a programming error, not a 4xx.
  if (!actor.tenant) throw new Error("a school route was reached without a school");
  return actor.tenant;
}



/** The school context of a `/t/*` handler (set by its guard). */
export function tenantCtx(c: Context<AppEnv>): SchoolCtx {
  const ctx = c.get("tenantCtx");
  if (!ctx) throw new Error("tenantCtx() is for /t/* routes, whose guard builds it");
  return ctx;
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
