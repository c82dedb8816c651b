import { z } from "@hono/zod-openapi";
import { decimalField, DecimalString, PercentString } from "../../core/db/decimal";
import { plainText, queryFlag, uuidField } from "../../core/http/fields";
import { pageQuery, uuidParam } from "../../core/http/pagination";

export const MAX_GRADES = 200;

// ---------------------------------------------------------------------------------------------
// Requests

export const IdParams = z.object({ id: uuidParam });

export const ListQuizAttemptsQuery = z.object({
  ...pageQuery({ maxLimit: 100, defaultLimit: 20 }),
  student_id: uuidField.optional().openapi({ description: "Only this student's attempts" }),
  pending_review: queryFlag("`true`: only attempts with answers waiting for a grade; `false`: only settled ones"),
  include_admin_attempts: queryFlag("`true` adds the attempts staff made (actor_role curator or admin); default `false`, students' attempts only"),
});

export type ListQuizAttemptsQuery = z.infer<typeof ListQuizAttemptsQuery>;

const Grade = z
  .strictObject({
    question_id: uuidField.openapi({ description: "A question of the attempt's quiz" }),
    // The bounds depend on the question, so the verb checks them (400 points_out_of_range).
    awarded_points: decimalField().openapi({ description: "From 0 to the question's points, at most two decimals", example: "1.50" }),
    feedback: plainText({ max: 2000, multiline: true })
      .nullable()
      .optional()
      .openapi({ description: "Shown to the student with the answer; left out keeps the earlier feedback, null or empty clears it" }),
  })
  .openapi("QuizAnswerGrade");

export const GradeBody = z
  .object({
    grades: z
      .array(Grade)
      .min(1)
      .max(MAX_GRADES)
      .refine((grades) => new Set(grades.map((grade) => grade.question_id)).size === grades.length, "each question_id may appear once")
      .openapi({ description: `1 to ${MAX_GRADES} grades, one per question` }),
  })
  .openapi("GradeAttemptRequest");

export type GradeBody = z.infer<typeof GradeBody>;

// ---------------------------------------------------------------------------------------------
// Responses

export const QuizAttemptRow = z
  .object({
    attempt_id: z.string(),
    student_id: z.string(),
    email: z.string(),
    first_name: z.string(),
    last_name: z.string(),
    actor_role: z.enum(["student", "curator", "admin"]),
    score: DecimalString.nullable(),
    max_score: DecimalString.nullable(),
    score_pct: PercentString,
    passed: z.boolean().nullable().openapi({ description: "Null while an answer waits for a grade" }),
    pending_review: z.boolean(),
    submitted_at: z.string().nullable(),
    auto_finalized: z.boolean(),
  })
  .openapi("QuizAttemptRow");

export type QuizAttemptRow = z.infer<typeof QuizAttemptRow>;

export const QuizAttemptList = z
  .object({
    attempts: z.array(QuizAttemptRow),
    total: z.number().int(),
    page: z.number().int(),
    limit: z.number().int(),
  })
  .openapi("QuizAttemptList");
