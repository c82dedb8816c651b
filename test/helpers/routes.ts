import "../../src/app";
import { routeRegistry, type RouteMeta } from "../../src/core/http/route";
import { contractRoutes, routeKey } from "../contract/contract";
import { ALLOWED_EXTRAS } from "../contract/extras";
import { passingProbe, PROBES, type Policy } from "../contract/gates";
import { createSchool, createUser, login, type SchoolOptions } from "./factories";

export const PLACEHOLDER_ID = "0190a6c2-1111-7000-8000-000000000001";

/** A registered route with the policy the contract (or the allowed-extras list) gives it. */
export interface CheckedRoute {
  meta: RouteMeta;
  policy: Policy;
  /** `METHOD /api/v1/...` */
  key: string;
}

/** The contract's policy of a registered route, or the allowed extra's; undefined for routes with neither. */
export function policyOf(route: { method: string; path: string }): Policy | undefined {
  const key = routeKey(route);
  return contractRoutes.find((candidate) => routeKey(candidate) === key) ?? ALLOWED_EXTRAS.find((extra) => routeKey(extra) === key)?.policy;
}

/** Every registered route the contract (or an allowed extra) gives a policy, with that policy. */
export function checkedRoutes(): CheckedRoute[] {
  return routeRegistry.flatMap((meta) => {
    const policy = policyOf(meta);
    return policy ? [{ meta, policy, key: routeKey(meta) }] : [];
  });
}

/** A path (Hono form, with or without /api/v1) after /api/v1 with every parameter filled. */
export function concretePath(route: { path: string }, value = PLACEHOLDER_ID): string {
  return route.path.replace("/api/v1", "").replaceAll(/:(\w+)/g, () => value);
}

/** The probe label of a caller who passes the route's gate (by its contract policy). */
export function passingCaller(route: RouteMeta): string {
  const policy = policyOf(route);
  if (policy) return passingProbe(policy).label;
  return route.family === "admin" ? "superadmin" : "admin";
}

export interface Cast {
  subdomain: string;
  tenantId: string;
  /** Signed-in tokens by probe label (see PROBES in test/contract/gates.ts). */
  tokens: Record<string, string>;
}

/**
 * A school with one signed-in member per probe (student, curators with no flag, one flag each
 * and every flag, admin) and a signed-in superadmin.
 */
export async function castFor(options: SchoolOptions = {}): Promise<Cast> {
  const school = await createSchool(options);
  // Sign in while the school is usable; callers apply the billing state under test afterwards.
  const entries = await Promise.all(
    PROBES.map(async (caller) => {
      const permissions = Object.fromEntries(caller.flags.map((flag) => [flag, true]));
      const user = caller.role === "superadmin" ? await createUser(null, { role: "superadmin" }) : await createUser(school.id, { role: caller.role, permissions });
      const session = await login(user, { subdomain: caller.role === "superadmin" ? "" : school.subdomain });
      return [caller.label, session.token] as const;
    }),
  );
  return { subdomain: school.subdomain, tenantId: school.id, tokens: Object.fromEntries(entries) };
}
