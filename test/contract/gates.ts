import { contractRoutes, type ContractRoute } from "./contract";

/**
 * The contract's gate vocabulary turned into callers. A probe is one kind of caller; `admits` says
 * whether the contract lets it past the gate: true, false, or undefined where the contract leaves
 * it open (the superadmin on member routes, students on a member route whose deny is stated).
 */

/** The curator flags the contract gates on, read from the contract itself. */
export const PERMISSION_FLAGS: readonly string[] = [
  ...new Set(contractRoutes.filter((route) => route.gate.startsWith("permission:")).map((route) => route.gate.slice("permission:".length))),
].sort();

export type ProbeRole = "student" | "curator" | "admin" | "superadmin";

export interface Probe {
  /** `student`, `curator` (no flags), `curator:all`, `curator:<flag>`, `admin`, `superadmin`. */
  label: string;
  role: ProbeRole;
  flags: readonly string[];
}

export const PROBES: readonly Probe[] = [
  { label: "student", role: "student", flags: [] },
  { label: "curator", role: "curator", flags: [] },
  ...PERMISSION_FLAGS.map((flag): Probe => ({ label: `curator:${flag}`, role: "curator", flags: [flag] })),
  { label: "curator:all", role: "curator", flags: PERMISSION_FLAGS },
  { label: "admin", role: "admin", flags: [] },
  { label: "superadmin", role: "superadmin", flags: [] },
];

export function probe(label: string): Probe {
  const found = PROBES.find((candidate) => candidate.label === label);
  if (!found) throw new Error(`no probe ${label}`);
  return found;
}

/** A policy in the contract's words: contract routes have one, and so do the allowed extras. */
export type Policy = Pick<ContractRoute, "method" | "path" | "family" | "gate" | "deny" | "billing" | "errors">;

export function admits(policy: Policy, caller: Probe): boolean | undefined {
  const gate = policy.gate;
  const member = caller.role !== "superadmin";
  switch (gate) {
    case "public":
    case "authenticated":
      return true;
    case "tenant_member":
    case "owner_or_scope":
      if (!member) return undefined;
      // A member route with a stated deny refuses someone (students, per its note) at the gate or in the verb.
      if (caller.role === "student" && policy.deny !== null) return undefined;
      return true;
    case "student":
      return caller.role === "superadmin" ? undefined : caller.role === "student";
    case "admin":
      return caller.role === "admin" || caller.role === "superadmin";
    case "superadmin":
      return caller.role === "superadmin";
    default: {
      const flag = gate.slice("permission:".length);
      if (caller.role === "admin" || caller.role === "superadmin") return true;
      return caller.role === "curator" && caller.flags.includes(flag);
    }
  }
}

/** The callers a route's gate must refuse, strongest first (a curator with every flag before a student). */
export function refusedProbes(policy: Policy): Probe[] {
  return [...PROBES].reverse().filter((caller) => admits(policy, caller) === false);
}

/**
 * The least privileged caller the gate admits, preferring a school member: a curator with just
 * the route's flag on permission routes, the superadmin only where nobody else passes.
 */
export function passingProbe(policy: Policy): Probe {
  const caller = PROBES.find((candidate) => admits(policy, candidate) === true);
  if (!caller) throw new Error(`no caller passes ${policy.method} ${policy.path}`);
  return caller;
}

/** Whether the contract says the gate can refuse a caller with its deny identifier at all. */
export const gateRefusesSomeone = (policy: Policy) => refusedProbes(policy).length > 0;

/**
 * The billing behaviour the contract asks of a route, in the code's terms. The contract has
 * three values; a whitelisted route that still lists 403 PAYMENT_REQUIRED (GET /t/billing/me)
 * stays open on expiry or an automatic suspension and closes on a manual one.
 */
export type BillingBehaviour = "none" | "enforced" | "whitelisted" | "open_unless_manual";

export function billingBehaviour(policy: Policy): BillingBehaviour {
  if (policy.family !== "tenant" || policy.billing === "none") return "none";
  if (policy.billing === "enforced") return "enforced";
  const paymentListed = policy.errors.some(([status, error]) => status === 403 && error === "PAYMENT_REQUIRED");
  return paymentListed ? "open_unless_manual" : "whitelisted";
}

/** Whether the contract blocks a non-superadmin caller with 403 PAYMENT_REQUIRED in a billing state. */
export function paymentRequired(policy: Policy, state: "suspended" | "manually suspended" | "expired"): boolean {
  const behaviour = billingBehaviour(policy);
  if (behaviour === "enforced") return true;
  if (behaviour === "open_unless_manual") return state === "manually suspended";
  return false;
}
