import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { createdAt, deletedAt, id, tenantRef, updatedAt } from "../columns";

export const PATH_STATUSES = ["draft", "published"] as const;

/** A learning path: an ordered set of courses a student unlocks one after the other. */
export const learningPaths = sqliteTable(
  "learning_paths",
  {
    id: id(),
    tenantId: tenantRef(),
    title: text("title").notNull(),
    description: text("description").notNull().default(""),
    status: text("status", { enum: PATH_STATUSES }).notNull().default("draft"),
    createdBy: text("created_by"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    deletedAt: deletedAt(),
  },
  (t) => [index("learning_paths_tenant_status").on(t.tenantId, t.status)],
);

export const learningPathCourses = sqliteTable(
  "learning_path_courses",
  {
    tenantId: tenantRef(),
    pathId: text("path_id").notNull(),
    courseId: text("course_id").notNull(),
    position: integer("position").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.pathId, t.courseId] }),
    index("learning_path_courses_tenant_path").on(t.tenantId, t.pathId, t.position),
    index("learning_path_courses_tenant_course").on(t.tenantId, t.courseId),
  ],
);
