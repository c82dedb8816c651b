import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, deletedAt, flag, id, tenantRef, updatedAt } from "../columns";

export const RETAKE_POLICIES = ["best", "last"] as const;
export const SCORING_MODES = ["all_or_nothing", "partial"] as const;
export const QUESTION_TYPES = ["single", "multiple", "free_text", "matching"] as const;
export const ATTEMPT_STATUSES = ["in_progress", "submitted"] as const;
export const ACTOR_ROLES = ["student", "curator", "admin"] as const;
export type QuestionType = (typeof QUESTION_TYPES)[number];
export type ScoringMode = (typeof SCORING_MODES)[number];

/**
 * A quiz. It has no status of its own: it is published through a published course that
 * references it (a `quiz_ref` block) or a published exam that uses it as a section.
 */
export const quizzes = sqliteTable(
  "quizzes",
  {
    id: id(),
    tenantId: tenantRef(),
    title: text("title").notNull(),
    description: text("description").notNull().default(""),
    maxAttempts: integer("max_attempts"),
    timeLimitSeconds: integer("time_limit_seconds"),
    passingScore: integer("passing_score"),
    retakePolicy: text("retake_policy", { enum: RETAKE_POLICIES }).notNull().default("best"),
    defaultScoringMode: text("default_scoring_mode", { enum: SCORING_MODES }).notNull().default("all_or_nothing"),
    screenshotProtectionEnabled: flag("screenshot_protection_enabled"),
    /** Random forms (05 section 2): questions drawn per attempt (null: all), question and answer order shuffled. */
    questionsPerAttempt: integer("questions_per_attempt"),
    shuffleQuestions: flag("shuffle_questions"),
    shuffleAnswers: flag("shuffle_answers"),
    createdBy: text("created_by"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    deletedAt: deletedAt(),
  },
  (t) => [index("quizzes_tenant_title").on(t.tenantId, t.deletedAt, t.title)],
);

/** Points are integer hundredths (`points_hundredths` 100 = "1.00"). `correct_text` is a JSON array of strings (free text). */
export const quizQuestions = sqliteTable(
  "quiz_questions",
  {
    id: id(),
    tenantId: tenantRef(),
    quizId: text("quiz_id").notNull(),
    type: text("type", { enum: QUESTION_TYPES }).notNull(),
    prompt: text("prompt").notNull().default(""),
    imageAssetId: text("image_asset_id"),
    position: integer("position").notNull(),
    pointsHundredths: integer("points_hundredths").notNull().default(100),
    scoringMode: text("scoring_mode", { enum: SCORING_MODES }),
    correctText: text("correct_text", { mode: "json" }).$type<string[]>().notNull().default(sql`'[]'`),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    deletedAt: deletedAt(),
  },
  (t) => [index("quiz_questions_tenant_quiz").on(t.tenantId, t.quizId, t.deletedAt, t.position)],
);

/** Choices of single and multiple questions. Replaced answers are soft-deleted, so finished attempts keep naming them. */
export const quizAnswers = sqliteTable(
  "quiz_answers",
  {
    id: id(),
    tenantId: tenantRef(),
    quizId: text("quiz_id").notNull(),
    questionId: text("question_id").notNull(),
    text: text("text").notNull().default(""),
    imageAssetId: text("image_asset_id"),
    isCorrect: flag("is_correct"),
    position: integer("position").notNull(),
    createdAt: createdAt(),
    deletedAt: deletedAt(),
  },
  (t) => [index("quiz_answers_tenant_question").on(t.tenantId, t.questionId, t.deletedAt, t.position)],
);

/**
 * Pairs of matching questions. A row with `left_text` is a pair to match; a row without one is a
 * distractor on the right side only. A pair is right when the chosen right is its own row.
 */
export const quizMatches = sqliteTable(
  "quiz_matches",
  {
    id: id(),
    tenantId: tenantRef(),
    quizId: text("quiz_id").notNull(),
    questionId: text("question_id").notNull(),
    leftText: text("left_text"),
    rightText: text("right_text").notNull(),
    position: integer("position").notNull(),
    createdAt: createdAt(),
    deletedAt: deletedAt(),
  },
  (t) => [index("quiz_matches_tenant_question").on(t.tenantId, t.questionId, t.deletedAt, t.position)],
);

/**
 * A quiz attempt. The row exists from the start; while `in_progress` its answers live in the
 * attempt's Durable Object (AttemptJournal), and D1 receives them, scored, at submit or finalize.
 * Scores are hundredths; `score_pct` is hundredths of a percent. `passed` is null while an answer
 * waits for review. `exam_attempt_id` marks attempts made inside an exam section.
 */
export const quizAttempts = sqliteTable(
  "quiz_attempts",
  {
    id: id(),
    tenantId: tenantRef(),
    quizId: text("quiz_id").notNull(),
    userId: text("user_id").notNull(),
    actorRole: text("actor_role", { enum: ACTOR_ROLES }).notNull(),
    status: text("status", { enum: ATTEMPT_STATUSES }).notNull().default("in_progress"),
    examAttemptId: text("exam_attempt_id"),
    startedAt: integer("started_at").notNull(),
    deadlineAt: integer("deadline_at"),
    submittedAt: integer("submitted_at"),
    autoFinalized: flag("auto_finalized"),
    scoreHundredths: integer("score_hundredths"),
    maxScoreHundredths: integer("max_score_hundredths"),
    scorePctHundredths: integer("score_pct_hundredths"),
    pendingReview: flag("pending_review"),
    passed: integer("passed", { mode: "boolean" }),
    /**
     * The attempt's form, drawn at start (or at the exam section's `go`) when its quiz draws one:
     * the seed, the drawn question ids in order, and whether answers are shuffled (from the seed).
     * Null: the quiz's live questions in quiz order (docs/decisions/quizzes.md, "Random forms").
     */
    formSeed: text("form_seed"),
    formQuestionIds: text("form_question_ids", { mode: "json" }).$type<string[]>(),
    formShuffleAnswers: flag("form_shuffle_answers"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("quiz_attempts_tenant_quiz").on(t.tenantId, t.quizId, t.status, t.submittedAt),
    index("quiz_attempts_tenant_user").on(t.tenantId, t.userId, t.quizId),
    // Curator analytics reads a period's attempts by time (docs/decisions/heavy-reads.md, "Curator analytics").
    index("quiz_attempts_tenant_started").on(t.tenantId, t.startedAt, t.userId, t.examAttemptId),
    index("quiz_attempts_tenant_submitted").on(t.tenantId, t.submittedAt, t.userId, t.examAttemptId),
    uniqueIndex("quiz_attempts_one_in_progress").on(t.quizId, t.userId).where(sql`status = 'in_progress' AND exam_attempt_id IS NULL`),
  ],
);

/**
 * The scored answers of a finished attempt, one per question answered. `awarded_hundredths` and
 * `is_correct` are null while the answer waits for a curator's grade.
 */
export const quizAttemptAnswers = sqliteTable(
  "quiz_attempt_answers",
  {
    id: id(),
    tenantId: tenantRef(),
    attemptId: text("attempt_id").notNull(),
    quizId: text("quiz_id").notNull(),
    /** The attempt's user, so a permanent deletion of the user reaches the answers too. */
    userId: text("user_id").notNull(),
    questionId: text("question_id").notNull(),
    payload: text("payload", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    clientSeq: integer("client_seq"),
    awardedHundredths: integer("awarded_hundredths"),
    isCorrect: integer("is_correct", { mode: "boolean" }),
    feedback: text("feedback"),
    gradedBy: text("graded_by"),
    gradedAt: integer("graded_at"),
    savedAt: integer("saved_at").notNull(),
  },
  (t) => [
    uniqueIndex("quiz_attempt_answers_attempt_question").on(t.attemptId, t.questionId),
    // A person's answers in pages (the personal-data export, docs/decisions/data-export.md, "Sources from the registry").
    index("quiz_attempt_answers_tenant_user").on(t.tenantId, t.userId),
    index("quiz_attempt_answers_tenant_quiz").on(t.tenantId, t.quizId, t.questionId),
  ],
);
