import { describe, expect, it } from "vitest";
import { DAY_MS } from "../../src/core/lib/clock";
import { api } from "../helpers/http";
import { blockedRole, castFor, concretePath, gatedRoutes, passingRole, type Cast } from "../helpers/routes";

/**
 * Walks every registered route and checks its declared gate over HTTP: no token, another school's
 * token, a role below the gate, and the billing gate. New areas get these checks by registering.
 */
describe("route gate matrix", () => {
  const routes = gatedRoutes();

  it("has routes to walk", () => {
    expect(routes.length).toBeGreaterThan(0);
  });

  const call = (route: (typeof routes)[number], cast: Cast | null, token?: string, headers: Record<string, string> = {}) =>
    api(concretePath(route), {
      method: route.method,
      token,
      tenant: route.family === "tenant" && cast ? cast.subdomain : undefined,
      headers,
    });

  it("answers 401 unauthorized without a token", async () => {
    const cast = await castFor();
    for (const route of routes) {
      const res = await call(route, cast);
      expect({ route: `${route.method} ${route.path}`, status: res.status, error: res.body?.error }).toEqual({
        route: `${route.method} ${route.path}`,
        status: 401,
        error: "unauthorized",
      });
    }
  });

  it("answers 401 to a token of another school", async () => {
    const [cast, other] = await Promise.all([castFor(), castFor()]);
    for (const route of routes.filter((r) => r.family === "tenant")) {
      const res = await call(route, cast, other.tokens[passingRole(route)]);
      expect({ route: `${route.method} ${route.path}`, status: res.status }).toEqual({ route: `${route.method} ${route.path}`, status: 401 });
    }
  });

  it("answers 403 with the route's identifier to a role below the gate", async () => {
    const cast = await castFor();
    for (const route of routes) {
      const role = blockedRole(route);
      if (!role) continue;
      const res = await call(route, cast, cast.tokens[role]);
      expect({ route: `${route.method} ${route.path}`, role, status: res.status, error: res.body?.error }).toEqual({
        route: `${route.method} ${route.path}`,
        role,
        status: 403,
        error: route.deny,
      });
    }
  });

  it("answers 400 tenant_header_not_allowed on /admin routes sent with a school header", async () => {
    const cast = await castFor();
    for (const route of routes.filter((r) => r.family === "admin")) {
      const res = await call(route, cast, cast.tokens.superadmin, { "x-tenant-subdomain": cast.subdomain });
      expect({ route: route.path, status: res.status, error: res.body?.error }).toEqual({ route: route.path, status: 400, error: "tenant_header_not_allowed" });
    }
  });

  it("blocks school routes with 403 PAYMENT_REQUIRED when billing is suspended or expired, except the whitelist", async () => {
    const expired = await castFor();
    const cases: { label: string; cast: Cast; manual: boolean }[] = [
      { label: "suspended", cast: await castFor(), manual: false },
      { label: "manually suspended", cast: await castFor(), manual: true },
      { label: "expired", cast: expired, manual: false },
    ];
    const { env } = await import("cloudflare:test");
    await env.DB.prepare("UPDATE tenants SET plan_state = 'suspended', suspended_manually = 0 WHERE subdomain = ?").bind(cases[0]!.cast.subdomain).run();
    await env.DB.prepare("UPDATE tenants SET plan_state = 'suspended', suspended_manually = 1 WHERE subdomain = ?").bind(cases[1]!.cast.subdomain).run();
    await env.DB.prepare("UPDATE tenants SET expires_at = ? WHERE subdomain = ?").bind(Date.now() - DAY_MS, expired.subdomain).run();

    for (const { label, cast, manual } of cases) {
      for (const route of routes.filter((r) => r.family === "tenant")) {
        const res = await call(route, cast, cast.tokens[passingRole(route)]);
        const blocked = route.billing === "enforced" || (route.billing === "open_unless_manual" && manual);
        const paymentRequired = res.status === 403 && res.body?.error === "PAYMENT_REQUIRED";
        expect({ label, route: `${route.method} ${route.path}`, paymentRequired }).toEqual({ label, route: `${route.method} ${route.path}`, paymentRequired: blocked });
      }
    }
  });
});
