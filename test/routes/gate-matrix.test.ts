import { beforeAll, describe, expect, it } from "vitest";
import { DAY_MS } from "../../src/core/lib/clock";
import { admits, paymentRequired, passingProbe, probe, PROBES, refusedProbes } from "../contract/gates";
import { api, failure } from "../helpers/http";
import { castFor, checkedRoutes, concretePath, type Cast, type CheckedRoute } from "../helpers/routes";
import { fixtureD1 } from "../helpers/databases";

/**
 * Every implemented contract route (and every allowed extra with a policy) called over HTTP with
 * the expectations the contract states: gate, deny identifier, the /admin header rule and the
 * billing gate. The code's own declarations only fill in what the contract leaves open.
 */
describe("route gate matrix", () => {
  const routes = checkedRoutes().filter((route) => route.policy.gate !== "public");
  let cast: Cast;

  beforeAll(async () => {
    cast = await castFor();
  });

  const call = (route: CheckedRoute, school: Cast | null, token?: string, headers: Record<string, string> = {}) =>
    api(concretePath(route.meta), {
      method: route.meta.method,
      token,
      tenant: route.policy.family === "tenant" && school ? school.subdomain : undefined,
      headers,
    });

  it("has routes to walk", () => {
    expect(routes.length).toBeGreaterThan(0);
  });

  it("answers 401 unauthorized without a token", async () => {
    for (const route of routes) {
      const res = await call(route, cast);
      expect({ route: route.key, ...failure(res) }).toEqual({ route: route.key, status: 401, error: "unauthorized" });
    }
  });

  it("answers 401 unauthorized to a school route called with a token of another school", async () => {
    const other = await castFor();
    for (const route of routes.filter((r) => r.policy.family === "tenant")) {
      const caller = passingProbe(route.policy);
      if (caller.role === "superadmin") continue;
      const res = await call(route, cast, other.tokens[caller.label]);
      expect({ route: route.key, caller: caller.label, ...failure(res) }).toEqual({ route: route.key, caller: caller.label, status: 401, error: "unauthorized" });
    }
  });

  it("answers 403 with the contract's deny identifier to every caller below the gate", async () => {
    for (const route of routes) {
      // Where the contract leaves the identifier open, the code's declaration decides, within the two the contract allows.
      const deny = route.policy.deny ?? route.meta.deny;
      // A deny the contract states is exact (`student_only` for assignment progress); an open one is one of the two generic identifiers.
      if (route.policy.deny === null) expect({ route: route.key, deny }).toEqual({ route: route.key, deny: expect.stringMatching(/^(forbidden|permission_denied)$/) });
      for (const caller of refusedProbes(route.policy)) {
        const res = await call(route, cast, cast.tokens[caller.label]);
        expect({ route: route.key, caller: caller.label, ...failure(res) }).toEqual({ route: route.key, caller: caller.label, status: 403, error: deny });
      }
    }
  });

  it("lets every caller the contract admits past the gate", async () => {
    for (const route of routes) {
      for (const caller of PROBES.filter((candidate) => admits(route.policy, candidate) === true)) {
        const res = await call(route, cast, cast.tokens[caller.label]);
        const stopped = res.status === 401 || (res.status === 403 && ["forbidden", "permission_denied"].includes(res.body?.error));
        expect({ route: route.key, caller: caller.label, stopped }).toEqual({ route: route.key, caller: caller.label, stopped: false });
      }
    }
  });

  it("answers 400 tenant_header_not_allowed on /admin routes sent with a school header", async () => {
    for (const route of routes.filter((r) => r.policy.family === "admin")) {
      const res = await call(route, cast, cast.tokens.superadmin, { "x-tenant-subdomain": cast.subdomain });
      expect({ route: route.key, ...failure(res) }).toEqual({ route: route.key, status: 400, error: "tenant_header_not_allowed" });
    }
  });

  it("answers 403 PAYMENT_REQUIRED exactly where the contract's billing rule says", async () => {
    const billing = await castFor();
    const states = [
      { state: "suspended", sql: "UPDATE tenants SET plan_state = 'suspended', suspended_manually = 0 WHERE id = ?", args: [billing.tenantId] },
      { state: "manually suspended", sql: "UPDATE tenants SET plan_state = 'suspended', suspended_manually = 1 WHERE id = ?", args: [billing.tenantId] },
      {
        state: "expired",
        sql: "UPDATE tenants SET plan_state = 'paid', suspended_manually = 0, expires_at = ? WHERE id = ?",
        args: [Date.now() - DAY_MS, billing.tenantId],
      },
    ] as const;
    const schoolRoutes = routes.filter((r) => r.policy.family === "tenant");
    for (const { state, sql, args } of states) {
      await fixtureD1.prepare(sql).bind(...args).run();
      for (const route of schoolRoutes) {
        const caller = passingProbe(route.policy);
        const res = await call(route, billing, billing.tokens[caller.label]);
        const expected = paymentRequired(route.policy, state);
        if (expected) {
          expect({ state, route: route.key, ...failure(res) }).toEqual({ state, route: route.key, status: 403, error: "PAYMENT_REQUIRED" });
        } else {
          const blocked = res.status === 403 && res.body?.error === "PAYMENT_REQUIRED";
          expect({ state, route: route.key, blocked }).toEqual({ state, route: route.key, blocked: false });
        }
      }
    }
  });

  it("never applies the billing gate to the superadmin", async () => {
    const billing = await castFor();
    await fixtureD1.prepare("UPDATE tenants SET plan_state = 'suspended', suspended_manually = 1 WHERE id = ?").bind(billing.tenantId).run();
    for (const route of routes.filter((r) => r.policy.family === "tenant" && admits(r.policy, probe("superadmin")) === true)) {
      const res = await call(route, billing, billing.tokens.superadmin);
      const blocked = res.status === 403 && res.body?.error === "PAYMENT_REQUIRED";
      expect({ route: route.key, blocked }).toEqual({ route: route.key, blocked: false });
    }
  });
});
