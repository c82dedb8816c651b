import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, deletedAt, flag, id, tenantRef, updatedAt } from "../columns";

export const WINDOW_LEVELS = ["course", "module", "lesson"] as const;
export type WindowLevel = (typeof WINDOW_LEVELS)[number];

/**
 * Date windows on course nodes. The default grid has `group_id` null; a group grid (one per group
 * and course) replaces the default grid for the group's members. `node_id` is the course, module or
 * lesson id the window is on, and `grid_key` the group id or '' for the default grid, so one live
 * window per node and grid is a unique index.
 */
export const scheduleWindows = sqliteTable(
  "schedule_windows",
  {
    id: id(),
    tenantId: tenantRef(),
    courseId: text("course_id").notNull(),
    groupId: text("group_id"),
    gridKey: text("grid_key").notNull(),
    level: text("level", { enum: WINDOW_LEVELS }).notNull(),
    moduleId: text("module_id"),
    lessonId: text("lesson_id"),
    nodeId: text("node_id").notNull(),
    startsAt: integer("starts_at"),
    endsAt: integer("ends_at"),
    allowBeforeStart: flag("allow_before_start"),
    allowAfterEnd: flag("allow_after_end"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    deletedAt: deletedAt(),
  },
  (t) => [
    uniqueIndex("schedule_windows_node_live").on(t.gridKey, t.nodeId).where(sql`deleted_at IS NULL`),
    index("schedule_windows_tenant_course").on(t.tenantId, t.courseId, t.gridKey),
  ],
);

/**
 * Boundaries the deadline scan has handled, so that a run bounded to a few hundred boundaries
 * moves on to the next ones instead of reading the handled ones again. `mark_key` is
 * `{kind}:{node_id}:{at}` of the boundary; the mark hides it until `until` (a reminder that
 * repeats daily comes back at the next local midnight; a handled deadline comes back once it
 * has passed, for its missed digest).
 */
export const scanMarks = sqliteTable(
  "scan_marks",
  {
    tenantId: tenantRef(),
    markKey: text("mark_key").notNull().primaryKey(),
    until: integer("until").notNull(),
  },
  (t) => [index("scan_marks_tenant_until").on(t.tenantId, t.until)],
);
