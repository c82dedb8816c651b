import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { routeRegistry } from "../../src/core/http/route";
import * as schema from "../../src/db/schema";
import { db } from "../helpers/factories";
import { castFor, concretePath, passingCaller, PLACEHOLDER_ID, type Cast } from "../helpers/routes";

type JsonSchema = {
  $ref?: string;
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
};

/** Values of the wrong type (and oversize strings) for every property of a body schema. */
function hostileBodies(schema: JsonSchema | undefined): unknown[] {
  const properties = schema?.properties ?? {};
  const names = Object.keys(properties);
  const huge = "x".repeat(100_000);
  const bodies: unknown[] = [[], "text", 42, null, { unexpected: true }];
  if (names.length > 0) {
    bodies.push(Object.fromEntries(names.map((name) => [name, 12345])));
    bodies.push(Object.fromEntries(names.map((name) => [name, huge])));
    bodies.push(Object.fromEntries(names.map((name) => [name, { nested: [1, 2, 3] }])));
    bodies.push(Object.fromEntries(names.map((name) => [name, [huge]])));
    bodies.push(Object.fromEntries(names.map((name) => [name, true])));
    bodies.push(Object.fromEntries(names.map((name) => [name, -1])));
  }
  return bodies;
}

/** `[[[…1…]]]` 5,000 levels deep, as JSON text (past SQLite's JSON depth and the RPC's serializer). */
const DEEP = "[".repeat(5_000) + "1" + "]".repeat(5_000);

/**
 * The body's shape with plausible leaves (uuids, "x", 1, true, an enum's first value) and a deep
 * value in every free-form object (answer payloads, block payloads): a body that passes the
 * route's own checks far enough for the deep value to travel on.
 */
function deepInside(schema: JsonSchema | undefined, components: Record<string, JsonSchema>, level = 0): string {
  if (!schema || level > 6) return DEEP;
  if (schema.$ref) return deepInside(components[schema.$ref.split("/").pop()!], components, level + 1);
  const options = schema.anyOf ?? schema.oneOf;
  if (options?.length) return deepInside(options.find((option) => option.type !== "null") ?? options[0], components, level + 1);
  const names = Object.keys(schema.properties ?? {});
  if (names.length > 0) return `{${names.map((name) => `${JSON.stringify(name)}:${deepInside(schema.properties![name], components, level + 1)}`).join(",")}}`;
  if (schema.enum?.length) return JSON.stringify(schema.enum[0]);
  const type = Array.isArray(schema.type) ? schema.type.find((item) => item !== "null") : schema.type;
  if (type === "object") return `{"deep":${DEEP}}`;
  if (type === "array") return `[${deepInside(schema.items, components, level + 1)}]`;
  if (type === "string") return JSON.stringify(schema.format === "uuid" ? PLACEHOLDER_ID : "x");
  if (type === "integer" || type === "number") return "1";
  if (type === "boolean") return "true";
  return DEEP;
}

/** A deep value as the whole body, under every property at once, and in every free-form object of the body's shape. */
function deepBodies(schema: JsonSchema, components: Record<string, JsonSchema>): string[] {
  const names = Object.keys(schema.properties ?? {});
  const bodies = [DEEP, deepInside(schema, components)];
  if (names.length > 0) bodies.push(`{${names.map((name) => `${JSON.stringify(name)}:${DEEP}`).join(",")}}`);
  return bodies;
}

async function send(path: string, method: string, cast: Cast, route: (typeof routeRegistry)[number], body: string | undefined, contentType = "application/json") {
  const headers: Record<string, string> = {};
  if (route.gate.kind !== "public") headers.authorization = `Bearer ${cast.tokens[passingCaller(route)]}`;
  if (route.family === "tenant" || route.path.startsWith("/api/v1/auth/me")) headers["x-tenant-subdomain"] = cast.subdomain;
  if (body !== undefined) headers["content-type"] = contentType;
  const res = await SELF.fetch(`https://api.lms.localhost${path}`, { method, headers, body });
  const text = await res.text();
  return { status: res.status, text };
}

/**
 * Every registered route, called by a caller who passes its gate, with malformed JSON, wrong
 * types, oversize strings, values nested 5,000 levels deep, a wrong content type and non-uuid
 * ids: a 4xx, never a 500.
 */
describe("input robustness of every route", () => {
  it("never answers 5xx to hostile input", async () => {
    const cast = await castFor();
    const docResponse = await SELF.fetch("https://api.lms.localhost/api/v1/openapi.json");
    expect(docResponse.status, "the OpenAPI document must generate (see test/system/openapi.test.ts)").toBe(200);
    const spec = (await docResponse.json()) as OpenApiDocument;
    const failures: string[] = [];
    let withBodySchema = 0;
    for (const route of routeRegistry) {
      const openApiPath = route.path.replaceAll(/:(\w+)/g, "{$1}");
      const operation = spec.paths[openApiPath]?.[route.method.toLowerCase()];
      const components = spec.components?.schemas ?? {};
      const documented = operation?.requestBody?.content?.["application/json"]?.schema;
      const bodySchema = documented;
      // A named body is a $ref to its component: the deep bodies follow it to the body's properties.
      const bodyShape = documented?.$ref ? components[documented.$ref.split("/").pop()!] : documented;
      if (bodySchema) withBodySchema += 1;
      const paths = [`/api/v1${concretePath(route)}`];
      if (route.path.includes(":")) {
        for (const bad of ["not-a-uuid", "1", "%27%3B--", "0190a6c2-1111-7000-8000-00000000000Z"]) paths.push(`/api/v1${concretePath(route, bad)}`);
      }
      const attempts: [string, string | undefined, string?][] = [];
      for (const path of paths) attempts.push([path, undefined]);
      if (route.method !== "GET" && route.method !== "DELETE") {
        const path = paths[0]!;
        attempts.push([path, "{not json"], [path, "", "application/json"], [path, "a=1", "application/x-www-form-urlencoded"], [path, "<xml/>", "text/xml"]);
        for (const body of hostileBodies(bodySchema)) attempts.push([path, JSON.stringify(body)]);
        if (bodyShape) for (const body of deepBodies(bodyShape, components)) attempts.push([path, body]);
      }
      if (route.method === "GET") attempts.push([`${paths[0]}?page=-1&limit=abc&offset=x&q=${"y".repeat(5000)}`, undefined]);
      for (const [path, body, contentType] of attempts) {
        const res = await send(path, route.method, cast, route, body, contentType);
        if (res.status >= 500) failures.push(`${route.method} ${path.slice(0, 120)} body=${(body ?? "").slice(0, 60)} → ${res.status} ${res.text.slice(0, 200)}`);
      }
    }
    expect(failures).toEqual([]);
    // The walk found the documented body of every route that has one (a wrong path key would find none).
    expect(withBodySchema).toBeGreaterThan(20);
    // Thousands of requests: about 12 s alone, several times that on a busy 2-core machine.
  }, 300_000);

  it("refuses hostile URLs in every URL field of a JSON body (never stored, never a 5xx)", async () => {
    const cast = await castFor();
    const spec = (await (await SELF.fetch("https://api.lms.localhost/api/v1/openapi.json")).json()) as OpenApiDocument;
    const resolve = (schema: JsonSchema | undefined): JsonSchema | undefined =>
      schema?.$ref ? spec.components?.schemas?.[schema.$ref.replace("#/components/schemas/", "")] : schema;
    const isUrlField = (name: string, property: JsonSchema) =>
      /url|logo|avatar/i.test(name) || property.format === "uri" || (property.anyOf ?? []).some((option) => resolve(option)?.format === "uri");
    const hostile = ['https://example.com/"><script>alert(1)</script>', "http://169.254.169.254/", "https://127.0.0.1/", "https://[::1]/", "https://user:pass@example.com/", "https://localhost/", "https://10.0.0.1/", "https://0x7f000001/", "https://example.com/\u202Egnp.exe", "https://example.com/a\u0001b", "javascript:alert(1)", "http://example.com/"];
    const walked: string[] = [];
    const failures: string[] = [];
    for (const route of routeRegistry) {
      if (route.method === "GET" || route.method === "DELETE") continue;
      const operation = spec.paths[route.path.replaceAll(/:(\w+)/g, "{$1}")]?.[route.method.toLowerCase()];
      const properties = resolve(operation?.requestBody?.content?.["application/json"]?.schema)?.properties ?? {};
      const urlFields = Object.entries(properties).filter(([name, property]) => isUrlField(name, resolve(property) ?? {}));
      if (urlFields.length === 0) continue;
      walked.push(`${route.method} ${route.path}`);
      for (const [name] of urlFields) {
        for (const url of hostile) {
          const res = await send(`/api/v1${concretePath(route)}`, route.method, cast, route, JSON.stringify({ [name]: url }));
          if (res.status < 400 || res.status >= 500) failures.push(`${route.method} ${route.path} ${name}=${JSON.stringify(url)} → ${res.status} ${res.text.slice(0, 200)}`);
        }
      }
    }
    expect(failures).toEqual([]);
    // The walk found the URL fields (a schema the walk cannot read would find none).
    expect(walked).toEqual(expect.arrayContaining(["PATCH /api/v1/t/tenant", "PUT /api/v1/t/users/:id", "PATCH /api/v1/t/me/profile", "POST /api/v1/t/groups", "PATCH /api/v1/t/groups/:id", "PUT /api/v1/admin/tenants/:id"]));
  });

  it("refuses control characters in every search term, takes wildcards literally and searches terms of any allowed length", async () => {
    const cast = await castFor();
    // Lists under a course (its enrollments) search a course that exists: the path's placeholder id.
    const now = Date.now();
    await db().insert(schema.courses).values({ id: PLACEHOLDER_ID, tenantId: cast.tenantId, title: "Placeholder", slug: "placeholder", status: "published", position: 0, createdAt: now, updatedAt: now });
    const spec = (await (await SELF.fetch("https://api.lms.localhost/api/v1/openapi.json")).json()) as OpenApiDocument;
    const searchable = routeRegistry.filter(
      (route) => route.method === "GET" && spec.paths[route.path.replaceAll(/:(\w+)/g, "{$1}")]?.get?.parameters?.some((p) => p.name === "q" && p.in === "query"),
    );
    expect(searchable.map((route) => route.path)).toContain("/api/v1/t/users");
    for (const route of searchable) {
      // A required enum parameter (the audience picker's `kind`) gets its first value, so only `q` varies.
      const parameters = spec.paths[route.path.replaceAll(/:(\w+)/g, "{$1}")]!.get!.parameters ?? [];
      const required = parameters.filter((p) => p.in === "query" && p.required && p.schema?.enum?.length).map((p) => `${p.name}=${p.schema!.enum![0]}&`);
      const base = `/api/v1${concretePath(route)}${required.length > 0 ? "?" + required.join("").slice(0, -1) : ""}`;
      for (const q of ["%00zzz", "a%07b", "%1F", "%C2%85"]) {
        const res = await send(`${base}${base.includes("?") ? "&" : "?"}q=${q}`, "GET", cast, route, undefined);
        const body = JSON.parse(res.text) as { success: boolean; error: string; message: string };
        expect({ route: route.path, q, status: res.status, success: body.success, error: body.error }).toEqual({
          route: route.path,
          q,
          status: 400,
          success: false,
          error: route.errors.query,
        });
      }
      // Nothing in a fresh school contains "%%" or "__": taken literally, they match nothing; as wildcards, everything.
      for (const q of ["%25%25", "__", "%5C"]) {
        const res = await send(`${base}${base.includes("?") ? "&" : "?"}q=${q}`, "GET", cast, route, undefined);
        const body = JSON.parse(res.text) as { data: { total?: number; items?: unknown[]; users?: unknown[] } };
        const listed = body.data.total ?? (body.data.items ?? body.data.users ?? []).length;
        expect({ route: route.path, q, status: res.status, listed }).toEqual({ route: route.path, q, status: 200, listed: 0 });
      }
      // Terms past D1's 50-byte LIKE limit, up to the longest the schema allows: searched, not refused.
      const max = parameters.find((p) => p.name === "q")?.schema?.maxLength;
      expect({ route: route.path, max: typeof max }).toEqual({ route: route.path, max: "number" });
      for (const q of ["y".repeat(49), "%".repeat(30), "é".repeat(Math.min(130, max!)), "_\\%".repeat(Math.floor(max! / 3)), "y".repeat(max!)]) {
        const res = await send(`${base}${base.includes("?") ? "&" : "?"}q=${encodeURIComponent(q)}`, "GET", cast, route, undefined);
        const body = JSON.parse(res.text) as { data: { total?: number; items?: unknown[]; users?: unknown[] } };
        const listed = body.data?.total ?? (body.data?.items ?? body.data?.users ?? []).length;
        expect({ route: route.path, q: q.slice(0, 8), status: res.status, listed }).toEqual({ route: route.path, q: q.slice(0, 8), status: 200, listed: 0 });
      }
    }
  });

  it("answers 200 or a declared failure to instants at the calendar's edges in every time query parameter, never a 5xx", async () => {
    const cast = await castFor();
    const spec = (await (await SELF.fetch("https://api.lms.localhost/api/v1/openapi.json")).json()) as OpenApiDocument;
    const TIME_PARAMETERS = ["from", "to", "since", "until", "before", "after"];
    const timed = routeRegistry
      .filter((route) => route.method === "GET")
      .map((route) => ({ route, names: (spec.paths[route.path.replaceAll(/:(\w+)/g, "{$1}")]?.get?.parameters ?? []).filter((p) => p.in === "query" && TIME_PARAMETERS.includes(p.name)).map((p) => p.name) }))
      .filter((entry) => entry.names.length > 0);
    // The walk found the windowed reads (a document the walk cannot read would find none).
    expect(timed.map((entry) => entry.route.path)).toEqual(expect.arrayContaining(["/api/v1/t/rating", "/api/v1/t/analytics/curators"]));
    const instants = [
      "0000-01-01T00:00:00Z", // the first instant RFC 3339 can write, before 1970 and any day number
      "9999-12-31T23:59:59.999Z", // the last
      "1969-12-31T23:59:59.999Z", // just before the epoch
      "2026-01-01T00:00:00+14:00", // the widest offset
      "2026-02-30T00:00:00Z", // no such day
      "2026-01-01T24:00:00Z", // no such hour
      "+275760-09-13T00:00:00Z", // past what a Date holds
      "2026-01-01T00:00:00", // no zone
    ];
    const outcomes: string[] = [];
    for (const { route, names } of timed) {
      // A placeholder id may be answered 404 by its own route: any failure the route declares is fine.
      const declared = route.failures.map((failure) => `${failure.status} ${failure.code}`);
      for (const name of names) {
        for (const instant of instants) {
          const res = await send(`/api/v1${concretePath(route)}?${name}=${encodeURIComponent(instant)}`, "GET", cast, route, undefined);
          const error = res.status >= 400 && res.status < 500 ? (JSON.parse(res.text) as { error: string }).error : null;
          if (!(res.status === 200 || declared.includes(`${res.status} ${error}`))) outcomes.push(`${route.path} ${name}=${instant}: ${res.status} ${error ?? res.text.slice(0, 80)}`);
        }
      }
      // Both ends at the edges at once: the widest window there is.
      if (names.includes("from") && names.includes("to")) {
        const res = await send(`/api/v1${concretePath(route)}?from=${encodeURIComponent(instants[0]!)}&to=${encodeURIComponent(instants[1]!)}`, "GET", cast, route, undefined);
        const error = res.status >= 400 && res.status < 500 ? (JSON.parse(res.text) as { error: string }).error : null;
        if (!(res.status === 200 || declared.includes(`${res.status} ${error}`))) outcomes.push(`${route.path} widest window: ${res.status} ${res.text.slice(0, 80)}`);
      }
    }
    expect(outcomes).toEqual([]);
  });
});

type OpenApiDocument = {
  components?: { schemas?: Record<string, JsonSchema> };
  paths: Record<
    string,
    Record<string, { requestBody?: { content?: Record<string, { schema?: JsonSchema }> }; parameters?: { name: string; in: string; required?: boolean; schema?: { enum?: string[]; maxLength?: number } }[] }>
  >;
};
