import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, deletedAt, flag, id, tenantRef, updatedAt } from "../columns";

export const COURSE_STATUSES = ["draft", "published"] as const;
export type CourseStatus = (typeof COURSE_STATUSES)[number];

/**
 * The course tree: course → module → lesson → block. Every child row carries the ids of all its
 * ancestors (a block knows its lesson, module and course), so a whole course is read or counted by
 * one indexed scan per level, and a deletion marks the children in the same batch (`deleted_at`),
 * so no read has to walk up the tree to know whether a row is live.
 */
export const courses = sqliteTable(
  "courses",
  {
    id: id(),
    tenantId: tenantRef(),
    title: text("title").notNull(),
    slug: text("slug").notNull(),
    /** Sanitized rich text (the one sanitizer of the project). */
    description: text("description").notNull().default(""),
    status: text("status", { enum: COURSE_STATUSES }).notNull().default("draft"),
    sequentialRequired: flag("sequential_required"),
    position: integer("position").notNull(),
    coverImageId: text("cover_image_id"),
    createdBy: text("created_by"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    deletedAt: deletedAt(),
  },
  (t) => [
    uniqueIndex("courses_slug_live").on(t.tenantId, t.slug).where(sql`deleted_at IS NULL`),
    index("courses_tenant_position").on(t.tenantId, t.position),
  ],
);

export const courseModules = sqliteTable(
  "course_modules",
  {
    id: id(),
    tenantId: tenantRef(),
    courseId: text("course_id").notNull(),
    title: text("title").notNull(),
    description: text("description").notNull().default(""),
    position: integer("position").notNull(),
    coverImageId: text("cover_image_id"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    deletedAt: deletedAt(),
  },
  (t) => [index("course_modules_tenant_course").on(t.tenantId, t.courseId, t.position)],
);

export const lessons = sqliteTable(
  "lessons",
  {
    id: id(),
    tenantId: tenantRef(),
    courseId: text("course_id").notNull(),
    moduleId: text("module_id").notNull(),
    title: text("title").notNull(),
    position: integer("position").notNull(),
    screenshotProtectionEnabled: flag("screenshot_protection_enabled"),
    coverImageId: text("cover_image_id"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    deletedAt: deletedAt(),
  },
  (t) => [
    index("lessons_tenant_module").on(t.tenantId, t.moduleId, t.position),
    index("lessons_tenant_course").on(t.tenantId, t.courseId),
  ],
);

export const BLOCK_TYPES = ["text", "video", "image", "pdf", "file", "embed", "quiz_ref", "assignment_ref", "exam_ref"] as const;
export type BlockType = (typeof BLOCK_TYPES)[number];

export const blocks = sqliteTable(
  "blocks",
  {
    id: id(),
    tenantId: tenantRef(),
    courseId: text("course_id").notNull(),
    moduleId: text("module_id").notNull(),
    lessonId: text("lesson_id").notNull(),
    type: text("type", { enum: BLOCK_TYPES }).notNull(),
    /** The validated payload of the type, as JSON. */
    payload: text("payload", { mode: "json" }).notNull().$type<Record<string, unknown>>(),
    /**
     * The object the payload names (media asset, quiz, assignment or exam), copied out of the
     * payload so set-based reads (question counts, completions through a quiz) join on a column.
     */
    refId: text("ref_id"),
    position: integer("position").notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    deletedAt: deletedAt(),
  },
  (t) => [
    index("blocks_tenant_lesson").on(t.tenantId, t.lessonId, t.position),
    index("blocks_tenant_course").on(t.tenantId, t.courseId),
    index("blocks_tenant_ref").on(t.tenantId, t.refId).where(sql`ref_id IS NOT NULL`),
  ],
);

/** Lesson access groups: a lesson with rows here is visible only to members of those groups. */
export const lessonGroups = sqliteTable(
  "lesson_groups",
  {
    tenantId: tenantRef(),
    lessonId: text("lesson_id").notNull(),
    groupId: text("group_id").notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.lessonId, t.groupId] }), index("lesson_groups_tenant_lesson").on(t.tenantId, t.lessonId), index("lesson_groups_tenant_group").on(t.tenantId, t.groupId)],
);

/**
 * Scratch rows of one deep copy (duplicate course, module or lesson): old id → new id for every
 * copied row, written and deleted inside the copy's own batch, so children find their new parents
 * by a join and the copy is a fixed number of set-based statements whatever the tree's size.
 */
export const treeCopyMap = sqliteTable(
  "tree_copy_map",
  {
    tenantId: tenantRef(),
    copyId: text("copy_id").notNull(),
    oldId: text("old_id").notNull(),
    newId: text("new_id").notNull(),
  },
  (t) => [primaryKey({ columns: [t.copyId, t.oldId] }), index("tree_copy_map_tenant_copy").on(t.tenantId, t.copyId)],
);
