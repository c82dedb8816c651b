import type { Db } from "../db/client";
import type { ContributorRegistry } from "../events";
import type { Config, Env } from "../env";
import type { Clock } from "../lib/clock";
import type { AccessControl, RouteMeta } from "./route";

export type { Db } from "../db/client";

export type Role = "superadmin" | "admin" | "curator" | "student";

const PERMISSIONS = [
  "can_manage_courses",
  "can_manage_students",
  "can_manage_groups",
  "can_view_analytics",
  "can_manage_exams",
  "can_manage_notifications",
] as const;
export type Permission = (typeof PERMISSIONS)[number];
export type PermissionSet = Record<Permission, boolean>;

export interface TenantSummary {
  id: string;
  subdomain: string;
  title: string;
  status: string;
  planState: string;
  expiresAt: number | null;
  suspendedManually: boolean;
  timezone: string;
  /** The school database holding its rows (`tenants.shard`, src/core/db/client.ts). */
  shard: string;
  /** The media quota (`tenants.storage_cap_bytes`): shard statements compare against this value. */
  storageCapBytes: number;
  /** The school may have an active webhook (`tenants.webhooks_active`): without it, sources write no outbox statement. */
  webhooksActive: boolean;
  /** `tenants.webhooks_epoch` as this read saw it (the flag's clear compares it). */
  webhooksEpoch: number;
}

/** Who is calling, loaded by `authenticate` in one D1 round trip. */
export interface Actor {
  userId: string;
  role: Role;
  email: string;
  firstName: string;
  lastName: string;
  /** The user's own school; null for the superadmin. */
  homeTenantId: string | null;
  /** The school this request acts on (the user's own, or the one the superadmin addressed). */
  tenant: TenantSummary | null;
  sessionId: string | null;
  /** Curator flags; null for other roles. */
  permissions: PermissionSet | null;
  /** When the user was last seen (`users.last_active_at`, kept to a few minutes' precision). */
  lastActiveAt: number | null;
}

/**
 * The platform context: what a platform verb receives (and what a school context is built from).
 * `db` is the control database only: a school table read through it is a bug (no such table there).
 * Services never see the Hono context.
 */
export interface ServiceContext {
  db: Db;
  env: Env;
  config: Config;
  clock: Clock;
  requestId: string;
  /** Where links this request returns point (`publicOrigin`, ./public-links.ts). */
  publicOrigin: string;
  /** The domain events' contributors, built once at app assembly (src/contributors.ts; docs/domain-events.md). */
  contributors: ContributorRegistry;
}

/** Work no person asked for: a cron scan, a queue consumer, a Durable Object alarm. */
export interface SystemActor {
  role: "system";
  /** What runs, for logs and audit (e.g. `deadline_scan`, `exam_timer`). */
  job: string;
}

/** Who acts in a school: a signed-in user (a school member or the superadmin) or a system job. */
export type SchoolActor = Actor | SystemActor;

/**
 * The one context of every school verb, built by `forSchool` (src/core/school.ts) whether the verb
 * runs for a route (the guard), a Durable Object alarm, a queue consumer or a cron scan. `db` is the
 * school's shard; every query of school data filters by `tenantId` through the helpers of
 * src/core/db/conditions.ts. The actor parameter says who may call: route verbs take the default
 * (a user), verbs that jobs call too take `SchoolCtx<SchoolActor>`.
 */
export interface SchoolCtx<A extends SchoolActor = Actor> extends ServiceContext {
  actor: A;
  tenant: TenantSummary;
  tenantId: string;
}

export interface AppEnv {
  Bindings: Env;
  Variables: {
    requestId: string;
    /** Set by app assembly (`accessControl`, ./route.ts). */
    access: AccessControl | undefined;
    services: ServiceContext;
    route: RouteMeta | undefined;
    actor: Actor | undefined;
    /** Set by the guard on `/t/*` routes only. */
    tenantCtx: SchoolCtx | undefined;
  };
}
