import { and, count, eq, sql, type SQL } from "drizzle-orm";
import type { z } from "@hono/zod-openapi";
import { restrictedScope, scopeCondition } from "../schools/curator-scope";
import { listedIds, rebuildCuratorStudents, usersKeys } from "../schools/curator-students";
import { hashPassword } from "../auth/password";
import { isUniqueViolation, runBatch, type BatchItem } from "../../core/db/batch";
import { liveRow, liveRowWhere } from "../../core/db/live-row";
import { groupCurators, users } from "../../db/schema";
import { revokeSessionsWithEvents } from "../devices/events";
import { loginUrl } from "../email/links";
import { enqueueEmails, queueEmail } from "../email/outbox";
import { imageRef } from "../media/asset-ref";
import { dispatchQueued, enqueue } from "../notifications/enqueue";
import type { Locale } from "../../core/env";
import type { Db, SchoolCtx } from "../../core/http/context";
import { ApiError, coreErrors } from "../../core/http/errors";
import { pageOffset } from "../../core/http/pagination";
import { uuidv7 } from "../../core/lib/ids";
import { permanentDeletionControlStatement, permanentDeletionStatements } from "./personal-data";
import { usersErrors } from "./errors";
import { defaultPermissionsStatement, permissionsQuery, toPermissionsObject } from "./permissions";
import { containsText, idIn, inSchool, liveInSchool } from "../../core/db/conditions";
import { detailPageQuery, detailQuery, detailRowOf, listOrder, liveUsers, toUserDetails, toUserObject, userColumns, type UserRow } from "./read";
import { auditEntry } from "../audit/write";
import { activeEntry, curatorAssignedEntry, roleChangedEntry, userDeletedEntry, userUpdateEntries } from "./audit";
import type { CreateUserBody, ListUsersQuery, SchoolRole, UpdateUserBody } from "./schemas";
import { userChangeWebhooks, userCreatedWebhooks, userDeletedWebhooks } from "./webhooks";

/**
 * Ends (with their security-history events) the sessions of the given users of the school who are,
 * by then, inactive or deleted: batched after the user update, it acts only if that update did.
 * The staff member who deactivated or deleted them is the events' actor, as for an admin's revoke.
 */
function revokeSessionsStatements(ctx: SchoolCtx, input: { userIds: readonly string[]; reason: "user_deactivated" | "user_deleted" }) {
  return revokeSessionsWithEvents(ctx, {
    tenantId: ctx.tenantId,
    userIds: input.userIds,
    reason: input.reason,
    actorUserId: ctx.actor.userId,
    scope: sql`s.user_id IN (SELECT id FROM users WHERE ${inSchool(ctx.tenantId)} AND (is_active = 0 OR deleted_at IS NOT NULL))`,
  });
}

// ---------------------------------------------------------------------------------------------

/**
 * POST /t/users. Curators (who pass the gate through can_manage_students) create students only;
 * a restricted curator's new student is assigned to that curator, so it stays in their scope.
 * The welcome email carries the login link and the address, never the password.
 */
export async function createUser(ctx: SchoolCtx, input: { body: z.infer<typeof CreateUserBody>; locale: Locale }) {
  const { actor, tenant } = ctx;
  const { body } = input;
  if (actor.role === "curator" && body.role !== "student") throw new ApiError(usersErrors.CURATORS_CREATE_STUDENTS_ONLY);
  const now = ctx.clock.now();
  const row = {
    id: uuidv7(now),
    tenantId: ctx.tenantId,
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
    individualCuratorId: restrictedScope(ctx) && body.role === "student" ? actor.userId : null,
    createdAt: now,
    updatedAt: now,
  };
  const signInUrl = loginUrl(ctx, { role: body.role, subdomain: tenant.subdomain });
  const email = queueEmail(ctx, {
    tenantId: ctx.tenantId,
    to: body.email,
    kind: "welcome",
    locale: input.locale,
    variables: { schoolTitle: tenant.title, firstName: body.first_name, loginUrl: signInUrl, email: body.email, setPasswordNote: true },
    meta: { login_url: signInUrl },
  });
  const statements: BatchItem[] = [ctx.db.insert(users).values(row)];
  if (body.role === "curator") statements.push(defaultPermissionsStatement(ctx, { userId: row.id, now }));
  statements.push(email.insert);
  statements.push(
    auditEntry(ctx, {
      action: "user.created",
      targetType: "user",
      targetId: row.id,
      summary: "User created",
      changes: { email: [null, row.email], first_name: [null, row.firstName], last_name: [null, row.lastName], role: [null, row.role] },
    }),
    ...userCreatedWebhooks(ctx, [row.id]),
    // A new account is in no group and curates no one: only a restricted curator's own new student is a pair.
    ...(row.individualCuratorId === null ? [] : rebuildCuratorStudents(ctx, usersKeys(listedIds([row.id])))),
  );
  try {
    await runBatch(ctx, statements);
  } catch (err) {
    if (isUniqueViolation(err)) throw new ApiError(usersErrors.EMAIL_TAKEN);
    throw err;
  }
  await enqueueEmails(ctx, [email.id]);
  return toUserObject(ctx, row);
}

/** Which optional filters a list request uses: one prepared statement per combination. */
interface ListShape {
  role: boolean;
  status: boolean;
  q: boolean;
  scoped: boolean;
}

/**
 * The users page with its groups and, on every row, the total before paging, as one statement
 * whose values are all placeholders: built and prepared once per shape and database, not per
 * request. The page's users are picked from an index alone (docs/decisions/users.md, "The users
 * list at a school's size"): with `q`, `users_search`, whose one folded text per user each match is
 * read and sorted from, counted in the same pass; without, `users_tenant_created`, walked newest first
 * to the page's end, and counted by a second walk of the same index (left to itself SQLite counted
 * from the wider `users_search`).
 */
function buildListStatement(db: Db, shape: ListShape) {
  const school = { db, tenantId: sql.placeholder("tenantId") };
  const filters = and(
    shape.role ? sql`${users.role} IN (SELECT value FROM json_each(${sql.placeholder("roles")}))` : undefined,
    shape.status ? sql`${users.isActive} = ${sql.placeholder("active")}` : undefined,
    shape.q ? containsText(searchTextSql, sql.placeholder("q")) : undefined,
    shape.scoped ? scopeCondition(users.id, { tenantId: school.tenantId, curatorId: sql.placeholder("curatorId") }) : undefined,
  );
  const source = sql`${users} INDEXED BY ${sql.raw(shape.q ? "users_search" : "users_tenant_created")}`;
  const where = liveUsers(school, filters);
  const page = db
    .select({ r: sql<number>`${users}.rowid`.as("r"), total: (shape.q ? sql<number>`count(*) OVER ()` : sql<null>`NULL`).as("total") })
    .from(source)
    .where(where)
    .orderBy(...listOrder)
    .limit(sql.placeholder("limit"))
    .offset(sql.placeholder("offset"))
    .as("p");
  const counted = sql<number>`(SELECT count(*) FROM ${source} WHERE ${where})`;
  const buildTotal = () => db.select({ total: count() }).from(source).where(where).prepare();
  let total: ReturnType<typeof buildTotal> | undefined;
  return {
    page: detailPageQuery(school, page, shape.q ? sql<number>`${page.total}` : counted).prepare(),
    // Past the last page there is no row to carry the total: only then is it counted (and prepared).
    total: () => (total ??= buildTotal()),
  };
}

/**
 * What `q` searches, as `users_search` (school migration 0025) indexes it: "first last", "last
 * first" and the email joined by the unit separator. A search term has no control characters
 * (`searchTerm`), so it matches this text exactly where it matches one of the three.
 */
const searchTextSql = sql`${users.firstName} || ' ' || ${users.lastName} || char(31) || ${users.lastName} || ' ' || ${users.firstName} || char(31) || ${users.email}`;

type ListStatement = ReturnType<typeof buildListStatement>;
const listStatements = new WeakMap<Db, Map<string, ListStatement>>();

function listStatement(db: Db, shape: ListShape): ListStatement {
  let byShape = listStatements.get(db);
  if (!byShape) listStatements.set(db, (byShape = new Map()));
  const key = JSON.stringify(shape);
  let statement = byShape.get(key);
  if (!statement) byShape.set(key, (statement = buildListStatement(db, shape)));
  return statement;
}

/** GET /t/users: one statement for the page, its groups and the total. A restricted curator's list holds only their own students. */
export async function listUsers(ctx: SchoolCtx, input: { query: z.infer<typeof ListUsersQuery> }) {
  const { query } = input;
  const scope = restrictedScope(ctx);
  const statement = listStatement(ctx.db, { role: !!query.role, status: !!query.status, q: !!query.q, scoped: scope !== null });
  const offset = pageOffset(query.page, query.limit);
  const values = {
    tenantId: ctx.tenantId,
    roles: JSON.stringify(query.role ?? []),
    active: query.status === "active" ? 1 : 0,
    q: query.q ?? "",
    curatorId: scope?.curatorId ?? "",
    limit: query.limit,
    offset,
  };
  const rows = ((await statement.page.run(values)).results as Record<string, unknown>[]).map(detailRowOf);
  const total = rows[0]?.total ?? (offset === 0 ? 0 : ((await statement.total().all(values))[0]?.total ?? 0));
  return { users: await toUserDetails(ctx, rows), total, page: query.page, limit: query.limit };
}

/** GET /t/users/:id: one statement for the user and their groups; out of a restricted curator's scope is 404. */
export async function getUser(ctx: SchoolCtx, input: { id: string }) {
  const rows = await detailQuery(ctx, and(eq(users.id, input.id), scopeCondition(users.id, restrictedScope(ctx)))).limit(1);
  if (!rows[0]) throw new ApiError(usersErrors.USER_NOT_VISIBLE);
  const [detail] = await toUserDetails(ctx, rows);
  return detail!;
}

/**
 * PUT /t/users/:id (admin). Deactivation ends the user's sessions in the same batch. An avatar
 * given as an asset id must be a confirmed image of the school.
 */
export async function updateUser(ctx: SchoolCtx, input: { id: string; body: z.infer<typeof UpdateUserBody> }) {
  const { id, body } = input;
  if (body.is_active === false && id === ctx.actor.userId) throw new ApiError(usersErrors.CANNOT_MODIFY_SELF);
  await imageRef.check(ctx, { tenantId: ctx.tenantId, field: "avatar", value: body.avatar, invalid: coreErrors.INVALID_REQUEST_BODY });
  const changes = {
    ...(body.first_name !== undefined ? { firstName: body.first_name } : {}),
    ...(body.last_name !== undefined ? { lastName: body.last_name } : {}),
    ...(body.avatar !== undefined ? { avatar: body.avatar } : {}),
    ...(body.is_active !== undefined ? { isActive: body.is_active } : {}),
  };
  if (Object.keys(changes).length === 0) return toUserObject(ctx, await liveRow(ctx, users, id, usersErrors.USER_NOT_FOUND));
  const now = ctx.clock.now();
  const update = ctx.db
    .update(users)
    .set({ ...changes, updatedAt: now })
    .where(liveRowWhere(users, ctx.tenantId, id))
    .returning(userColumns);
  // A reactivation push and the audit entries go ahead of the update: they read the row before the change.
  const notices = body.is_active === true ? [await activatedPush(ctx, id, now)] : [];
  const audit = [...userUpdateEntries(ctx, { id, body }), ...userChangeWebhooks(ctx, eq(users.id, id), body, now)];
  // After the update: the user's curator pairs follow their activation, on either side.
  const pairs = body.is_active === undefined ? [] : rebuildCuratorStudents(ctx, usersKeys(listedIds([id])));
  const [updated] =
    body.is_active === false
      ? ((await runBatch(ctx, [...audit, update, ...revokeSessionsStatements(ctx, { userIds: [id], reason: "user_deactivated" }), ...pairs])).slice(audit.length) as [
          Awaited<typeof update>,
        ])
      : ((await runBatch(ctx, [...notices, ...audit, update, ...pairs])).slice(notices.length + audit.length) as [Awaited<typeof update>]);
  const row = updated[0];
  if (!row) throw new ApiError(usersErrors.USER_NOT_FOUND);
  await dispatchQueued(ctx);
  return toUserObject(ctx, row);
}

/** DELETE /t/users/:id (admin): soft delete; sessions end in the same batch. */
export async function softDeleteUser(ctx: SchoolCtx, input: { id: string }) {
  const { id } = input;
  if (id === ctx.actor.userId) throw new ApiError(usersErrors.CANNOT_DELETE_SELF);
  const now = ctx.clock.now();
  const hooks = userDeletedWebhooks(ctx, id, false, now);
  const results = await runBatch(ctx, [
    userDeletedEntry(ctx, { id }),
    ...hooks,
    ctx.db.update(users).set({ deletedAt: now, updatedAt: now }).where(liveRowWhere(users, ctx.tenantId, id)).returning({ id: users.id }),
    ...revokeSessionsStatements(ctx, { userIds: [id], reason: "user_deleted" }),
    ...rebuildCuratorStudents(ctx, usersKeys(listedIds([id]))),
  ]);
  if ((results[1 + hooks.length] as { id: string }[]).length === 0) throw new ApiError(usersErrors.USER_NOT_FOUND);
  await dispatchQueued(ctx);
  return { deleted: true as const };
}

/**
 * DELETE /t/users/:id/permanent (admin): the account and every personal-data row in one batch of
 * the school's shard (src/platform/users/personal-data.ts). A soft-deleted user of the school can still be purged.
 */
export async function permanentlyDeleteUser(ctx: SchoolCtx, input: { id: string }) {
  const { id } = input;
  if (id === ctx.actor.userId) throw new ApiError(usersErrors.CANNOT_DELETE_SELF);
  const [target] = await ctx.db
    .select({ id: users.id, email: users.email })
    .from(users)
    .where(and(eq(users.id, id), inSchool(users, ctx.tenantId)))
    .limit(1);
  if (!target) throw new ApiError(usersErrors.PURGE_TARGET_NOT_FOUND);
  // Two databases: the account's rows in the shard, its sign-in counter in control (harmless alone).
  const purged = auditEntry(ctx, { action: "user.purged", targetType: "user", targetId: id, summary: "User permanently deleted" });
  await Promise.all([
    runBatch(ctx, [...userDeletedWebhooks(ctx, id, true, ctx.clock.now()), ...permanentDeletionStatements(ctx, target), purged]),
    permanentDeletionControlStatement(ctx, target),
  ]);
  await dispatchQueued(ctx);
  return { deleted: true as const, permanent: true as const };
}

/**
 * PUT /t/users/:id/role (admin). Becoming a curator creates the default permission set when none
 * exists (an earlier set is kept); leaving the role drops the user's curator assignments, so no
 * student points at a non-curator. Role and permissions are read per request, so the change
 * applies to the user's next call.
 */
export async function changeRole(ctx: SchoolCtx, input: { id: string; role: SchoolRole }) {
  const { id, role } = input;
  if (id === ctx.actor.userId) throw new ApiError(usersErrors.CANNOT_MODIFY_SELF);
  const { tenantId } = ctx;
  const now = ctx.clock.now();
  const update = ctx.db
    .update(users)
    .set({ role, updatedAt: sql`CASE WHEN ${users.role} = ${role} THEN ${users.updatedAt} ELSE ${now} END` })
    .where(liveRowWhere(users, tenantId, id))
    .returning(userColumns);
  // After the update: its updated_at moved only if the role really changed.
  const notice = await enqueue(
    ctx,
    "account.role_changed",
    { token: "user", userId: id },
    { school_title: ctx.tenant.title, role },
    { id },
    `account.role_changed:${id}:${now}`,
    { when: sql`EXISTS (SELECT 1 FROM users WHERE id = ${id} AND ${inSchool(tenantId)} AND role = ${role} AND updated_at = ${now} AND deleted_at IS NULL)` },
  );
  const hooks = userChangeWebhooks(ctx, eq(users.id, id), { role }, now);
  if (role === "curator") {
    const results = await runBatch(ctx, [
      roleChangedEntry(ctx, { id, role }),
      ...hooks,
      update,
      defaultPermissionsStatement(ctx, { userId: id, now }),
      permissionsQuery(ctx, id),
      notice,
      ...rebuildCuratorStudents(ctx, usersKeys(listedIds([id]))),
    ]);
    const [updated, , sets] = results.slice(1 + hooks.length) as [UserRow[], unknown, Awaited<ReturnType<typeof permissionsQuery>>];
    const row = updated[0];
    if (!row) throw new ApiError(usersErrors.USER_NOT_FOUND);
    await dispatchQueued(ctx);
    return { ...(await toUserObject(ctx, row)), permissions: sets[0] ? toPermissionsObject(sets[0]) : null };
  }
  // The curator's assignments go only if the role change above happened (a 404 changes nothing).
  const changed = sql`EXISTS (SELECT 1 FROM users WHERE id = ${id} AND ${inSchool(tenantId)} AND role = ${role} AND deleted_at IS NULL)`;
  const [updated] = (
    await runBatch(ctx, [
    roleChangedEntry(ctx, { id, role }),
    ...hooks,
    update,
    ctx.db
      .update(users)
      .set({ individualCuratorId: null, updatedAt: now })
      .where(and(inSchool(users, tenantId), eq(users.individualCuratorId, id), changed)),
    ctx.db.delete(groupCurators).where(and(inSchool(groupCurators, tenantId), eq(groupCurators.curatorId, id), changed)),
    notice,
    // A former curator's pairs go, a new student's (their own curator and groups) come.
    ...rebuildCuratorStudents(ctx, usersKeys(listedIds([id]))),
  ])
  ).slice(1 + hooks.length) as [UserRow[]];
  const row = updated[0];
  if (!row) throw new ApiError(usersErrors.USER_NOT_FOUND);
  await dispatchQueued(ctx);
  return { ...(await toUserObject(ctx, row)), permissions: null };
}

/**
 * PUT /t/users/:id/curator (manage_groups). The assignment is one conditional write: it happens
 * only if the target is a live student and the curator a live curator of the same school.
 */
export async function assignCurator(ctx: SchoolCtx, input: { id: string; curatorId: string | null }) {
  const { id, curatorId } = input;
  const { tenantId } = ctx;
  const now = ctx.clock.now();
  const curatorEligible =
    curatorId === null
      ? undefined
      : sql`EXISTS (SELECT 1 FROM users c WHERE c.id = ${curatorId} AND ${inSchool("c", tenantId)} AND c.role = 'curator' AND c.deleted_at IS NULL)`;
  const isStudent = and(eq(users.id, id), eq(users.role, "student"));
  // Ahead of the update: only a new, different curator is news, and only if the update can land.
  const assignment =
    curatorId === null
      ? []
      : await curatorAssignedPushes(ctx, {
          studentId: id,
          curatorId,
          now,
          when: sql`${curatorEligible} AND EXISTS (SELECT 1 FROM users s WHERE s.id = ${id} AND ${inSchool("s", tenantId)} AND s.role = 'student'
            AND s.deleted_at IS NULL AND s.individual_curator_id IS NOT ${curatorId})`,
        });
  const results = await runBatch(ctx, [
    ...assignment,
    curatorAssignedEntry(ctx, { id, curatorId, eligible: curatorEligible }),
    ctx.db
      .update(users)
      .set({ individualCuratorId: curatorId, updatedAt: now })
      .where(liveUsers(ctx, isStudent, curatorEligible))
      .returning({ id: users.id }),
    detailQuery(ctx, isStudent).limit(1),
    ...rebuildCuratorStudents(ctx, { students: listedIds([id]) }),
  ]);
  const assigned = results[assignment.length + 1] as { id: string }[];
  const rows = results[assignment.length + 2] as Awaited<ReturnType<ReturnType<typeof detailQuery>["limit"]>>;
  if (!rows[0]) throw new ApiError(usersErrors.STUDENT_NOT_FOUND);
  if (assigned.length === 0) throw new ApiError(usersErrors.CURATOR_NOT_ELIGIBLE);
  await dispatchQueued(ctx);
  const [detail] = await toUserDetails(ctx, rows);
  return detail!;
}

type BulkSkipReason = "not_found" | "not_in_scope";

/**
 * POST /t/users/bulk-activate and /bulk-deactivate. Idempotent: `affected` counts the listed users
 * now in the requested state (already there included). Curators may only change students, and a
 * restricted curator only their own; others are skipped as `not_in_scope`.
 */
export async function bulkSetActive(ctx: SchoolCtx, input: { ids: string[]; active: boolean }) {
  const { active } = input;
  const ids = [...new Set(input.ids)];
  if (ids.includes(ctx.actor.userId)) throw new ApiError(usersErrors.CANNOT_MODIFY_SELF);
  const manageable = and(ctx.actor.role === "curator" ? eq(users.role, "student") : undefined, scopeCondition(users.id, restrictedScope(ctx)));

  const found = await ctx.db
    .select({ id: users.id, manageable: manageable ? sql<number>`CASE WHEN ${manageable} THEN 1 ELSE 0 END` : sql<number>`1` })
    .from(users)
    .where(liveUsers(ctx, idIn(users.id, ids)));
  const eligible = found.filter((row) => row.manageable === 1).map((row) => row.id);

  let changed: string[] = [];
  if (eligible.length > 0) {
    const now = ctx.clock.now();
    const update = ctx.db
      .update(users)
      .set({ isActive: active, updatedAt: sql`CASE WHEN ${users.isActive} = ${active ? 1 : 0} THEN ${users.updatedAt} ELSE ${now} END` })
      .where(liveUsers(ctx, idIn(users.id, eligible), manageable))
      .returning({ id: users.id });
    // Reactivation pushes go ahead of the update, each for a user it turns from inactive to active.
    const notices = active ? await Promise.all(eligible.map((userId) => activatedPush(ctx, userId, now))) : [];
    // Ahead of the update: one entry per user whose flag it turns.
    const audit = [activeEntry(ctx, { where: and(idIn(users.id, eligible), manageable), active }), ...userChangeWebhooks(ctx, and(idIn(users.id, eligible), manageable)!, { is_active: active }, now)];
    const pairs = rebuildCuratorStudents(ctx, usersKeys(listedIds(eligible)));
    const results = active
      ? await runBatch(ctx, [...notices, ...audit, update, ...pairs])
      : await runBatch(ctx, [...audit, update, ...revokeSessionsStatements(ctx, { userIds: eligible, reason: "user_deactivated" }), ...pairs]);
    changed = (results[active ? notices.length + audit.length : audit.length] as { id: string }[]).map((row) => row.id);
    await dispatchQueued(ctx);
  }

  const done = new Set(changed);
  const known = new Set(found.map((row) => row.id));
  const skipped = ids
    .filter((id) => !done.has(id))
    .map((id) => ({ id, reason: (known.has(id) ? "not_in_scope" : "not_found") as BulkSkipReason }));
  return { affected: done.size, skipped: skipped.length, skipped_details: skipped };
}

/**
 * `account.activated` for one user, to place ahead of the update that reactivates them: it reads
 * `is_active` before the change, so only a real false-to-true change is announced.
 */
function activatedPush(ctx: SchoolCtx, userId: string, now: number) {
  return enqueue(
    ctx,
    "account.activated",
    { token: "user", userId },
    { school_title: ctx.tenant.title },
    { id: userId },
    `account.activated:${userId}:${now}`,
    { activatesRecipients: true, when: sql`EXISTS (SELECT 1 FROM users u WHERE u.id = ${userId} AND ${liveInSchool("u", ctx.tenantId)} AND u.is_active = 0)` },
  );
}

/** `account.curator_assigned` to the student and `account.student_assigned` to the new curator. */
async function curatorAssignedPushes(ctx: SchoolCtx, input: { studentId: string; curatorId: string; now: number; when: SQL }) {
  const name = (userId: string) => sql`(SELECT u.first_name || ' ' || u.last_name FROM users u WHERE u.id = ${userId} AND ${inSchool("u", ctx.tenantId)})`;
  return [
    await enqueue(
      ctx,
      "account.curator_assigned",
      { token: "student", studentId: input.studentId },
      { curator_name: name(input.curatorId) },
      { id: input.studentId },
      `account.curator_assigned:${input.studentId}:${input.now}`,
      { when: input.when },
    ),
    await enqueue(
      ctx,
      "account.student_assigned",
      { token: "curator", curatorId: input.curatorId },
      { student_name: name(input.studentId) },
      { id: input.studentId },
      `account.student_assigned:${input.studentId}:${input.now}`,
      { when: input.when },
    ),
  ];
}
