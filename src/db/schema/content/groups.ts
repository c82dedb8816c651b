import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { tenantRef } from "../columns";

/**
 * A group enrolled in a course: while the link exists, every member of the group has a
 * `group:<id>` access source on the course (enrollment_sources). Removing the link removes only
 * those sources; students with other sources keep their enrollment.
 */
export const courseGroupEnrollments = sqliteTable(
  "course_group_enrollments",
  {
    id: text("id").notNull(),
    tenantId: tenantRef(),
    courseId: text("course_id").notNull(),
    groupId: text("group_id").notNull(),
    enrolledAt: integer("enrolled_at").notNull(),
    enrolledBy: text("enrolled_by"),
  },
  (t) => [
    primaryKey({ columns: [t.courseId, t.groupId] }),
    uniqueIndex("course_group_enrollments_id").on(t.id),
    index("course_group_enrollments_tenant_course").on(t.tenantId, t.courseId),
    index("course_group_enrollments_tenant_group").on(t.tenantId, t.groupId),
  ],
);
