import contractFile from "./routes.json";
import pendingFile from "./pending.json";

/**
 * The contract's endpoint list and the vocabulary to read it. This module runs on both sides of
 * the test run (inside workerd for `failure()`, in Node for the coverage reporter), so it imports
 * nothing at runtime but the JSON.
 */

declare module "vitest" {
  interface TaskMeta {
    /** Contract pairs (`METHOD /path status identifier`) the test provoked through `failure()`. */
    contractFailures?: string[];
    /** Set by the coverage test: the contract endpoints the code registers (`METHOD /path`). */
    contractImplemented?: string[];
  }
}

export type ContractGate =
  | "public"
  | "authenticated"
  | "tenant_member"
  | "student"
  | "admin"
  | "superadmin"
  | "owner_or_scope"
  | `permission:${string}`;

export type ContractBilling = "enforced" | "whitelisted" | "none";

export interface ContractRoute {
  method: string;
  /** Hono form with the /api/v1 prefix, e.g. `/api/v1/t/users/:id`. */
  path: string;
  family: "auth" | "tenant" | "admin" | "public";
  gate: ContractGate;
  /** The identifier a caller below the gate gets; null: the contract leaves it open (`forbidden` or `permission_denied`). */
  deny: string | null;
  billing: ContractBilling;
  success_status: number | null;
  /** [status, identifier]; a null identifier means the contract fixes only the status. */
  errors: [number, string | null][];
  /** The spec document that states the route ("01", "02", "03", "05"). */
  source?: string;
  note?: string;
}

export const contractRoutes: readonly ContractRoute[] = (contractFile as unknown as { routes: ContractRoute[] }).routes;

/** The contract routes the code does not serve yet (`METHOD /path`), a list that only shrinks. */
export const pendingRouteKeys: readonly string[] = (pendingFile as { routes: string[] }).routes;

export const routeKey = (route: { method: string; path: string }) => `${route.method.toUpperCase()} ${route.path}`;

/** The key a provoked failure is recorded under; `*` stands for "any identifier" (contract pairs without one). */
export const pairKey = (route: { method: string; path: string }, status: number, error: string | null) =>
  `${routeKey(route)} ${status} ${error ?? "*"}`;

function segments(path: string): string[] {
  return path.split("?")[0]!.split("#")[0]!.split("/");
}

/**
 * The contract endpoint a concrete request path belongs to. Parameters match any non-empty
 * segment; where several endpoints match, the one with a literal segment at the first place they
 * differ wins (`/t/exam-attempts/active` over `/t/exam-attempts/:id`).
 */
export function contractEndpoint(method: string, concretePath: string, routes: readonly ContractRoute[] = contractRoutes): ContractRoute | undefined {
  const wanted = segments(concretePath);
  const candidates = routes.filter((route) => {
    if (route.method !== method.toUpperCase()) return false;
    const pattern = segments(route.path);
    if (pattern.length !== wanted.length) return false;
    return pattern.every((segment, index) => (segment.startsWith(":") ? wanted[index] !== "" : segment === wanted[index]));
  });
  return candidates.sort(moreSpecificFirst)[0];
}

function moreSpecificFirst(a: ContractRoute, b: ContractRoute): number {
  const left = segments(a.path);
  const right = segments(b.path);
  for (let index = 0; index < left.length; index++) {
    const aParam = left[index]!.startsWith(":");
    const bParam = right[index]!.startsWith(":");
    if (aParam !== bParam) return aParam ? 1 : -1;
  }
  return 0;
}

/** The contract pairs a route must have a provoking test for. */
export function requiredPairs(route: ContractRoute): string[] {
  return route.errors.map(([status, error]) => pairKey(route, status, error));
}

/** Whether a recorded pair satisfies a required one (`*` accepts any identifier of that status). */
export function satisfies(required: string, recorded: ReadonlySet<string>): boolean {
  if (!required.endsWith(" *")) return recorded.has(required);
  const prefix = required.slice(0, -1);
  for (const key of recorded) if (key.startsWith(prefix)) return true;
  return false;
}

/**
 * How the pending list disagrees with the contract and the code: a contract route neither served
 * nor listed, a listed route that is served (take it off), a listed route the contract does not
 * have, a route listed twice. Empty when they agree.
 */
export function pendingDrift(contractKeys: readonly string[], implementedKeys: readonly string[], pendingKeys: readonly string[]): string[] {
  const contract = new Set(contractKeys);
  const implemented = new Set(implementedKeys);
  const pending = new Set(pendingKeys);
  return [
    ...contractKeys.filter((key) => !implemented.has(key) && !pending.has(key)).map((key) => `${key}: not implemented and not listed in test/contract/pending.json`),
    ...[...pending].filter((key) => implemented.has(key)).map((key) => `${key}: implemented, take it off test/contract/pending.json`),
    ...[...pending].filter((key) => !contract.has(key)).map((key) => `${key}: listed in test/contract/pending.json but not a contract route`),
    ...pendingKeys.filter((key, index) => pendingKeys.indexOf(key) !== index).map((key) => `${key}: listed twice in test/contract/pending.json`),
  ];
}
