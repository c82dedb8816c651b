import { effectiveMaxAttempts, effectiveTimeLimit, profileOf } from "../accommodations/effective";
import { formatHundredths, roundDiv } from "../../core/db/decimal";
import type { SchoolCtx } from "../../core/http/context";
import { iso } from "../../core/lib/clock";
import type { CourseStatus, quizzes } from "../../db/schema";
import { isStaff } from "../common/access";
import type { QuestionView } from "./question-present";
import type { QuizDetailRow, QuizListRow, QuizRow } from "./quiz-read";

type Presenter = Pick<SchoolCtx, "actor">;

export interface CourseRefView {
  course_id: string;
  course_title: string;
  course_status: CourseStatus;
  module_id: string;
  module_title: string;
  lesson_id: string;
  lesson_title: string;
}

export interface ExamRefView {
  exam_id: string;
  exam_title: string;
  exam_status: string;
  section_id: string;
  section_title: string;
}

/** The quiz fields every read has; a student does not see `default_scoring_mode`. */
function presentQuizFields(ctx: Presenter, row: QuizRow) {
  return {
    id: row.id,
    tenant_id: row.tenant_id,
    title: row.title,
    description: row.description,
    max_attempts: row.max_attempts,
    time_limit_seconds: row.time_limit_seconds,
    passing_score: row.passing_score,
    retake_policy: row.retake_policy,
    ...(isStaff(ctx.actor) ? { default_scoring_mode: row.default_scoring_mode } : {}),
    screenshot_protection_enabled: row.screenshot_protection_enabled === 1,
    questions_per_attempt: row.questions_per_attempt,
    shuffle_questions: row.shuffle_questions === 1,
    shuffle_answers: row.shuffle_answers === 1,
    published_via_course: row.published_via_course === 1,
    published_via_exam: row.published_via_exam === 1,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

/** A student's read carries their own limits (docs/decisions/accommodations.md, "Student views"); the profile itself stays hidden. */
function effectiveLimitsFor(row: QuizDetailRow) {
  if (!("acc_multiplier" in row)) return {};
  const profile = profileOf(row, true);
  return {
    effective_time_limit_seconds: effectiveTimeLimit(row.time_limit_seconds, profile),
    effective_max_attempts: effectiveMaxAttempts(row.max_attempts, profile),
  };
}

/** The quiz detail (GET, PATCH, reference-block embeds), questions in the caller's view. */
export function presentQuizDetail(ctx: Presenter, row: QuizDetailRow, questions: readonly QuestionView[]) {
  return {
    ...presentQuizFields(ctx, row),
    ...effectiveLimitsFor(row),
    questions: [...questions],
    course_refs: JSON.parse(row.course_refs) as CourseRefView[],
    exam_refs: JSON.parse(row.exam_refs) as ExamRefView[],
  };
}

export type QuizDetailView = ReturnType<typeof presentQuizDetail>;

export function presentQuizListItem(ctx: Presenter, row: QuizListRow) {
  const [attempts, settled, pctSum, pending] = JSON.parse(row.attempt_stats) as [number, number, number, number];
  return {
    ...presentQuizFields(ctx, row),
    question_count: row.question_count,
    attempts_count: attempts,
    // The exact mean of hundredths of a percent, rounded half-up once.
    avg_score_pct: settled === 0 ? null : formatHundredths(roundDiv(pctSum, settled)),
    pending_reviews_count: pending,
  };
}

/** A quiz just created: referenced by nothing, without questions. */
export function presentNewQuiz(ctx: Presenter, row: typeof quizzes.$inferSelect) {
  const fields: QuizDetailRow = {
    id: row.id,
    tenant_id: row.tenantId,
    title: row.title,
    description: row.description,
    max_attempts: row.maxAttempts,
    time_limit_seconds: row.timeLimitSeconds,
    passing_score: row.passingScore,
    retake_policy: row.retakePolicy,
    default_scoring_mode: row.defaultScoringMode,
    screenshot_protection_enabled: row.screenshotProtectionEnabled ? 1 : 0,
    questions_per_attempt: row.questionsPerAttempt,
    shuffle_questions: row.shuffleQuestions ? 1 : 0,
    shuffle_answers: row.shuffleAnswers ? 1 : 0,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
    published_via_course: 0,
    published_via_exam: 0,
    course_refs: "[]",
    exam_refs: "[]",
  };
  return presentQuizDetail(ctx, fields, []);
}
