import type { Db } from "../db/client";
import type { Config, Env } from "../env";
import type { Clock } from "../lib/clock";
import type { RouteMeta } from "./route";

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

/** What every service verb receives. Services never see the Hono context. */
export interface ServiceContext {
  db: Db;
  env: Env;
  config: Config;
  clock: Clock;
  requestId: string;
  /** Where links this request returns point (`publicOrigin`, ./public-links.ts). */
  publicOrigin: string;
}

/**
 * What a school verb receives: built once by the guard of a `/t/*` route (or by a job for one
 * school), so a school verb cannot run without a school. Every query of school data filters by
 * `tenantId`; `db` is that school's database (`dbFor`).
 */
export interface TenantCtx extends ServiceContext {
  actor: Actor;
  tenant: TenantSummary;
  tenantId: string;
}

export interface AppEnv {
  Bindings: Env;
  Variables: {
    requestId: string;
    services: ServiceContext;
    route: RouteMeta | undefined;
    actor: Actor | undefined;
    /** Set by the guard on `/t/*` routes only. */
    tenantCtx: TenantCtx | undefined;
  };
}
