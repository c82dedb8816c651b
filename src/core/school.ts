import { controlDb, shardDb, type Db } from "./db/client";
import type { SchoolActor, SchoolCtx, ServiceContext, SystemActor, TenantSummary } from "./http/context";

/**
 * The one way into a school: its shard's database, its id and who acts. Routes, Durable Object
 * alarms, queue consumers and cron scans all build the school context here, from a school row of
 * the control database (so the shard is the one stored on the school, never one a request names).
 * `db` is a D1 session on that shard when a route wants read replicas (`shardSession`).
 */
export function forSchool<A extends SchoolActor>(ctx: ServiceContext, school: TenantSummary, actor: A, db?: Db): SchoolCtx<A> {
  return { ...ctx, db: db ?? shardDb(ctx.env, school.shard), actor, tenant: school, tenantId: school.id };
}

/** The actor of work no person asked for. */
export function systemActor(job: string): SystemActor {
  return { role: "system", job };
}

/** The user behind an action, or null for a system job (whose pushes leave nobody out). */
export function actingUserId(actor: SchoolActor): string | null {
  return actor.role === "system" ? null : actor.userId;
}

/**
 * The school context behind a verb that serves the platform's account and a school's alike
 * (sign-in, password reset): where a school's rows are written, the caller must have built it
 * with `forSchool`; the platform context there is a programming error.
 */
export function inSchoolCtx(ctx: ServiceContext): SchoolCtx<SchoolActor> {
  if (!("tenantId" in ctx)) throw new Error("a school's rows were written through the platform context");
  return ctx as SchoolCtx<SchoolActor>;
}

/**
 * The platform's side of a school verb: the same request, on the control database (a sign-in
 * counter, the school row). Never a way to read school tables, which the control database lacks.
 */
export function platformOf(ctx: ServiceContext): ServiceContext {
  return { db: controlDb(ctx.env), env: ctx.env, config: ctx.config, clock: ctx.clock, requestId: ctx.requestId, publicOrigin: ctx.publicOrigin, contributors: ctx.contributors };
}
