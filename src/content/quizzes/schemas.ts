import { z } from "@hono/zod-openapi";
import { PercentString } from "../../core/db/decimal";
import { plainText, searchTerm } from "../../core/http/fields";
import { pageQuery } from "../../core/http/pagination";
import { richTextField } from "../../core/lib/sanitize";
import { COURSE_STATUSES, RETAKE_POLICIES, SCORING_MODES } from "../../db/schema";
import { QuestionObject, StudentQuestionObject } from "./question-schemas";

const uuid = z.string().openapi({ format: "uuid" });
const timestamp = z.string().openapi({ format: "date-time" });

export const QUIZ_LIMITS = {
  title: { min: 2, max: 255 },
  description: 10_000,
  maxAttempts: { min: 1, max: 1000 },
  timeLimitSeconds: { min: 10, max: 86_400 },
  passingScore: { min: 1, max: 100 },
  questionsPerAttempt: { min: 1, max: 500 },
} as const;

const int = (bounds: { min: number; max: number }, description: string) => z.number().int().min(bounds.min).max(bounds.max).openapi({ description });

const fields = {
  title: plainText(QUIZ_LIMITS.title),
  description: richTextField({ max: QUIZ_LIMITS.description }).openapi({ description: "Rich text, at most 10000 characters as sent; stored sanitized." }),
  max_attempts: int(QUIZ_LIMITS.maxAttempts, "1-1000; unset: unlimited."),
  time_limit_seconds: int(QUIZ_LIMITS.timeLimitSeconds, "10-86400 seconds; unset: untimed."),
  passing_score: int(QUIZ_LIMITS.passingScore, "Percent 1-100; unset: any finished attempt passes."),
  retake_policy: z.enum(RETAKE_POLICIES),
  default_scoring_mode: z.enum(SCORING_MODES),
  screenshot_protection_enabled: z.boolean(),
  questions_per_attempt: int(QUIZ_LIMITS.questionsPerAttempt, "1-500 questions drawn per attempt; null: all live questions.").nullable(),
  shuffle_questions: z.boolean(),
  shuffle_answers: z.boolean(),
};

// ---------------------------------------------------------------------------------------------
// Requests

export const CreateQuizBody = z
  .object({
    title: fields.title,
    description: fields.description.optional(),
    // On create, null is the same as leaving the field out: no limit.
    max_attempts: fields.max_attempts.nullable().optional(),
    time_limit_seconds: fields.time_limit_seconds.nullable().optional(),
    passing_score: fields.passing_score.nullable().optional(),
    retake_policy: fields.retake_policy.optional().openapi({ description: "Default `best`." }),
    default_scoring_mode: fields.default_scoring_mode.optional().openapi({ description: "Default `all_or_nothing`." }),
    screenshot_protection_enabled: fields.screenshot_protection_enabled.optional().openapi({ description: "Default false." }),
    questions_per_attempt: fields.questions_per_attempt.optional().openapi({ description: "Default null (all live questions)." }),
    shuffle_questions: fields.shuffle_questions.optional().openapi({ description: "Default false." }),
    shuffle_answers: fields.shuffle_answers.optional().openapi({ description: "Default false." }),
  })
  .openapi("CreateQuizRequest");

export const UpdateQuizBody = z
  .object({
    title: fields.title.optional(),
    description: fields.description.optional(),
    max_attempts: fields.max_attempts.optional(),
    time_limit_seconds: fields.time_limit_seconds.optional(),
    passing_score: fields.passing_score.optional(),
    retake_policy: fields.retake_policy.optional(),
    default_scoring_mode: fields.default_scoring_mode.optional(),
    screenshot_protection_enabled: fields.screenshot_protection_enabled.optional(),
    questions_per_attempt: fields.questions_per_attempt
      .optional()
      .openapi({ description: "Above the quiz's live question count: 400 `questions_per_attempt_too_large`; null draws all questions again." }),
    shuffle_questions: fields.shuffle_questions.optional(),
    shuffle_answers: fields.shuffle_answers.optional(),
  })
  .openapi("UpdateQuizRequest", {
    description:
      "Fields left out stay as they are. A limit once set cannot be cleared (null is refused): the contract leaves clearing out of v1. `questions_per_attempt` takes null (all questions).",
  });

export const QUIZ_LIST_STATUSES = ["all", "published", "draft"] as const;

export const ListQuizzesQuery = z.object({
  ...pageQuery({ maxLimit: 100, defaultLimit: 20 }),
  q: searchTerm(255).openapi({ description: "Search in the title; `%` and `_` match themselves" }),
  status: z
    .enum(QUIZ_LIST_STATUSES)
    .default("all")
    .openapi({ description: "`published`: used by a published course (or exam); `draft`: by neither; `all` (default)" }),
  course_id: z
    .string()
    .optional()
    .openapi({ type: "string", format: "uuid", description: "Only quizzes a live lesson of this course references (students: a lesson that gives them the quiz); not a UUID: 400 `invalid_course_id`" }),
});

// ---------------------------------------------------------------------------------------------
// Responses

const CourseRef = z
  .object({
    course_id: uuid,
    course_title: z.string(),
    course_status: z.enum(COURSE_STATUSES),
    module_id: uuid,
    module_title: z.string(),
    lesson_id: uuid,
    lesson_title: z.string(),
  })
  .openapi("QuizCourseRef");

const ExamRef = z
  .object({ exam_id: uuid, exam_title: z.string(), exam_status: z.string(), section_id: uuid, section_title: z.string() })
  .openapi("QuizExamRef");

const quizFields = {
  id: uuid,
  tenant_id: uuid,
  title: z.string(),
  description: z.string(),
  max_attempts: z.number().int().nullable(),
  time_limit_seconds: z.number().int().nullable(),
  passing_score: z.number().int().nullable(),
  retake_policy: z.enum(RETAKE_POLICIES),
  default_scoring_mode: z.enum(SCORING_MODES).optional().openapi({ description: "Staff only" }),
  screenshot_protection_enabled: z.boolean(),
  questions_per_attempt: z.number().int().nullable().openapi({ description: "Questions drawn per attempt; null: all" }),
  shuffle_questions: z.boolean(),
  shuffle_answers: z.boolean(),
  published_via_course: z.boolean().openapi({ description: "A live lesson of a published course references the quiz" }),
  published_via_exam: z.boolean().openapi({ description: "A published exam uses the quiz as a section" }),
  created_at: timestamp,
  updated_at: timestamp,
};

export const QuizDetail = z
  .object({
    ...quizFields,
    questions: z.array(z.union([QuestionObject, StudentQuestionObject])).openapi({ description: "In position order; students get the safe view (StudentQuestion)" }),
    course_refs: z.array(CourseRef).openapi({ description: "One per live quiz_ref block, by course title, module and lesson order; students: only lessons that give them the quiz" }),
    exam_refs: z.array(ExamRef).openapi({ description: "Students: published exams only" }),
    effective_time_limit_seconds: z.number().int().nullable().optional().openapi({ description: "Students only: the caller's limit with their accommodation" }),
    effective_max_attempts: z.number().int().nullable().optional().openapi({ description: "Students only: the caller's attempts with their accommodation" }),
  })
  .openapi("Quiz");

export const QuizListItem = z
  .object({
    ...quizFields,
    question_count: z.number().int().openapi({ description: "Live questions" }),
    attempts_count: z.number().int().openapi({ description: "Attempts outside exam sections, any status (students: their own; restricted curators: their students')" }),
    avg_score_pct: PercentString.openapi({ description: "Mean score percent of the submitted attempts not waiting for review, outside exam sections; null without any" }),
    pending_reviews_count: z.number().int().openapi({ description: "Submitted attempts waiting for a curator's review" }),
  })
  .openapi("QuizListItem");

export const QuizList = z
  .object({ quizzes: z.array(QuizListItem), total: z.number().int(), page: z.number().int(), limit: z.number().int() })
  .openapi("QuizList");
