import "../../src/app";
import type { Role } from "../../src/core/http/context";
import { routeRegistry, type RouteMeta } from "../../src/core/http/route";
import { createSchool, createUser, login, type SchoolOptions } from "./factories";

export const PLACEHOLDER_ID = "0190a6c2-1111-7000-8000-000000000001";

/** Every declared route with a gate (public routes have none to check). */
export function gatedRoutes(): RouteMeta[] {
  return routeRegistry.filter((route) => route.gate.kind !== "public");
}

/** The route's path after /api/v1 with every parameter filled. */
export function concretePath(route: RouteMeta, value = PLACEHOLDER_ID): string {
  return route.path.replace("/api/v1", "").replaceAll(/:(\w+)/g, () => value);
}

/** A role that passes the gate (the superadmin for /admin, else the least privileged that passes). */
export function passingRole(route: RouteMeta): Role {
  if (route.family === "admin") return "superadmin";
  const gate = route.gate;
  if (gate.kind === "roles") return gate.roles.find((role) => role !== "superadmin") ?? "superadmin";
  return "admin";
}

/** A role below the gate, or null when every member passes. */
export function blockedRole(route: RouteMeta): Role | null {
  const gate = route.gate;
  if (route.family === "admin") return "admin";
  if (gate.kind === "roles") return (["student", "curator", "admin"] as Role[]).find((role) => !gate.roles.includes(role)) ?? null;
  if (gate.kind === "permission") return "curator";
  return null;
}

export interface Cast {
  subdomain: string;
  tokens: Record<Role, string>;
}

/** A school with one signed-in member per role (curator without permissions) and the superadmin. */
export async function castFor(options: SchoolOptions = {}): Promise<Cast> {
  const school = await createSchool(options);
  const roles: Role[] = ["admin", "curator", "student"];
  const users = await Promise.all(roles.map((role) => createUser(school.id, { role })));
  const superadmin = await createUser(null, { role: "superadmin" });
  // Sign in while the school is usable, then apply the billing state under test.
  const sessions = await Promise.all([...users.map((user) => login(user, { subdomain: school.subdomain })), login(superadmin, { subdomain: "" })]);
  return {
    subdomain: school.subdomain,
    tokens: { admin: sessions[0]!.token, curator: sessions[1]!.token, student: sessions[2]!.token, superadmin: sessions[3]!.token },
  };
}
