import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, deletedAt, flag, id, tenantRef, updatedAt } from "../columns";
import { ACTOR_ROLES, ATTEMPT_STATUSES, RETAKE_POLICIES } from "./quizzes";

export const EXAM_STATUSES = ["draft", "published"] as const;

/** A timed exam made of sections; each section is a quiz with a weight. */
export const exams = sqliteTable(
  "exams",
  {
    id: id(),
    tenantId: tenantRef(),
    title: text("title").notNull(),
    description: text("description").notNull().default(""),
    timeLimitSeconds: integer("time_limit_seconds").notNull(),
    passingScore: integer("passing_score"),
    maxAttempts: integer("max_attempts"),
    retakePolicy: text("retake_policy", { enum: RETAKE_POLICIES }).notNull().default("best"),
    screenshotProtectionEnabled: flag("screenshot_protection_enabled"),
    status: text("status", { enum: EXAM_STATUSES }).notNull().default("draft"),
    publishedAt: integer("published_at"),
    createdBy: text("created_by"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    deletedAt: deletedAt(),
  },
  (t) => [index("exams_tenant_status").on(t.tenantId, t.deletedAt, t.status)],
);

export const examSections = sqliteTable(
  "exam_sections",
  {
    id: id(),
    tenantId: tenantRef(),
    examId: text("exam_id").notNull(),
    quizId: text("quiz_id").notNull(),
    title: text("title").notNull(),
    position: integer("position").notNull(),
    weight: integer("weight").notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    deletedAt: deletedAt(),
  },
  (t) => [
    index("exam_sections_tenant_exam").on(t.tenantId, t.examId, t.deletedAt, t.position),
    index("exam_sections_tenant_quiz").on(t.tenantId, t.quizId),
  ],
);

/**
 * An exam attempt. The sections' answers live in their quiz attempts (`quiz_attempts.exam_attempt_id`)
 * and, while in progress, in those attempts' journals; the exam's timer object finalizes all of it.
 * Final figures are hundredths: `final_max_hundredths` = Σ weights × 100.
 */
export const examAttempts = sqliteTable(
  "exam_attempts",
  {
    id: id(),
    tenantId: tenantRef(),
    examId: text("exam_id").notNull(),
    userId: text("user_id").notNull(),
    actorRole: text("actor_role", { enum: ACTOR_ROLES }).notNull(),
    status: text("status", { enum: ATTEMPT_STATUSES }).notNull().default("in_progress"),
    startedAt: integer("started_at").notNull(),
    deadlineAt: integer("deadline_at").notNull(),
    submittedAt: integer("submitted_at"),
    autoFinalized: flag("auto_finalized"),
    finalScoreHundredths: integer("final_score_hundredths"),
    finalMaxHundredths: integer("final_max_hundredths"),
    finalScorePctHundredths: integer("final_score_pct_hundredths"),
    passed: integer("passed", { mode: "boolean" }),
    warnedAt: integer("warned_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("exam_attempts_tenant_exam").on(t.tenantId, t.examId, t.status),
    index("exam_attempts_tenant_user").on(t.tenantId, t.userId, t.examId),
    // Curator analytics reads a period's attempts by time (docs/decisions/heavy-reads.md, "Curator analytics").
    index("exam_attempts_tenant_started").on(t.tenantId, t.startedAt, t.userId),
    index("exam_attempts_tenant_submitted").on(t.tenantId, t.submittedAt, t.userId),
    uniqueIndex("exam_attempts_one_in_progress").on(t.examId, t.userId).where(sql`status = 'in_progress'`),
  ],
);

/** The section visited in an exam attempt: created once by `go`, naming the section's quiz attempt. */
export const examSectionAttempts = sqliteTable(
  "exam_section_attempts",
  {
    id: id(),
    tenantId: tenantRef(),
    examAttemptId: text("exam_attempt_id").notNull(),
    examSectionId: text("exam_section_id").notNull(),
    quizAttemptId: text("quiz_attempt_id").notNull(),
    position: integer("position").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("exam_section_attempts_once").on(t.examAttemptId, t.examSectionId),
    index("exam_section_attempts_tenant_attempt").on(t.tenantId, t.examAttemptId),
  ],
);
