import { env } from "cloudflare:test";
import type { Env } from "../../src/core/env";
import type { Actor, Role, SchoolActor, SchoolCtx, SystemActor, TenantSummary } from "../../src/core/http/context";
import { serviceContext } from "../../src/core/http/request-context";
import { CONTRIBUTORS } from "../../src/contributors";
import { forSchool, systemActor } from "../../src/core/school";
import { loadSchool } from "../../src/platform/schools/lookup";

/** A signed-in member as the guard would load one, for verbs that take a user's school context. */
export function memberActor(school: TenantSummary, role: Role = "admin", userId = "0190a6c2-0000-7000-8000-00000000a11a"): Actor {
  return { userId, role, email: `${role}@example.test`, firstName: "Test", lastName: "User", homeTenantId: school.id, tenant: school, sessionId: null, permissions: null, lastActiveAt: null };
}

export interface SchoolCtxOptions<A extends SchoolActor> {
  /** Who acts; default a system job named `test` (`member`: an admin of the school, `memberActor`). */
  actor?: A | "member";
  /** A fixed clock. */
  now?: number;
  /** Bindings in place of the test's (a wrapped shard from `envWith`). */
  env?: Env;
}

/**
 * A school context built the way production builds one (`forSchool` from the school's row in the
 * control database), so a verb called directly reads and writes the school's own shard.
 */
export async function schoolCtx<A extends SchoolActor = SystemActor>(tenantId: string, options: SchoolCtxOptions<A> = {}): Promise<SchoolCtx<A>> {
  const bindings = options.env ?? (env as Env);
  const school = await loadSchool(serviceContext(env as Env, CONTRIBUTORS), tenantId);
  if (!school) throw new Error(`school ${tenantId} is not live in the control database`);
  const ctx = forSchool(serviceContext(bindings, CONTRIBUTORS, undefined, "https://api.lms.localhost/"), school, (options.actor === "member" ? memberActor(school) : (options.actor ?? systemActor("test"))) as A);
  if (options.now !== undefined) {
    const now = options.now;
    return { ...ctx, clock: { now: () => now } };
  }
  return ctx;
}
