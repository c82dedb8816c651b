import { and, eq, sql } from "drizzle-orm";
import { curatorPermissions, users } from "../../db/schema";
import { liveRowWhere } from "../../core/db/live-row";
import type { PermissionSet, SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { iso } from "../../core/lib/clock";
import { uuidv7 } from "../../core/lib/ids";
import { dispatchQueued, enqueue } from "../notifications/enqueue";
import { usersErrors } from "./errors";
import { permissionsChangedEntry } from "./audit";
import { inSchool } from "../../core/db/conditions";

/**
 * A new curator's flags (the spec leaves them open; docs/decisions/users.md, "Users, roles and curator permissions"): least privilege, read-only
 * analytics. An admin widens them with PUT /t/users/:id/permissions.
 */
const DEFAULT_CURATOR_PERMISSIONS: PermissionSet = {
  can_manage_courses: false,
  can_manage_students: false,
  can_manage_groups: false,
  can_view_analytics: true,
  can_manage_exams: false,
  can_manage_notifications: false,
};

/**
 * Inserts the default set for a user who is (by the time the statement runs in its batch) a live
 * curator of the school and has no set yet. Batched after the insert or role change, so it needs
 * no read and cannot race with another writer of the same set.
 */
export function defaultPermissionsStatement(ctx: SchoolCtx, input: { userId: string; now: number }) {
  return curatorSetInsert(ctx, { ...input, flags: DEFAULT_CURATOR_PERMISSIONS }).onConflictDoNothing({ target: curatorPermissions.userId });
}

/**
 * A permission set for the user, written only if the user is (when the statement runs in its
 * batch) a live curator of the school. Raw SQL as the SELECT of a query-builder insert: drizzle
 * cannot batch a raw statement with parameters.
 */
function curatorSetInsert(ctx: SchoolCtx, input: { userId: string; flags: PermissionSet; now: number }) {
  const f = input.flags;
  return ctx.db.insert(curatorPermissions).select(
    sql`SELECT ${uuidv7(input.now)}, tenant_id, id, ${Number(f.can_manage_courses)}, ${Number(f.can_manage_students)}, ${Number(f.can_manage_groups)},
      ${Number(f.can_view_analytics)}, ${Number(f.can_manage_exams)}, ${Number(f.can_manage_notifications)}, ${input.now}, ${input.now}
    FROM users
    WHERE id = ${input.userId} AND ${inSchool(ctx.tenantId)} AND role = 'curator' AND deleted_at IS NULL`,
  );
}

/** The permission set of a user of the caller's school. */
export function permissionsQuery(ctx: SchoolCtx, userId: string) {
  return ctx.db
    .select()
    .from(curatorPermissions)
    .where(and(inSchool(curatorPermissions, ctx.tenantId), eq(curatorPermissions.userId, userId)))
    .limit(1);
}

export function toPermissionsObject(row: typeof curatorPermissions.$inferSelect) {
  return {
    id: row.id,
    user_id: row.userId,
    can_manage_courses: row.canManageCourses,
    can_manage_students: row.canManageStudents,
    can_manage_groups: row.canManageGroups,
    can_view_analytics: row.canViewAnalytics,
    can_manage_exams: row.canManageExams,
    can_manage_notifications: row.canManageNotifications,
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  };
}

/** The role of a live user of the caller's school. */
function targetQuery(ctx: SchoolCtx, userId: string) {
  return ctx.db.select({ role: users.role }).from(users).where(liveRowWhere(users, ctx.tenantId, userId)).limit(1);
}

function checkCurator(target: { role: string } | undefined): void {
  if (!target) throw new ApiError(usersErrors.USER_NOT_FOUND);
  if (target.role !== "curator") throw new ApiError(usersErrors.NOT_A_CURATOR);
}

/** GET /t/users/:id/permissions: the target and its set in one batch. */
export async function getPermissions(ctx: SchoolCtx, input: { userId: string }) {
  const [targets, sets] = await ctx.db.batch([targetQuery(ctx, input.userId), permissionsQuery(ctx, input.userId)]);
  checkCurator(targets[0]);
  const set = sets[0];
  if (!set) throw new ApiError(usersErrors.PERMISSIONS_NOT_FOUND);
  return toPermissionsObject(set);
}

/**
 * PUT /t/users/:id/permissions: replaces all six flags, creating the set if it is missing. The
 * upsert only fires for a live curator of the school, so a concurrent role change cannot leave
 * a set written for a non-curator.
 */
export async function replacePermissions(ctx: SchoolCtx, input: { userId: string; flags: PermissionSet }) {
  const now = ctx.clock.now();
  const f = input.flags;
  const notice = await enqueue(
    ctx,
    "account.permissions_changed",
    { token: "user", userId: input.userId },
    { school_title: ctx.tenant.title },
    { id: input.userId },
    `account.permissions_changed:${input.userId}:${now}`,
    // Ahead of the upsert: it reads the flags this request is about to replace.
    {
      when: sql`EXISTS (SELECT 1 FROM users u WHERE u.id = ${input.userId} AND ${inSchool("u", ctx.tenantId)} AND u.role = 'curator' AND u.deleted_at IS NULL)
        AND NOT EXISTS (SELECT 1 FROM curator_permissions p WHERE p.user_id = ${input.userId} AND ${inSchool("p", ctx.tenantId)}
          AND p.can_manage_courses = ${f.can_manage_courses ? 1 : 0} AND p.can_manage_students = ${f.can_manage_students ? 1 : 0}
          AND p.can_manage_groups = ${f.can_manage_groups ? 1 : 0} AND p.can_view_analytics = ${f.can_view_analytics ? 1 : 0}
          AND p.can_manage_exams = ${f.can_manage_exams ? 1 : 0} AND p.can_manage_notifications = ${f.can_manage_notifications ? 1 : 0})`,
    },
  );
  const [, , , targets, sets] = await ctx.db.batch([
    notice,
    // Ahead of the upsert, like the notice: it reads the flags being replaced.
    permissionsChangedEntry(ctx, { userId: input.userId, flags: input.flags }),
    curatorSetInsert(ctx, { userId: input.userId, flags: input.flags, now }).onConflictDoUpdate({
      target: curatorPermissions.userId,
      set: {
        canManageCourses: sql`excluded.can_manage_courses`,
        canManageStudents: sql`excluded.can_manage_students`,
        canManageGroups: sql`excluded.can_manage_groups`,
        canViewAnalytics: sql`excluded.can_view_analytics`,
        canManageExams: sql`excluded.can_manage_exams`,
        canManageNotifications: sql`excluded.can_manage_notifications`,
        updatedAt: sql`excluded.updated_at`,
      },
    }),
    targetQuery(ctx, input.userId),
    permissionsQuery(ctx, input.userId),
  ]);
  checkCurator(targets[0]);
  await dispatchQueued(ctx);
  return toPermissionsObject(sets[0]!);
}
