import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, id, tenantRef, updatedAt } from "../columns";

/**
 * One row per (course, student), kept for ever: removing the last access source sets
 * `removed_at`, a new source clears it again (the enrollment is "restored" with its progress).
 * An enrollment is active exactly while `removed_at` is null; every write that adds or removes
 * sources settles `removed_at` in the same batch.
 *
 * Progress is stored on the row and recomputed by one statement on every completion and on every
 * structural change of the course: `total_blocks` is the course's block count at that recompute
 * (the "snapshot"), `completed_at` is set the first time the count is reached and never cleared.
 */
export const enrollments = sqliteTable(
  "enrollments",
  {
    id: id(),
    tenantId: tenantRef(),
    courseId: text("course_id").notNull(),
    studentId: text("student_id").notNull(),
    enrolledAt: integer("enrolled_at").notNull(),
    /** Null for a self-enrollment. */
    enrolledBy: text("enrolled_by"),
    removedAt: integer("removed_at"),
    lastAccessedBlockId: text("last_accessed_block_id"),
    lastAccessedAt: integer("last_accessed_at"),
    /**
     * The student's latest block completion in the course (ms), NULL before the first: what the
     * enrollment status would otherwise read from `block_completions` row by row. The recount that
     * follows every completion in its batch sets it (docs/decisions/heavy-reads-enrollments.md, "Enrollment lists").
     */
    lastCompletionAt: integer("last_completion_at"),
    blocksCompleted: integer("blocks_completed").notNull().default(0),
    totalBlocks: integer("total_blocks").notNull().default(0),
    completedAt: integer("completed_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("enrollments_course_student").on(t.courseId, t.studentId),
    // In enrollment order, so a list page or an export slice walks the index and stops at its own
    // rows instead of sorting the course (docs/decisions/heavy-reads-enrollments.md, "Enrollment lists").
    index("enrollments_tenant_course").on(t.tenantId, t.courseId, t.removedAt, t.enrolledAt, t.id),
    // School databases also have `enrollments_tenant_course_counts` (the list's counts, one range per
    // status bucket: docs/decisions/heavy-reads-enrollments.md, "Enrollment counts without a status
    // per row"), created by the school migration `enrollment_counts_index` rather than here:
    // drizzle-kit splits an index expression at its commas.
    index("enrollments_tenant_student").on(t.tenantId, t.studentId, t.removedAt),
  ],
);

export const ENROLLMENT_SOURCE_KINDS = ["direct", "legacy", "group"] as const;
export type EnrollmentSourceKind = (typeof ENROLLMENT_SOURCE_KINDS)[number];

/**
 * Why a student has access to a course: a direct enrollment, a legacy one (imported), or each
 * enrolled group they belong to. `source_key` is `direct`, `legacy` or `group:<group id>`, so one
 * source of each kind exists at most once per enrollment.
 */
export const enrollmentSources = sqliteTable(
  "enrollment_sources",
  {
    tenantId: tenantRef(),
    enrollmentId: text("enrollment_id").notNull(),
    courseId: text("course_id").notNull(),
    studentId: text("student_id").notNull(),
    kind: text("kind", { enum: ENROLLMENT_SOURCE_KINDS }).notNull(),
    groupId: text("group_id"),
    sourceKey: text("source_key").notNull(),
    createdBy: text("created_by"),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.enrollmentId, t.sourceKey] }),
    index("enrollment_sources_tenant_course").on(t.tenantId, t.courseId, t.studentId),
    index("enrollment_sources_tenant_group").on(t.tenantId, t.groupId).where(sql`group_id IS NOT NULL`),
  ],
);

export const COMPLETION_SOURCES = ["manual", "quiz", "assignment", "exam"] as const;
export type CompletionSource = (typeof COMPLETION_SOURCES)[number];

/** A student's completion of a block: at most one per (block, student), kept when the block is deleted. */
export const blockCompletions = sqliteTable(
  "block_completions",
  {
    id: id(),
    tenantId: tenantRef(),
    courseId: text("course_id").notNull(),
    lessonId: text("lesson_id").notNull(),
    blockId: text("block_id").notNull(),
    studentId: text("student_id").notNull(),
    enrollmentId: text("enrollment_id").notNull(),
    source: text("source", { enum: COMPLETION_SOURCES }).notNull(),
    completedAt: integer("completed_at").notNull(),
  },
  (t) => [
    uniqueIndex("block_completions_block_student").on(t.blockId, t.studentId),
    // Ends with completed_at so a student's latest completion in a course is one seek (the
    // enrollment status's activity); without it the planner prefers the time index below and walks
    // the school's completions (docs/decisions/heavy-reads-enrollments.md, "Enrollment lists").
    index("block_completions_tenant_student_course").on(t.tenantId, t.studentId, t.courseId, t.completedAt),
    index("block_completions_tenant_lesson").on(t.tenantId, t.lessonId),
    // Curator analytics reads a period's activity by time (docs/decisions/heavy-reads.md, "Curator analytics").
    index("block_completions_tenant_completed").on(t.tenantId, t.completedAt, t.studentId),
  ],
);
