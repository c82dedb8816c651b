import type { Actor, Permission, Role } from "./context";

/** Who may call a route (spec, convention 6). */
export type Gate =
  | { kind: "public" }
  /** Any valid token, with or without a school (GET /auth/me). */
  | { kind: "authenticated" }
  /** Any member of the addressed school ("Tenant JWT"); the superadmin passes. */
  | { kind: "member" }
  | { kind: "roles"; roles: readonly Role[] }
  | { kind: "permission"; permission: Permission };

export const gates = {
  public: { kind: "public" },
  authenticated: { kind: "authenticated" },
  member: { kind: "member" },
  /** Students only; pass extra roles for endpoints that "also let curator/admin". */
  student: (...also: Role[]): Gate => ({ kind: "roles", roles: ["student", ...also] }),
  admin: { kind: "roles", roles: ["admin", "superadmin"] },
  superadmin: { kind: "roles", roles: ["superadmin"] },
  permission: (permission: Permission): Gate => ({ kind: "permission", permission }),
} as const satisfies Record<string, Gate | ((...args: never[]) => Gate)>;

export function passesGate(gate: Gate, actor: Actor): boolean {
  switch (gate.kind) {
    case "public":
    case "authenticated":
    case "member":
      return true;
    case "roles":
      return gate.roles.includes(actor.role);
    case "permission":
      return hasPermission(actor, gate.permission);
  }
}

function hasPermission(actor: Actor, permission: Permission): boolean {
  if (actor.role === "admin" || actor.role === "superadmin") return true;
  return actor.role === "curator" && actor.permissions?.[permission] === true;
}
