import { z } from "@hono/zod-openapi";
import { PercentString } from "../../core/db/decimal";
import { queryFlag } from "../../core/http/fields";

export const ExamAnalyticsQuery = z.object({
  include_admin_attempts: queryFlag("`true` adds the attempts staff made (actor_role curator or admin); default `false`, students' attempts only"),
});

export type ExamAnalyticsQuery = z.infer<typeof ExamAnalyticsQuery>;

const SectionAnalytics = z
  .object({
    section_id: z.string().openapi({ format: "uuid" }),
    title: z.string(),
    weight: z.number().int(),
    avg_score_pct: PercentString.openapi({
      description: "Mean section percent over the submitted attempts counted; a section an attempt never opened counts 0. Null without submitted attempts",
    }),
  })
  .openapi("ExamSectionAnalytics");

const ScoreBucket = z
  .object({
    bucket: z.number().int().openapi({ description: "0 = [0 %, 10 %), …, 9 = [90 %, 100 %]" }),
    count: z.number().int(),
  })
  .openapi("ExamScoreBucket");

export const ExamAnalytics = z
  .object({
    exam_id: z.string().openapi({ format: "uuid" }),
    attempt_count: z.number().int().openapi({ description: "Attempts counted, in progress and submitted" }),
    submitted_count: z.number().int(),
    passed_count: z.number().int(),
    pass_rate: PercentString.openapi({ description: "passed / submitted; null without a passing score or without submitted attempts" }),
    avg_score_pct: PercentString,
    max_score_pct: PercentString,
    min_score_pct: PercentString,
    per_section: z.array(SectionAnalytics).openapi({ description: "Live sections in position order" }),
    score_distribution: z.array(ScoreBucket).openapi({ description: "Always 10 buckets of the submitted attempts' final percent" }),
  })
  .openapi("ExamAnalytics");

export type ExamAnalytics = z.infer<typeof ExamAnalytics>;
