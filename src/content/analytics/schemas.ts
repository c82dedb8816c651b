import { z } from "@hono/zod-openapi";
import { PercentString } from "../../core/db/decimal";
import { uuidField } from "../../core/http/fields";

/** Shapes of GET /analytics/curators. */

const queryTime = (description: string) => z.string().optional().openapi({ format: "date-time", description });
const queryUuid = (description: string) => uuidField.optional().openapi({ description: `${description}; a malformed uuid answers 400 \`invalid_params\`, an unknown one matches nothing` });

export const CuratorAnalyticsQuery = z.object({
  from: queryTime("RFC 3339 with a zone, inclusive (400 `invalid_from`); default the start of the current month in the school's time zone"),
  to: queryTime("RFC 3339 with a zone, inclusive (400 `invalid_to`); default now; from later than to is 400 `invalid_date_range`"),
  curator_id: queryUuid("Admins only: one curator's row (an id that is no active curator of the school gives an empty list); a curator's own call ignores it"),
  group_id: queryUuid("Only students who are members of this group count (scope and figures)"),
  course_id: queryUuid("Only activity on this course's content counts; exams become not applicable"),
  module_id: queryUuid("Only activity on this module's content counts; exams become not applicable"),
  lesson_id: queryUuid("Only activity on this lesson's content counts; exams become not applicable"),
});

export type CuratorAnalyticsQuery = z.infer<typeof CuratorAnalyticsQuery>;

const Measure = z
  .object({
    students: z.number().int(),
    rate_pct: PercentString.openapi({ description: "students as a percentage of the current count of assigned active students; null when that count is 0" }),
  })
  .openapi("CuratorMeasure");

const Figures = {
  students: z.number().int().openapi({ description: "Assigned active students now: individual assignments plus members of the curator's live groups, each once" }),
  active: Measure.openapi({ description: "Students with any learning activity in [from, to]: a block completed, a quiz or exam attempt started or submitted, a submission handed in" }),
  assignments_on_time: Measure.openapi({ description: "Students who handed in at least one submission in [from, to], none of them after their effective closing date" }),
  quizzes_completed: Measure.openapi({ description: "Students with a quiz attempt submitted in [from, to] (attempts inside exams not counted)" }),
  exams_completed: Measure.nullable().openapi({ description: "Students with an exam attempt submitted in [from, to]; null when exam_applicable is false" }),
};

export const CuratorRow = z
  .object({ curator_id: z.string().openapi({ format: "uuid" }), first_name: z.string(), last_name: z.string(), email: z.string(), ...Figures })
  .openapi("CuratorAnalyticsRow");

export const CuratorAnalytics = z
  .object({
    from: z.string().openapi({ format: "date-time" }),
    to: z.string().openapi({ format: "date-time", description: "The period's end; without `to` in the query, the instant the figures were computed" }),
    computed_at: z.string().openapi({
      format: "date-time",
      description: "When the figures were computed: now for a live answer, up to ten minutes ago for a snapshot (recomputed in the background once older than a minute)",
    }),
    exam_applicable: z.boolean().openapi({ description: "False with a course, module or lesson filter" }),
    summary: z
      .object({ curators: z.number().int().openapi({ description: "Rows listed" }), ...Figures })
      .openapi({ description: "Over the distinct students of the listed curators (a student shared by two curators counts once)" }),
    curators: z.array(CuratorRow).openapi({ description: "By last name, first name, id" }),
  })
  .openapi("CuratorAnalytics");

export type CuratorAnalytics = z.infer<typeof CuratorAnalytics>;
