import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, deletedAt, flag, id, tenantRef, updatedAt } from "../columns";

export const SUBMISSION_STATUSES = ["draft", "submitted", "accepted", "rejected"] as const;
export type SubmissionStatus = (typeof SUBMISSION_STATUSES)[number];

/** Work set by staff. `max_score_hundredths` 10000 = "100.00"; `max_attempts` null = unlimited. */
export const assignments = sqliteTable(
  "assignments",
  {
    id: id(),
    tenantId: tenantRef(),
    title: text("title").notNull(),
    instructions: text("instructions").notNull().default(""),
    maxScoreHundredths: integer("max_score_hundredths").notNull().default(10000),
    maxAttempts: integer("max_attempts"),
    screenshotProtectionEnabled: flag("screenshot_protection_enabled"),
    createdBy: text("created_by"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    deletedAt: deletedAt(),
  },
  (t) => [index("assignments_tenant_created").on(t.tenantId, t.deletedAt, t.createdAt)],
);

/** Files staff attach to an assignment (media assets of the school); removed rows are deleted. */
export const assignmentAttachments = sqliteTable(
  "assignment_attachments",
  {
    id: id(),
    tenantId: tenantRef(),
    assignmentId: text("assignment_id").notNull(),
    mediaAssetId: text("media_asset_id").notNull(),
    position: integer("position").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("assignment_attachments_asset").on(t.tenantId, t.assignmentId, t.mediaAssetId),
    index("assignment_attachments_position").on(t.tenantId, t.assignmentId, t.position),
  ],
);

/** The allow-list of groups whose students may submit; no row = open to every student of the school. */
export const assignmentGroupTargets = sqliteTable(
  "assignment_group_targets",
  {
    tenantId: tenantRef(),
    assignmentId: text("assignment_id").notNull(),
    groupId: text("group_id").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.assignmentId, t.groupId] }),
    index("assignment_group_targets_group").on(t.tenantId, t.groupId),
  ],
);

/**
 * One attempt of a student at an assignment. A rejection below `max_attempts` lets the student
 * open attempt + 1; the rejected row stays as history. Scores are hundredths.
 */
export const submissions = sqliteTable(
  "submissions",
  {
    id: id(),
    tenantId: tenantRef(),
    assignmentId: text("assignment_id").notNull(),
    studentId: text("student_id").notNull(),
    attempt: integer("attempt").notNull(),
    status: text("status", { enum: SUBMISSION_STATUSES }).notNull().default("draft"),
    text: text("text"),
    scoreHundredths: integer("score_hundredths"),
    feedback: text("feedback"),
    gradedById: text("graded_by_id"),
    gradedAt: integer("graded_at"),
    submittedAt: integer("submitted_at"),
    /** Set by a reopen: the attempt was handed in once, so the closing date no longer refuses it. */
    reopenedAt: integer("reopened_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("submissions_attempt").on(t.tenantId, t.assignmentId, t.studentId, t.attempt),
    index("submissions_tenant_assignment_status").on(t.tenantId, t.assignmentId, t.status),
    index("submissions_tenant_student").on(t.tenantId, t.studentId, t.status),
    // Curator analytics reads a period's hand-ins by time (docs/decisions/heavy-reads.md, "Curator analytics").
    index("submissions_tenant_submitted").on(t.tenantId, t.submittedAt, t.studentId, t.assignmentId),
  ],
);

/** Files of a submission: the student's own media assets (they go with the student). */
export const submissionAttachments = sqliteTable(
  "submission_attachments",
  {
    tenantId: tenantRef(),
    submissionId: text("submission_id").notNull(),
    studentId: text("student_id").notNull(),
    mediaAssetId: text("media_asset_id").notNull(),
    position: integer("position").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.submissionId, t.mediaAssetId] }),
    index("submission_attachments_student").on(t.tenantId, t.studentId),
  ],
);
