import { and, count, desc, eq, inArray, isNull, or, sql, type SQL } from "drizzle-orm";
import type { z } from "@hono/zod-openapi";
import { restrictedScope, scopeCondition } from "../auth/curator-scope";
import { hashPassword } from "../auth/password";
import { isUniqueViolation, type BatchItem } from "../../core/db/batch";
import { groupCurators, users } from "../../db/schema";
import { revokeSessionsWithEvents } from "../devices/events";
import { loginUrl } from "../email/links";
import { enqueueEmails, queueEmail } from "../email/outbox";
import type { Locale } from "../../core/env";
import { actingSchool, type Actor, type ServiceContext } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { pageOffset } from "../../core/http/pagination";
import { uuidv7 } from "../../core/lib/ids";
import { permanentDeletionStatements } from "./personal-data";
import { defaultPermissionsStatement, permissionsQuery, toPermissionsObject, USER_NOT_FOUND } from "./permissions";
import { idIn, likeContains } from "../../core/db/conditions";
import { detailQuery, groupsQuery, toUserDetails, toUserObject, userColumns } from "./read";
import type { CreateUserBody, ListUsersQuery, SchoolRole, UpdateUserBody } from "./schemas";

const CANNOT_DELETE_SELF = () => new ApiError(400, "cannot delete yourself", "You cannot delete your own account.");
const CANNOT_MODIFY_SELF = () => new ApiError(400, "cannot_modify_self", "You cannot change your own role or deactivate yourself.");

/** A live (not deleted) user of the school. */
function liveUser(tenantId: string, id: string): SQL {
  return and(eq(users.id, id), eq(users.tenantId, tenantId), isNull(users.deletedAt))!;
}

/**
 * Ends (with their security-history events) the sessions of the given users of the school who are,
 * by then, inactive or deleted: batched after the user update, it acts only if that update did.
 */
function revokeSessionsStatements(ctx: ServiceContext, input: { tenantId: string; userIds: readonly string[]; reason: "user_deactivated" | "user_deleted" }) {
  return revokeSessionsWithEvents(ctx, {
    tenantId: input.tenantId,
    userIds: input.userIds,
    reason: input.reason,
    actorUserId: null,
    scope: sql`s.user_id IN (SELECT id FROM users WHERE tenant_id = ${input.tenantId} AND (is_active = 0 OR deleted_at IS NOT NULL))`,
  });
}

// ---------------------------------------------------------------------------------------------

/**
 * POST /t/users. Curators (who pass the gate through can_manage_students) create students only;
 * a restricted curator's new student is assigned to that curator, so it stays in their scope.
 * The welcome email carries the login link and the address, never the password.
 */
export async function createUser(ctx: ServiceContext, input: { actor: Actor; body: z.infer<typeof CreateUserBody>; locale: Locale }) {
  const { actor, body } = input;
  const tenant = actingSchool(actor);
  if (actor.role === "curator" && body.role !== "student") {
    throw new ApiError(403, "forbidden", "Curators can create students only.");
  }
  const now = ctx.clock.now();
  const row = {
    id: uuidv7(now),
    tenantId: tenant.id,
    email: body.email,
    passwordHash: await hashPassword(body.password, ctx.config.passwordPepper),
    firstName: body.first_name,
    lastName: body.last_name,
    avatar: null,
    role: body.role,
    isActive: true,
    // An admin-created account has a known address (the admin typed it); nobody signs up with it.
    emailVerifiedAt: now,
    lastActiveAt: null,
    individualCuratorId: restrictedScope(actor) && body.role === "student" ? actor.userId : null,
    createdAt: now,
    updatedAt: now,
  };
  const signInUrl = loginUrl(ctx, { role: body.role, subdomain: tenant.subdomain });
  const email = queueEmail(ctx, {
    tenantId: tenant.id,
    to: body.email,
    kind: "welcome",
    locale: input.locale,
    variables: { schoolTitle: tenant.title, firstName: body.first_name, loginUrl: signInUrl, email: body.email, setPasswordNote: true },
    meta: { login_url: signInUrl },
  });
  const statements: BatchItem[] = [ctx.db.insert(users).values(row)];
  if (body.role === "curator") statements.push(defaultPermissionsStatement(ctx, { tenantId: tenant.id, userId: row.id, now }));
  statements.push(email.insert);
  try {
    await ctx.db.batch(statements as [BatchItem, ...BatchItem[]]);
  } catch (err) {
    if (isUniqueViolation(err)) throw new ApiError(400, "email already taken", "A user with this email already exists in the school.");
    throw err;
  }
  await enqueueEmails(ctx, [email.id]);
  return toUserObject(ctx, row);
}


/**
 * GET /t/users: the page and the total in one batch, then the page's groups in one query.
 * A restricted curator's list holds only their own students.
 */
export async function listUsers(ctx: ServiceContext, input: { actor: Actor; query: z.infer<typeof ListUsersQuery> }) {
  const { actor, query } = input;
  const tenantId = actingSchool(actor).id;
  const where = and(
    eq(users.tenantId, tenantId),
    isNull(users.deletedAt),
    query.role ? inArray(users.role, query.role) : undefined,
    query.status ? eq(users.isActive, query.status === "active") : undefined,
    query.q
      ? or(
          likeContains(sql`(${users.firstName} || ' ' || ${users.lastName})`, query.q),
          likeContains(sql`(${users.lastName} || ' ' || ${users.firstName})`, query.q),
          likeContains(users.email, query.q),
        )
      : undefined,
    scopeCondition(users.id, restrictedScope(actor)),
  );
  const [rows, totals] = await ctx.db.batch([
    detailQuery(ctx)
      .where(where)
      .orderBy(desc(users.createdAt), desc(users.id))
      .limit(query.limit)
      .offset(pageOffset(query.page, query.limit)),
    ctx.db.select({ total: count() }).from(users).where(where),
  ]);
  const groupRows = rows.length > 0 ? await groupsQuery(ctx, tenantId, rows.map((row) => row.id)) : [];
  return { users: await toUserDetails(ctx, rows, groupRows), total: totals[0]?.total ?? 0, page: query.page, limit: query.limit };
}

/** GET /t/users/:id: one batch for the user and their groups; out of a restricted curator's scope is 404. */
export async function getUser(ctx: ServiceContext, input: { actor: Actor; id: string }) {
  const tenantId = actingSchool(input.actor).id;
  const [rows, groupRows] = await ctx.db.batch([
    detailQuery(ctx)
      .where(and(liveUser(tenantId, input.id), scopeCondition(users.id, restrictedScope(input.actor))))
      .limit(1),
    groupsQuery(ctx, tenantId, [input.id]),
  ]);
  if (!rows[0]) throw new ApiError(404, "user_not_found", "User not found.");
  const [detail] = await toUserDetails(ctx, rows, groupRows);
  return detail!;
}

/** PUT /t/users/:id (admin). Deactivation ends the user's sessions in the same batch. */
export async function updateUser(ctx: ServiceContext, input: { actor: Actor; id: string; body: z.infer<typeof UpdateUserBody> }) {
  const { actor, id, body } = input;
  const tenantId = actingSchool(actor).id;
  if (body.is_active === false && id === actor.userId) throw CANNOT_MODIFY_SELF();
  const changes = {
    ...(body.first_name !== undefined ? { firstName: body.first_name } : {}),
    ...(body.last_name !== undefined ? { lastName: body.last_name } : {}),
    ...(body.avatar !== undefined ? { avatar: body.avatar } : {}),
    ...(body.is_active !== undefined ? { isActive: body.is_active } : {}),
  };
  if (Object.keys(changes).length === 0) {
    const [row] = await ctx.db.select(userColumns).from(users).where(liveUser(tenantId, id)).limit(1);
    if (!row) throw USER_NOT_FOUND();
    return toUserObject(ctx, row);
  }
  const now = ctx.clock.now();
  const update = ctx.db
    .update(users)
    .set({ ...changes, updatedAt: now })
    .where(liveUser(tenantId, id))
    .returning(userColumns);
  const [updated] =
    body.is_active === false
      ? await ctx.db.batch([update, ...revokeSessionsStatements(ctx, { tenantId, userIds: [id], reason: "user_deactivated" })])
      : await ctx.db.batch([update]);
  const row = updated[0];
  if (!row) throw USER_NOT_FOUND();
  return toUserObject(ctx, row);
}

/** DELETE /t/users/:id (admin): soft delete; sessions end in the same batch. */
export async function softDeleteUser(ctx: ServiceContext, input: { actor: Actor; id: string }) {
  const { actor, id } = input;
  if (id === actor.userId) throw CANNOT_DELETE_SELF();
  const tenantId = actingSchool(actor).id;
  const now = ctx.clock.now();
  const [deleted] = await ctx.db.batch([
    ctx.db.update(users).set({ deletedAt: now, updatedAt: now }).where(liveUser(tenantId, id)).returning({ id: users.id }),
    ...revokeSessionsStatements(ctx, { tenantId, userIds: [id], reason: "user_deleted" }),
  ]);
  if (deleted.length === 0) throw USER_NOT_FOUND();
  return { deleted: true as const };
}

/**
 * DELETE /t/users/:id/permanent (admin): the account and every personal-data row in one batch
 * (src/platform/users/personal-data.ts). A soft-deleted user of the school can still be purged.
 */
export async function permanentlyDeleteUser(ctx: ServiceContext, input: { actor: Actor; id: string }) {
  const { actor, id } = input;
  if (id === actor.userId) throw CANNOT_DELETE_SELF();
  const tenantId = actingSchool(actor).id;
  const [target] = await ctx.db
    .select({ id: users.id, email: users.email })
    .from(users)
    .where(and(eq(users.id, id), eq(users.tenantId, tenantId)))
    .limit(1);
  if (!target) throw new ApiError(400, "user not found", "User not found.");
  const [first, ...rest] = permanentDeletionStatements(ctx, { id: target.id, tenantId, email: target.email });
  await ctx.db.batch([first!, ...rest]);
  return { deleted: true as const, permanent: true as const };
}

/**
 * PUT /t/users/:id/role (admin). Becoming a curator creates the default permission set when none
 * exists (an earlier set is kept); leaving the role drops the user's curator assignments, so no
 * student points at a non-curator. Role and permissions are read per request, so the change
 * applies to the user's next call.
 */
export async function changeRole(ctx: ServiceContext, input: { actor: Actor; id: string; role: SchoolRole }) {
  const { actor, id, role } = input;
  if (id === actor.userId) throw CANNOT_MODIFY_SELF();
  const tenantId = actingSchool(actor).id;
  const now = ctx.clock.now();
  const update = ctx.db
    .update(users)
    .set({ role, updatedAt: sql`CASE WHEN ${users.role} = ${role} THEN ${users.updatedAt} ELSE ${now} END` })
    .where(liveUser(tenantId, id))
    .returning(userColumns);
  if (role === "curator") {
    const [updated, , sets] = await ctx.db.batch([update, defaultPermissionsStatement(ctx, { tenantId, userId: id, now }), permissionsQuery(ctx, tenantId, id)]);
    const row = updated[0];
    if (!row) throw USER_NOT_FOUND();
    return { ...(await toUserObject(ctx, row)), permissions: sets[0] ? toPermissionsObject(sets[0]) : null };
  }
  // The curator's assignments go only if the role change above happened (a 404 changes nothing).
  const changed = sql`EXISTS (SELECT 1 FROM users WHERE id = ${id} AND tenant_id = ${tenantId} AND role = ${role} AND deleted_at IS NULL)`;
  const [updated] = await ctx.db.batch([
    update,
    ctx.db
      .update(users)
      .set({ individualCuratorId: null, updatedAt: now })
      .where(and(eq(users.tenantId, tenantId), eq(users.individualCuratorId, id), changed)),
    ctx.db.delete(groupCurators).where(and(eq(groupCurators.tenantId, tenantId), eq(groupCurators.curatorId, id), changed)),
  ]);
  const row = updated[0];
  if (!row) throw USER_NOT_FOUND();
  return { ...(await toUserObject(ctx, row)), permissions: null };
}

/**
 * PUT /t/users/:id/curator (manage_groups). The assignment is one conditional write: it happens
 * only if the target is a live student and the curator a live curator of the same school.
 */
export async function assignCurator(ctx: ServiceContext, input: { actor: Actor; id: string; curatorId: string | null }) {
  const { id, curatorId } = input;
  const tenantId = actingSchool(input.actor).id;
  const now = ctx.clock.now();
  const curatorEligible =
    curatorId === null
      ? undefined
      : sql`EXISTS (SELECT 1 FROM users c WHERE c.id = ${curatorId} AND c.tenant_id = ${tenantId} AND c.role = 'curator' AND c.deleted_at IS NULL)`;
  const isStudent = and(liveUser(tenantId, id), eq(users.role, "student"));
  const [assigned, rows, groupRows] = await ctx.db.batch([
    ctx.db
      .update(users)
      .set({ individualCuratorId: curatorId, updatedAt: now })
      .where(and(isStudent, curatorEligible))
      .returning({ id: users.id }),
    detailQuery(ctx).where(isStudent).limit(1),
    groupsQuery(ctx, tenantId, [id]),
  ]);
  if (!rows[0]) throw new ApiError(404, "user_not_found", "Student not found.");
  if (assigned.length === 0) {
    throw new ApiError(400, "curator_not_eligible", "The curator must be a curator of this school that is not deleted.");
  }
  const [detail] = await toUserDetails(ctx, rows, groupRows);
  return detail!;
}

type BulkSkipReason = "not_found" | "not_in_scope";

/**
 * POST /t/users/bulk-activate and /bulk-deactivate. Idempotent: `affected` counts the listed users
 * now in the requested state (already there included). Curators may only change students, and a
 * restricted curator only their own; others are skipped as `not_in_scope`.
 */
export async function bulkSetActive(ctx: ServiceContext, input: { actor: Actor; ids: string[]; active: boolean }) {
  const { actor, active } = input;
  const ids = [...new Set(input.ids)];
  if (ids.includes(actor.userId)) throw CANNOT_MODIFY_SELF();
  const tenantId = actingSchool(actor).id;
  const scope = restrictedScope(actor);
  const manageable = and(
    actor.role === "curator" ? eq(users.role, "student") : undefined,
    scopeCondition(users.id, scope),
  );

  const found = await ctx.db
    .select({ id: users.id, manageable: manageable ? sql<number>`CASE WHEN ${manageable} THEN 1 ELSE 0 END` : sql<number>`1` })
    .from(users)
    .where(and(eq(users.tenantId, tenantId), isNull(users.deletedAt), idIn(users.id, ids)));
  const eligible = found.filter((row) => row.manageable === 1).map((row) => row.id);

  let changed: string[] = [];
  if (eligible.length > 0) {
    const now = ctx.clock.now();
    const update = ctx.db
      .update(users)
      .set({ isActive: active, updatedAt: sql`CASE WHEN ${users.isActive} = ${active ? 1 : 0} THEN ${users.updatedAt} ELSE ${now} END` })
      .where(and(eq(users.tenantId, tenantId), isNull(users.deletedAt), idIn(users.id, eligible), manageable))
      .returning({ id: users.id });
    const [updated] = active
      ? await ctx.db.batch([update])
      : await ctx.db.batch([update, ...revokeSessionsStatements(ctx, { tenantId, userIds: eligible, reason: "user_deactivated" })]);
    changed = updated.map((row) => row.id);
  }

  const done = new Set(changed);
  const known = new Set(found.map((row) => row.id));
  const skipped = ids
    .filter((id) => !done.has(id))
    .map((id) => ({ id, reason: (known.has(id) ? "not_in_scope" : "not_found") as BulkSkipReason }));
  return { affected: done.size, skipped: skipped.length, skipped_details: skipped };
}
