import { and, eq, isNull, sql, type SQL } from "drizzle-orm";
import { curatorPermissions, sessions, tenants, users } from "../../db/schema";
import type { Actor, Db, PermissionSet, ServiceContext, TenantSummary } from "../../core/http/context";
import { unauthorized } from "../../core/http/errors";
import { verifyAccessToken, type AccessClaims } from "./jwt";

interface AuthenticateInput {
  authorization: string | undefined;
  /** The school the request addresses (header or host), lower-cased; null when none was given. */
  subdomain: string | null;
  /** `/t/*` routes: a school must be determined. */
  requireTenant: boolean;
}

/**
 * Verifies the bearer token and loads user, session state, school, billing state and curator
 * permissions in a single D1 query. Any failure is the same 401: the reason is not revealed.
 */
export async function authenticate(ctx: ServiceContext, input: AuthenticateInput): Promise<Actor> {
  const token = bearerToken(input.authorization);
  if (!token) throw unauthorized();
  const now = ctx.clock.now();
  const claims = await verifyAccessToken(ctx.config, token, now);
  if (!claims) throw unauthorized();
  if (!claims.sid && !legacyTokenAccepted(ctx, claims)) throw unauthorized();
  if (input.requireTenant && !input.subdomain) throw unauthorized();

  const row = await loadActorRow(ctx, claims, input.subdomain);
  if (!row || !row.isActive) throw unauthorized();
  if (claims.sid) {
    const { sessionRevokedAt, sessionIdleExpiresAt, sessionExpiresAt } = row;
    if (sessionIdleExpiresAt === null || sessionExpiresAt === null || sessionRevokedAt !== null) throw unauthorized();
    if (sessionIdleExpiresAt <= now || sessionExpiresAt <= now) throw unauthorized();
  }
  if (row.userTenantId !== claims.tenant_id) throw unauthorized();

  const tenant = row.tenantId ? tenantSummary(row) : null;
  if (row.userTenantId !== null) {
    // A school user's token works only for that school: another school's header is a 401.
    if (!tenant || (input.subdomain !== null && input.subdomain !== tenant.subdomain)) throw unauthorized();
  } else if (input.subdomain !== null && !tenant) {
    throw unauthorized();
  }

  return {
    userId: row.userId,
    role: row.role,
    email: row.email,
    firstName: row.firstName,
    lastName: row.lastName,
    homeTenantId: row.userTenantId,
    tenant,
    sessionId: claims.sid ?? null,
    permissions: row.role === "curator" ? permissionSet(row) : null,
    lastActiveAt: row.lastActiveAt,
  };
}

function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)$/i.exec(header.trim());
  return match ? match[1]! : null;
}

/** Tokens without `sid` (spec, Authentication 8). */
function legacyTokenAccepted(ctx: ServiceContext, claims: AccessClaims): boolean {
  switch (ctx.config.legacyTokenMode) {
    case "allow":
      return true;
    case "existing_only":
      return ctx.config.legacyTokensIssuedBefore !== null && claims.iat * 1000 < ctx.config.legacyTokensIssuedBefore;
    case "deny":
      return false;
  }
}

const selection = {
  userId: users.id,
  userTenantId: users.tenantId,
  role: users.role,
  email: users.email,
  firstName: users.firstName,
  lastName: users.lastName,
  isActive: users.isActive,
  lastActiveAt: users.lastActiveAt,
  sessionRevokedAt: sessions.revokedAt,
  sessionIdleExpiresAt: sessions.idleExpiresAt,
  sessionExpiresAt: sessions.expiresAt,
  tenantId: tenants.id,
  tenantSubdomain: tenants.subdomain,
  tenantTitle: tenants.title,
  tenantStatus: tenants.status,
  planState: tenants.planState,
  tenantExpiresAt: tenants.expiresAt,
  suspendedManually: tenants.suspendedManually,
  timezone: tenants.timezone,
  shard: tenants.shard,
  canManageCourses: curatorPermissions.canManageCourses,
  canManageStudents: curatorPermissions.canManageStudents,
  canManageGroups: curatorPermissions.canManageGroups,
  canViewAnalytics: curatorPermissions.canViewAnalytics,
  canManageExams: curatorPermissions.canManageExams,
  canManageNotifications: curatorPermissions.canManageNotifications,
};

/** Which school the row joins: the user's own, the one a superadmin addressed, or none. */
type TenantJoin = "own" | "addressed" | "none";

function buildActorQuery(db: Db, join: TenantJoin) {
  const tenantJoin: SQL | undefined =
    join === "own"
      ? and(eq(tenants.id, users.tenantId), isNull(tenants.deletedAt))
      : join === "addressed"
        ? and(eq(tenants.subdomain, sql.placeholder("subdomain")), isNull(tenants.deletedAt))
        : sql`false`; // a superadmin addressing no school acts on none
  return (
    db
      .select(selection)
      .from(users)
      // Legacy tokens have no sid: the join then finds nothing and the caller skips the session checks.
      .leftJoin(sessions, and(eq(sessions.id, sql.placeholder("sid")), eq(sessions.userId, users.id)))
      .leftJoin(tenants, tenantJoin)
      .leftJoin(curatorPermissions, eq(curatorPermissions.userId, users.id))
      .where(and(eq(users.id, sql.placeholder("userId")), isNull(users.deletedAt)))
      .limit(1)
      // Prepared once per database binding: building the SQL on every request costs more than it should.
      .prepare()
  );
}

type ActorQuery = ReturnType<typeof buildActorQuery>;
const preparedQueries = new WeakMap<Db, Partial<Record<TenantJoin, ActorQuery>>>();

function actorQuery(db: Db, join: TenantJoin): ActorQuery {
  let queries = preparedQueries.get(db);
  if (!queries) preparedQueries.set(db, (queries = {}));
  return (queries[join] ??= buildActorQuery(db, join));
}

async function loadActorRow(ctx: ServiceContext, claims: AccessClaims, subdomain: string | null) {
  const join: TenantJoin = claims.tenant_id !== null ? "own" : subdomain !== null ? "addressed" : "none";
  const [row] = await actorQuery(ctx.db, join).all({ sid: claims.sid ?? "", userId: claims.user_id, subdomain: subdomain ?? "" });
  return row ?? null;
}

type ActorRow = NonNullable<Awaited<ReturnType<typeof loadActorRow>>>;

function tenantSummary(row: ActorRow): TenantSummary {
  return {
    id: row.tenantId!,
    subdomain: row.tenantSubdomain!,
    title: row.tenantTitle!,
    status: row.tenantStatus!,
    planState: row.planState!,
    expiresAt: row.tenantExpiresAt,
    suspendedManually: row.suspendedManually === true,
    timezone: row.timezone!,
    shard: row.shard!,
  };
}

function permissionSet(row: ActorRow): PermissionSet {
  return {
    can_manage_courses: row.canManageCourses === true,
    can_manage_students: row.canManageStudents === true,
    can_manage_groups: row.canManageGroups === true,
    can_view_analytics: row.canViewAnalytics === true,
    can_manage_exams: row.canManageExams === true,
    can_manage_notifications: row.canManageNotifications === true,
  };
}
