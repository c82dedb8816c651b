import { z } from "@hono/zod-openapi";
import { PercentString } from "../../core/db/decimal";
import { queryFlag } from "../../core/http/fields";

export const QuizAnalyticsQuery = z.object({
  include_admin_attempts: queryFlag(
    "`true` adds the attempts staff made (actor_role curator or admin); default `false`, students' attempts only. Anything but `true` / `false`: 400 `invalid_include_admin_attempts`",
  ),
});

export type QuizAnalyticsQuery = z.infer<typeof QuizAnalyticsQuery>;

const QuestionAnalytics = z
  .object({
    question_id: z.string().openapi({ format: "uuid" }),
    answered: z.number().int().openapi({ description: "Answers to the question in the settled attempts counted (a question left blank has none)" }),
    correct: z.number().int().openapi({ description: "Those answers that earned the question's full points" }),
    success_rate: PercentString.openapi({ description: "correct / answered; null when nobody answered" }),
  })
  .openapi("QuizQuestionAnalytics");

const ScoreBucket = z
  .object({
    bucket: z.number().int().openapi({ description: "0 = [0 %, 10 %), …, 9 = [90 %, 100 %]" }),
    count: z.number().int(),
  })
  .openapi("QuizScoreBucket");

export const QuizAnalytics = z
  .object({
    quiz_id: z.string().openapi({ format: "uuid" }),
    attempt_count: z.number().int().openapi({ description: "Attempts counted, in progress and submitted" }),
    submitted_count: z.number().int().openapi({ description: "Submitted attempts, those waiting for a review included" }),
    completion_rate: PercentString.openapi({ description: "submitted / attempts; null without attempts" }),
    avg_score_pct: PercentString.openapi({ description: "Mean score percent of the settled attempts (submitted, nothing waiting for review); null without any" }),
    max_score_pct: PercentString,
    min_score_pct: PercentString,
    pass_rate: PercentString.openapi({ description: "passed / settled attempts; null without a passing score or without settled attempts" }),
    per_question: z.array(QuestionAnalytics).openapi({ description: "Live questions in position order" }),
    score_distribution: z.array(ScoreBucket).openapi({ description: "Always 10 buckets of the settled attempts' score percent" }),
  })
  .openapi("QuizAnalytics");

export type QuizAnalytics = z.infer<typeof QuizAnalytics>;
