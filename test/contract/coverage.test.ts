import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import "../../src/app";
import type { Actor, PermissionSet } from "../../src/core/http/context";
import { passesGate } from "../../src/core/http/gates";
import { routeRegistry, type RouteMeta } from "../../src/core/http/route";
import { contractRoutes, pendingDrift, pendingRouteKeys, routeKey } from "./contract";
import { ALLOWED_EXTRAS } from "./extras";
import { admits, billingBehaviour, gateRefusesSomeone, PERMISSION_FLAGS, PROBES, type Probe } from "./gates";

/**
 * The code's route declarations against the contract: which contract routes exist yet, and that
 * every one that exists declares the contract's gate, deny identifier and billing rule. The error
 * pairs are checked by the coverage reporter, which needs the implemented list recorded here.
 */

const registered = new Map(routeRegistry.map((route) => [routeKey(route), route]));
const implemented = contractRoutes.filter((route) => registered.has(routeKey(route)));
const pending = contractRoutes.filter((route) => !registered.has(routeKey(route)));

/** passesGate reads the role and the curator flags only, so the probe's actor carries just those. */
function actorFor(caller: Probe): Actor {
  const permissions = Object.fromEntries(PERMISSION_FLAGS.map((flag) => [flag, caller.flags.includes(flag)])) as unknown as PermissionSet;
  const actor: Pick<Actor, "role" | "permissions"> = { role: caller.role, permissions: caller.role === "curator" ? permissions : null };
  return actor as Actor;
}

const describeGate = (route: RouteMeta) =>
  route.gate.kind === "roles" ? `roles(${route.gate.roles.join(",")})` : route.gate.kind === "permission" ? `permission:${route.gate.permission}` : route.gate.kind;

const policies = () => [
  ...implemented.map((policy) => ({ policy, meta: registered.get(routeKey(policy))! })),
  ...ALLOWED_EXTRAS.flatMap((extra) => (extra.policy && registered.has(routeKey(extra)) ? [{ policy: extra.policy, meta: registered.get(routeKey(extra))! }] : [])),
];

describe("contract coverage", () => {
  it(`${implemented.length} of ${contractRoutes.length} contract routes are implemented, the ${pending.length} others listed as pending`, ({ task }) => {
    task.meta.contractImplemented = implemented.map(routeKey);
    expect(implemented.length + pending.length).toBe(contractRoutes.length);
    expect(pendingDrift(contractRoutes.map(routeKey), implemented.map(routeKey), pendingRouteKeys)).toEqual([]);
  });

  it("the pending check fails on an unlisted pending route, a listed implemented route, a listed unknown route and a repeat", () => {
    const contract = ["GET /api/v1/a", "GET /api/v1/b", "GET /api/v1/c"];
    expect(pendingDrift(contract, ["GET /api/v1/a"], ["GET /api/v1/b", "GET /api/v1/c"])).toEqual([]);
    expect(pendingDrift(contract, ["GET /api/v1/a"], ["GET /api/v1/b"])).toEqual(["GET /api/v1/c: not implemented and not listed in test/contract/pending.json"]);
    expect(pendingDrift(contract, ["GET /api/v1/a", "GET /api/v1/b"], ["GET /api/v1/b", "GET /api/v1/c"])).toEqual(["GET /api/v1/b: implemented, take it off test/contract/pending.json"]);
    expect(pendingDrift(contract, ["GET /api/v1/a"], ["GET /api/v1/b", "GET /api/v1/c", "GET /api/v1/z"])).toEqual(["GET /api/v1/z: listed in test/contract/pending.json but not a contract route"]);
    expect(pendingDrift(contract, ["GET /api/v1/a"], ["GET /api/v1/b", "GET /api/v1/c", "GET /api/v1/b"])).toEqual(["GET /api/v1/b: listed twice in test/contract/pending.json"]);
  });

  it("registers no route outside the contract but the allowed extras", () => {
    const allowed = new Set(ALLOWED_EXTRAS.map(routeKey));
    const contract = new Set(contractRoutes.map(routeKey));
    const outside = [...registered.keys()].filter((key) => !contract.has(key) && !allowed.has(key));
    expect(outside).toEqual([]);
  });

  it("serves every allowed extra (the list holds no stale entries)", async () => {
    const missing = ALLOWED_EXTRAS.filter((extra) => extra.registered && !registered.has(routeKey(extra))).map(routeKey);
    expect(missing).toEqual([]);
    for (const extra of ALLOWED_EXTRAS.filter((candidate) => !candidate.registered)) {
      const res = await SELF.fetch(`https://api.lms.localhost${extra.path}`, { method: extra.method });
      await res.body?.cancel();
      expect({ route: routeKey(extra), status: res.status }).toEqual({ route: routeKey(extra), status: 200 });
    }
  });

  it("declares the contract's gate on every implemented route", () => {
    const drift: string[] = [];
    for (const { policy, meta } of policies()) {
      if ((policy.gate === "public") !== (meta.gate.kind === "public")) drift.push(`${routeKey(meta)}: contract ${policy.gate}, code ${describeGate(meta)}`);
      if (policy.family !== meta.family) drift.push(`${routeKey(meta)}: contract family ${policy.family}, code ${meta.family}`);
      if (meta.gate.kind === "public") continue;
      for (const caller of PROBES) {
        const expected = admits(policy, caller);
        if (expected === undefined) continue;
        const actual = passesGate(meta.gate, actorFor(caller));
        if (actual !== expected) drift.push(`${routeKey(meta)}: ${caller.label} ${expected ? "admitted" : "refused"} by the contract (${policy.gate}), ${actual ? "admitted" : "refused"} by the code (${describeGate(meta)})`);
      }
    }
    expect(drift).toEqual([]);
  });

  it("declares the contract's deny identifier wherever the gate refuses someone", () => {
    const drift: string[] = [];
    for (const { policy, meta } of policies()) {
      if (!gateRefusesSomeone(policy)) continue;
      const allowed = policy.deny === null ? ["forbidden", "permission_denied"] : [policy.deny];
      if (!allowed.includes(meta.deny)) drift.push(`${routeKey(meta)}: contract ${allowed.join(" or ")}, code ${meta.deny}`);
    }
    expect(drift).toEqual([]);
  });

  it("declares the contract's billing rule on every implemented route", () => {
    const drift: string[] = [];
    for (const { policy, meta } of policies()) {
      const expected = billingBehaviour(policy);
      const actual = meta.family === "tenant" ? meta.billing : "none";
      if (actual !== expected) drift.push(`${routeKey(meta)}: contract ${policy.billing} (${expected}), code ${actual}`);
    }
    expect(drift).toEqual([]);
  });
});
