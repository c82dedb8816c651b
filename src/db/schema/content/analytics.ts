import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { ACTOR_ROLES } from "./quizzes";
import { id, tenantRef } from "../columns";

/**
 * Quiz and exam analytics kept per (object, member, role): each row is the exact figure of one
 * member's attempts made in one role, rebuilt from those attempts by the contributors of
 * `attempt.recorded` in the write batch that changed them (docs/decisions/heavy-reads.md,
 * "Analytics aggregates"). Keeping the member in the key lets a read apply the rules of whose
 * attempts count (staff or not, a restricted curator's students, deleted members) with a join,
 * exactly as over the attempts themselves. `bucket_<n>` counts the settled results in the n-th
 * tenth of the range (100 % in the last); no row means no attempt.
 */
const buckets = () => ({
  bucket0: integer("bucket_0").notNull().default(0),
  bucket1: integer("bucket_1").notNull().default(0),
  bucket2: integer("bucket_2").notNull().default(0),
  bucket3: integer("bucket_3").notNull().default(0),
  bucket4: integer("bucket_4").notNull().default(0),
  bucket5: integer("bucket_5").notNull().default(0),
  bucket6: integer("bucket_6").notNull().default(0),
  bucket7: integer("bucket_7").notNull().default(0),
  bucket8: integer("bucket_8").notNull().default(0),
  bucket9: integer("bucket_9").notNull().default(0),
});

/** A member's attempts of a quiz outside exams in one role; results over the settled ones (submitted, nothing pending). */
export const quizFigures = sqliteTable(
  "quiz_figures",
  {
    tenantId: tenantRef(),
    quizId: text("quiz_id").notNull(),
    userId: text("user_id").notNull(),
    actorRole: text("actor_role", { enum: ACTOR_ROLES }).notNull(),
    attemptCount: integer("attempt_count").notNull(),
    submittedCount: integer("submitted_count").notNull(),
    settledCount: integer("settled_count").notNull(),
    passedCount: integer("passed_count").notNull(),
    pctSum: integer("pct_sum"),
    pctMax: integer("pct_max"),
    pctMin: integer("pct_min"),
    ...buckets(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.quizId, t.userId, t.actorRole] })],
);

/** The answers of a member's settled attempts of a quiz outside exams, per question and role. */
export const quizQuestionFigures = sqliteTable(
  "quiz_question_figures",
  {
    tenantId: tenantRef(),
    quizId: text("quiz_id").notNull(),
    userId: text("user_id").notNull(),
    actorRole: text("actor_role", { enum: ACTOR_ROLES }).notNull(),
    questionId: text("question_id").notNull(),
    answered: integer("answered").notNull(),
    correct: integer("correct").notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.quizId, t.userId, t.actorRole, t.questionId] })],
);

/** A member's attempts of an exam in one role; results over the submitted ones. */
export const examFigures = sqliteTable(
  "exam_figures",
  {
    tenantId: tenantRef(),
    examId: text("exam_id").notNull(),
    userId: text("user_id").notNull(),
    actorRole: text("actor_role", { enum: ACTOR_ROLES }).notNull(),
    attemptCount: integer("attempt_count").notNull(),
    submittedCount: integer("submitted_count").notNull(),
    passedCount: integer("passed_count").notNull(),
    pctSum: integer("pct_sum"),
    pctMax: integer("pct_max"),
    pctMin: integer("pct_min"),
    ...buckets(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.examId, t.userId, t.actorRole] })],
);

/** The sum of a section's percent over a member's submitted attempts of an exam in one role. */
export const examSectionFigures = sqliteTable(
  "exam_section_figures",
  {
    tenantId: tenantRef(),
    examId: text("exam_id").notNull(),
    userId: text("user_id").notNull(),
    actorRole: text("actor_role", { enum: ACTOR_ROLES }).notNull(),
    sectionId: text("section_id").notNull(),
    pctSum: integer("pct_sum").notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.examId, t.userId, t.actorRole, t.sectionId] })],
);

/**
 * One member's activity on one UTC day (`day` = epoch ms / 86,400,000; UTC because a school may
 * change its timezone and the curator report's period is two arbitrary instants): a flag per kind
 * of activity the curator report counts. Rebuilt from the raw rows by the contributors of the
 * events that add or remove such activity, in the same write batch
 * (docs/decisions/heavy-reads.md, "Fourth pass: daily activity"); a row has at least one flag set.
 * Instants before 1970 are never folded into a day: the report reads them from the raw rows.
 */
export const studentActivityDays = sqliteTable(
  "student_activity_days",
  {
    tenantId: tenantRef(),
    studentId: text("student_id").notNull(),
    day: integer("day").notNull(),
    /** A block completed (any source). */
    completed: integer("completed").notNull().default(0),
    /** A quiz attempt outside exams started / submitted. */
    quizStarted: integer("quiz_started").notNull().default(0),
    quizSubmitted: integer("quiz_submitted").notNull().default(0),
    /** An exam attempt started / submitted. */
    examStarted: integer("exam_started").notNull().default(0),
    examSubmitted: integer("exam_submitted").notNull().default(0),
    /** A submission handed in (its `submitted_at`, whatever its review did later). */
    handedIn: integer("handed_in").notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.studentId, t.day] }),
    // The report reads a range of whole days for the school and folds the rows per student.
    index("student_activity_days_tenant_day").on(t.tenantId, t.day, t.studentId, t.quizSubmitted, t.examSubmitted, t.handedIn),
  ],
);

/**
 * Snapshots of GET /analytics/curators (docs/decisions/heavy-reads-curators.md, "Curator analytics
 * snapshots"): one per school and normalized query (`report_key`; its parts are kept as columns
 * for the queue's runs). `served_run` names the rows a read answers with, computed at
 * `computed_at`; `run_id` is the run being built since `run_started_at`, `run_after` the last
 * student it has summed (keyset). A period ends at `to_ms`, or with an open `to` at the instant its
 * run started, which is the snapshot's `computed_at` once served.
 */
export const curatorReports = sqliteTable(
  "curator_reports",
  {
    id: id(),
    tenantId: tenantRef(),
    reportKey: text("report_key").notNull(),
    curatorId: text("curator_id"),
    groupId: text("group_id"),
    courseId: text("course_id"),
    moduleId: text("module_id"),
    lessonId: text("lesson_id"),
    fromMs: integer("from_ms").notNull(),
    /** The query's `to`; null: now. */
    toMs: integer("to_ms"),
    requestedAt: integer("requested_at").notNull(),
    servedRun: text("served_run"),
    computedAt: integer("computed_at"),
    runId: text("run_id"),
    runStartedAt: integer("run_started_at"),
    runAfter: text("run_after"),
  },
  (t) => [uniqueIndex("curator_reports_key").on(t.tenantId, t.reportKey), index("curator_reports_curator").on(t.curatorId)],
);

/** A snapshot's figures per curator (`curator_id` '' holds the summary), summed over the run's slices of students. */
export const curatorReportRows = sqliteTable(
  "curator_report_rows",
  {
    tenantId: tenantRef(),
    reportId: text("report_id").notNull(),
    runId: text("run_id").notNull(),
    curatorId: text("curator_id").notNull(),
    students: integer("students").notNull(),
    active: integer("active").notNull(),
    onTime: integer("on_time").notNull(),
    quizzes: integer("quizzes").notNull(),
    /** Null with a content filter (exams not applicable). */
    exams: integer("exams"),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.reportId, t.runId, t.curatorId] }), index("curator_report_rows_curator").on(t.curatorId)],
);
