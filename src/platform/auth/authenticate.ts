import { and, eq, isNull, sql } from "drizzle-orm";
import { curatorPermissions, sessions, tenants, users } from "../../db/schema";
import type { Actor, Db, PermissionSet, ServiceContext } from "../../core/http/context";
import { schoolSummary, schoolSummaryColumns } from "../schools/lookup";
import { accountDb, sessionDb } from "../devices/account-db";
import { unauthorized } from "../../core/http/errors";
import { verifyAccessToken, type AccessClaims } from "../devices/jwt";

interface AuthenticateInput {
  authorization: string | undefined;
  /** The school the request addresses (header or host), lower-cased; null when none was given. */
  subdomain: string | null;
  /** `/t/*` routes: a school must be determined. */
  requireTenant: boolean;
}

/**
 * Verifies the bearer token and loads user, session state, school, billing state and curator
 * permissions in one round trip (a statement on the account's database and one on the control
 * database, concurrently). Any failure is the same 401: the reason is not revealed.
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

  const tenant = row.school;
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

const memberSelection = {
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
  canManageCourses: curatorPermissions.canManageCourses,
  canManageStudents: curatorPermissions.canManageStudents,
  canManageGroups: curatorPermissions.canManageGroups,
  canViewAnalytics: curatorPermissions.canViewAnalytics,
  canManageExams: curatorPermissions.canManageExams,
  canManageNotifications: curatorPermissions.canManageNotifications,
};

/** The account, its session and curator permissions: in the school's shard or, for the superadmin, the control database. */
function buildMemberQuery(db: Db) {
  return (
    db
      .select(memberSelection)
      .from(users)
      // Legacy tokens have no sid: the join then finds nothing and the caller skips the session checks.
      .leftJoin(sessions, and(eq(sessions.id, sql.placeholder("sid")), eq(sessions.userId, users.id)))
      .leftJoin(curatorPermissions, eq(curatorPermissions.userId, users.id))
      .where(and(eq(users.id, sql.placeholder("userId")), isNull(users.deletedAt)))
      .limit(1)
      // Prepared once per database binding: building the SQL on every request costs more than it should.
      .prepare()
  );
}

/** The school a token belongs to (by id) or a superadmin addresses (by subdomain): control database. */
function buildSchoolQuery(db: Db, by: "id" | "subdomain") {
  const key = by === "id" ? eq(tenants.id, sql.placeholder("key")) : eq(tenants.subdomain, sql.placeholder("key"));
  return db.select(schoolSummaryColumns).from(tenants).where(and(key, isNull(tenants.deletedAt))).limit(1).prepare();
}

type MemberQuery = ReturnType<typeof buildMemberQuery>;
type SchoolQuery = ReturnType<typeof buildSchoolQuery>;
const memberQueries = new WeakMap<Db, MemberQuery>();
const schoolQueries = new WeakMap<Db, Partial<Record<"id" | "subdomain", SchoolQuery>>>();

function memberQuery(db: Db): MemberQuery {
  let query = memberQueries.get(db);
  if (!query) memberQueries.set(db, (query = buildMemberQuery(db)));
  return query;
}

function schoolQuery(db: Db, by: "id" | "subdomain"): SchoolQuery {
  let queries = schoolQueries.get(db);
  if (!queries) schoolQueries.set(db, (queries = {}));
  return (queries[by] ??= buildSchoolQuery(db, by));
}

/**
 * One concurrent round trip: the member (with session and permissions) from the database the
 * session id names (../devices/account-db.ts), and the school from the control database. A token
 * without `sid` (legacy mode) names no database: its school is read first, then the member.
 */
async function loadActorRow(ctx: ServiceContext, claims: AccessClaims, subdomain: string | null) {
  const params = { sid: claims.sid ?? "", userId: claims.user_id };
  const school =
    claims.tenant_id !== null
      ? schoolQuery(ctx.db, "id").all({ key: claims.tenant_id })
      : subdomain !== null
        ? schoolQuery(ctx.db, "subdomain").all({ key: subdomain })
        : Promise.resolve([]);
  if (claims.sid) {
    const db = sessionDb(ctx.env, claims.sid);
    if (!db) return null;
    const [[member], [schoolRow]] = await Promise.all([memberQuery(db).all(params), school]);
    return member ? { ...member, school: schoolRow ? schoolSummary(schoolRow) : null } : null;
  }
  const [schoolRow] = await school;
  const home = claims.tenant_id === null ? null : schoolRow?.shard;
  if (home === undefined) return null;
  const [member] = await memberQuery(accountDb(ctx.env, home)).all(params);
  return member ? { ...member, school: schoolRow ? schoolSummary(schoolRow) : null } : null;
}

type ActorRow = NonNullable<Awaited<ReturnType<typeof loadActorRow>>>;

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
