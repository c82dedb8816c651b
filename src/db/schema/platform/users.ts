import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, deletedAt, flag, id, updatedAt } from "../columns";

export const users = sqliteTable(
  "users",
  {
    id: id(),
    /** Null only for the platform superadmin. */
    tenantId: text("tenant_id"),
    email: text("email").notNull(),
    passwordHash: text("password_hash").notNull(),
    firstName: text("first_name").notNull(),
    lastName: text("last_name").notNull(),
    avatar: text("avatar"),
    role: text("role", { enum: ["superadmin", "admin", "curator", "student"] }).notNull(),
    isActive: integer("is_active", { mode: "boolean" }).notNull().default(true),
    emailVerifiedAt: integer("email_verified_at"),
    lastActiveAt: integer("last_active_at"),
    /** A curator of the same school assigned to this student individually (restricted-curator scope). */
    individualCuratorId: text("individual_curator_id"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    deletedAt: deletedAt(),
  },
  (t) => [
    uniqueIndex("users_email_live").on(t.tenantId, t.email).where(sql`deleted_at IS NULL`),
    // SQLite treats NULL tenant ids as distinct, so platform (superadmin) emails need their own index.
    uniqueIndex("users_platform_email_live").on(t.email).where(sql`deleted_at IS NULL AND tenant_id IS NULL`),
    index("users_tenant_role").on(t.tenantId, t.role),
    index("users_individual_curator").on(t.individualCuratorId),
    // The few members the rating does not rank (staff, deleted or inactive students): the board counts
    // the ranked students as all minus these, never visiting the school's students one by one. The
    // condition must read as src/content/rating/scope.ts `unrankedSql` does, or SQLite ignores it.
    index("users_unranked").on(t.tenantId, t.role, t.id).where(sql`NOT (role = 'student' AND deleted_at IS NULL AND is_active = 1)`),
    // School databases also have `users_search` (the users list's folded text) and
    // `users_tenant_created` (its order), created by school migrations rather than here because this
    // table is a control-database table too.
  ],
);

export const curatorPermissions = sqliteTable(
  "curator_permissions",
  {
    id: id(),
    tenantId: text("tenant_id").notNull(),
    userId: text("user_id").notNull().unique(),
    canManageCourses: flag("can_manage_courses"),
    canManageStudents: flag("can_manage_students"),
    canManageGroups: flag("can_manage_groups"),
    canViewAnalytics: flag("can_view_analytics"),
    canManageExams: flag("can_manage_exams"),
    canManageNotifications: flag("can_manage_notifications"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("curator_permissions_tenant").on(t.tenantId)],
);
