import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { createdAt, deletedAt, id, tenantRef, updatedAt } from "../columns";

export const groups = sqliteTable(
  "groups",
  {
    id: id(),
    tenantId: tenantRef(),
    name: text("name").notNull(),
    description: text("description").notNull().default(""),
    /** A media-asset id of the school (an image) or an image URL, as sent; null without a logo. */
    logo: text("logo"),
    createdBy: text("created_by"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    deletedAt: deletedAt(),
  },
  (t) => [index("groups_tenant").on(t.tenantId)],
);

export const groupMembers = sqliteTable(
  "group_members",
  {
    tenantId: tenantRef(),
    groupId: text("group_id").notNull(),
    userId: text("user_id").notNull(),
    joinedAt: integer("joined_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.groupId, t.userId] }),
    // A user's memberships within their school, covering the users list's groups of each row: with
    // an index on user_id alone SQLite chose (tenant_id, group_id) and read the school's every
    // membership per user (docs/decisions/users.md, "The users list at a school's size").
    index("group_members_tenant_user").on(t.tenantId, t.userId, t.groupId, t.joinedAt),
    index("group_members_tenant_group").on(t.tenantId, t.groupId),
  ],
);

/** Curators assigned to a group see its members as their own students. */
export const groupCurators = sqliteTable(
  "group_curators",
  {
    tenantId: tenantRef(),
    groupId: text("group_id").notNull(),
    curatorId: text("curator_id").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.groupId, t.curatorId] }),
    index("group_curators_curator").on(t.curatorId),
    index("group_curators_tenant_curator").on(t.tenantId, t.curatorId),
  ],
);

/**
 * Each curator's students in scope as curator analytics counts them: a live, active curator with
 * their individually assigned live, active students and the live, active students of the live
 * groups they curate, each pair once. Rebuilt for the students and curators a write touches in
 * that write's own batch (src/platform/schools/curator-students.ts; docs/decisions/heavy-reads.md,
 * "Fourth pass: stored pairs"), so the analytics statement reads the scope instead of computing it.
 */
export const curatorStudents = sqliteTable(
  "curator_students",
  {
    tenantId: tenantRef(),
    curatorId: text("curator_id").notNull(),
    studentId: text("student_id").notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.curatorId, t.studentId] }), index("curator_students_tenant_student").on(t.tenantId, t.studentId, t.curatorId)],
);
