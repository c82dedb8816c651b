import { SELF } from "cloudflare:test";
import { OpenApiGeneratorV31 } from "@asteasolutions/zod-to-openapi";
import { describe, expect, it } from "vitest";
import { app } from "../../src/app";
import { routeRegistry } from "../../src/core/http/route";
import { contractRoutes, routeKey } from "../contract/contract";
import { api } from "../helpers/http";

describe("OpenAPI and system routes", () => {
  it("documents every route: each one's schemas generate on their own", () => {
    const failures: string[] = [];
    for (const definition of app.openAPIRegistry.definitions) {
      try {
        new OpenApiGeneratorV31([definition]).generateDocument({ openapi: "3.1.0", info: { title: "check", version: "1" } });
      } catch (err) {
        const route = (definition as { route?: { method: string; path: string } }).route;
        failures.push(`${route?.method ?? definition.type} ${route?.path ?? ""}: ${JSON.stringify((err as { data?: unknown }).data ?? String(err))}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it("serves the OpenAPI 3.1 document listing every declared route", async () => {
    const res = await api("/openapi.json");
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe("3.1.0");
    for (const route of routeRegistry) {
      const path = route.path.replaceAll(/:(\w+)/g, "{$1}");
      expect({ route: `${route.method} ${path}`, listed: res.body.paths[path]?.[route.method.toLowerCase()] !== undefined }).toEqual({
        route: `${route.method} ${path}`,
        listed: route.documented,
      });
    }
    expect(routeRegistry.filter((route) => !route.documented).map((route) => `${route.method} ${route.path}`)).toEqual(["POST /api/v1/admin/tenants/"]);
  });

  it("documents each route's guard failures from its declared gate, and bearer security on gated routes", async () => {
    const res = await api("/openapi.json");
    for (const route of routeRegistry.filter((r) => r.documented)) {
      const operation = res.body.paths[route.path.replaceAll(/:(\w+)/g, "{$1}")][route.method.toLowerCase()];
      const label = `${route.method} ${route.path}`;
      expect(operation.operationId, label).toMatch(/^[a-z]+[A-Za-z0-9]+$/);
      if (route.family === "tenant") expect(operation.parameters, label).toContainEqual(expect.objectContaining({ name: "X-Tenant-Subdomain", in: "header", required: true }));
      if (route.gate.kind === "public") {
        expect(operation.security, label).toEqual([]);
        continue;
      }
      expect(operation.security, label).toEqual([{ bearer: [] }]);
      expect(operation.responses["401"]?.description, label).toContain("`unauthorized`");
      if (route.gate.kind === "roles" || route.gate.kind === "permission") expect(operation.responses["403"]?.description, label).toContain(`\`${route.deny}\``);
      if (route.family === "tenant" && route.billing !== "whitelisted") expect(operation.responses["403"]?.description, label).toContain("`PAYMENT_REQUIRED`");
      if (route.family === "admin") expect(operation.responses["400"]?.description, label).toContain("`tenant_header_not_allowed`");
    }
  });

  it("documents every [status, identifier] the contract lists for each implemented route, identifier for identifier", async () => {
    const res = await api("/openapi.json");
    const registered = new Set(routeRegistry.map(routeKey));
    const missing: string[] = [];
    for (const route of contractRoutes.filter((candidate) => registered.has(routeKey(candidate)))) {
      // The contract's `POST /admin/tenants/` is documented once, without the trailing slash (docs/decisions/http.md, "The API document").
      const path = route.path.replace(/(.)\/$/, "$1").replaceAll(/:(\w+)/g, "{$1}");
      const operation = res.body.paths[path]?.[route.method.toLowerCase()];
      if (!operation) {
        missing.push(`${routeKey(route)}: no operation`);
        continue;
      }
      for (const [status, identifier] of route.errors) {
        const description: string | undefined = operation.responses[String(status)]?.description;
        // An error response's description is its identifiers, each in backticks, comma-separated; prose may follow after "; ".
        const list = description?.split("; ")[0] ?? "";
        const documented = new Set(/^`[^`]+`(, `[^`]+`)*$/.test(list) ? [...list.matchAll(/`([^`]+)`/g)].map((match) => match[1]) : []);
        if (description === undefined) missing.push(`${routeKey(route)}: no ${status} response`);
        else if (identifier !== null && !documented.has(identifier)) missing.push(`${routeKey(route)}: ${status} \`${identifier}\` not in "${description}"`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("serves the reference page and the health route", async () => {
    const docs = await api("/docs");
    expect(docs.status).toBe(200);
    expect(docs.headers.get("content-security-policy")).toContain("script-src 'self';");
    expect((await api("/health")).body).toEqual({ success: true, data: { status: "ok" } });
  });

  it("serves every script and stylesheet of the reference page itself (no CDN), and the page loads the document", async () => {
    const page = (await api("/docs")).body as string;
    const references = [...page.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
    expect(references.length).toBe(3);
    for (const reference of references) expect(reference, "same-origin path").toMatch(/^\/api\/v1\/docs\/assets\//);
    const bodies: string[] = [];
    for (const reference of references) {
      const res = await SELF.fetch(`https://api.lms.localhost${reference}`);
      expect({ reference, status: res.status, type: res.headers.get("content-type")?.split(";")[0] }).toEqual({
        reference,
        status: 200,
        type: reference.endsWith(".css") ? "text/css" : "text/javascript",
      });
      bodies.push(await res.text());
    }
    expect(bodies.join("\n")).toContain("SwaggerUIBundle({ url: \"/api/v1/openapi.json\"");
    expect(bodies.find((body) => body.length > 500_000), "the Swagger UI bundle itself").toBeDefined();
    expect((await SELF.fetch("https://api.lms.localhost/api/v1/docs/assets/0.0.0/other.js")).status).toBe(404);
  });

  it("answers unknown routes with 404 in the failure envelope and echoes a sane X-Request-Id", async () => {
    const res = await api("/no/such/route", { headers: { "x-request-id": "client-req-12345" } });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, error: "not_found", message: expect.any(String), request_id: "client-req-12345" });
    expect(res.headers.get("x-request-id")).toBe("client-req-12345");
    const hostile = await api("/health", { headers: { "x-request-id": "bad id with spaces" } });
    expect(hostile.headers.get("x-request-id")).not.toBe("bad id with spaces");
  });

  it("allows CORS with credentials for school subdomains on the configured scheme and configured origins only", async () => {
    const preflight = (origin: string) => api("/health", { method: "OPTIONS", headers: { origin, "access-control-request-method": "GET" } });
    // APP_DOMAIN is lms.localhost with scheme http in wrangler.toml: any port while it is a localhost name.
    for (const origin of ["http://demo.lms.localhost", "http://lms.localhost", "http://demo.lms.localhost:5173"]) {
      const allowed = await preflight(origin);
      expect({ origin, allow: allowed.headers.get("access-control-allow-origin") }).toEqual({ origin, allow: origin });
      expect(allowed.headers.get("access-control-allow-credentials")).toBe("true");
    }
    for (const origin of ["https://evil.example", "https://demo.lms.localhost", "http://evil.demo.lms.localhost", "http://lms.localhost.evil.example", "null"]) {
      const denied = await preflight(origin);
      expect({ origin, allow: denied.headers.get("access-control-allow-origin") }).toEqual({ origin, allow: null });
    }
  });
});
