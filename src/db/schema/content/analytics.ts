import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { tenantRef } from "../columns";

/**
 * Quiz analytics kept exact by SQLite triggers on quiz_attempts, quiz_attempt_answers and users
 * (migrations/school/0002_analytics_aggregates.sql; docs/decisions/heavy-reads.md, "Analytics
 * aggregates"). They count the attempts quiz analytics counts before its per-request filters:
 * outside exam sections, of members not deleted, split by `staff` (attempt made in a role other
 * than student) so `include_admin_attempts` picks one or both. No application code writes them.
 */

/** Per quiz: attempts and submitted attempts. */
export const quizAttemptStats = sqliteTable(
  "quiz_attempt_stats",
  {
    tenantId: tenantRef(),
    quizId: text("quiz_id").notNull(),
    staff: integer("staff").notNull(),
    attempts: integer("attempts").notNull().default(0),
    submitted: integer("submitted").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.quizId, t.staff] })],
);

/**
 * Per quiz and score: the settled attempts (submitted, nothing waiting for review) with that
 * percentage and how many passed. Sum, mean, max, min and the ten buckets all come from these
 * few rows (one per distinct score); rows that fall to 0 stay and are skipped by the reads.
 */
export const quizScoreStats = sqliteTable(
  "quiz_score_stats",
  {
    tenantId: tenantRef(),
    quizId: text("quiz_id").notNull(),
    staff: integer("staff").notNull(),
    scorePctHundredths: integer("score_pct_hundredths").notNull(),
    settled: integer("settled").notNull().default(0),
    passed: integer("passed").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.quizId, t.staff, t.scorePctHundredths] })],
);

/** Per quiz question: answers of settled attempts and how many of them are correct. */
export const quizQuestionStats = sqliteTable(
  "quiz_question_stats",
  {
    tenantId: tenantRef(),
    quizId: text("quiz_id").notNull(),
    questionId: text("question_id").notNull(),
    staff: integer("staff").notNull(),
    answered: integer("answered").notNull().default(0),
    correct: integer("correct").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.quizId, t.questionId, t.staff] })],
);

/**
 * Exam analytics, kept the same way (triggers on exam_attempts, exam_section_attempts,
 * quiz_attempts and users): per exam, attempts and submitted attempts…
 */
export const examAttemptStats = sqliteTable(
  "exam_attempt_stats",
  {
    tenantId: tenantRef(),
    examId: text("exam_id").notNull(),
    staff: integer("staff").notNull(),
    attempts: integer("attempts").notNull().default(0),
    submitted: integer("submitted").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.examId, t.staff] })],
);

/** …per exam and final score, the submitted attempts and how many passed… */
export const examScoreStats = sqliteTable(
  "exam_score_stats",
  {
    tenantId: tenantRef(),
    examId: text("exam_id").notNull(),
    staff: integer("staff").notNull(),
    scorePctHundredths: integer("score_pct_hundredths").notNull(),
    submitted: integer("submitted").notNull().default(0),
    passed: integer("passed").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.examId, t.staff, t.scorePctHundredths] })],
);

/** …and per section, the sum of its percent over the submitted attempts (the mean divides by them). */
export const examSectionStats = sqliteTable(
  "exam_section_stats",
  {
    tenantId: tenantRef(),
    examId: text("exam_id").notNull(),
    examSectionId: text("exam_section_id").notNull(),
    staff: integer("staff").notNull(),
    pctSum: integer("pct_sum").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.examId, t.examSectionId, t.staff] })],
);
