import { z } from "@hono/zod-openapi";
import { DecimalString, PercentString } from "../../core/db/decimal";
import { uuidField } from "../../core/http/fields";
import { uuidParam } from "../../core/http/pagination";
import { ACTOR_ROLES, ATTEMPT_STATUSES } from "../../db/schema";
import { QuizDetail } from "../quizzes/schemas";

export { SaveAnswersBody as SaveSectionAnswersBody } from "../attempts/schemas";

// ---------------------------------------------------------------------------------------------
// Requests

export const StartExamAttemptBody = z.object({ exam_id: uuidField.openapi({ description: "The published exam to take" }) }).openapi("StartExamAttemptRequest");

export const ActiveExamAttemptQuery = z.object({ exam_id: uuidField.openapi({ description: "The exam whose attempt in progress to find" }) });

export const GoBody = z
  .object({
    section_index: z
      .number()
      .int()
      .min(-Number.MAX_SAFE_INTEGER)
      .max(Number.MAX_SAFE_INTEGER)
      .openapi({ description: "0-based index of the section among the exam's live sections in position order", example: 0 }),
  })
  .openapi("GoToExamSectionRequest");

export const SectionParams = z.object({
  id: uuidParam,
  n: z.string().openapi({ description: "0-based index of the section (a section opened with go)", example: "0" }),
});

// ---------------------------------------------------------------------------------------------
// Responses

const SectionAttempt = z
  .object({
    id: z.string(),
    exam_section_id: z.string(),
    quiz_attempt_id: z.string(),
    position: z.number().int().openapi({ description: "The section's position when it was opened" }),
  })
  .openapi("ExamSectionAttempt");

export const SectionResult = z
  .object({
    section_id: z.string(),
    title: z.string(),
    weight: z.number().int(),
    score: DecimalString.openapi({ description: "weight × the section's score fraction; 0 for a section never opened" }),
    max_score: DecimalString.openapi({ description: "The weight" }),
    score_pct: DecimalString.openapi({ description: "The section quiz attempt's score / max × 100, half-up; 0 for a section never opened or worth 0 points" }),
  })
  .openapi("ExamAttemptSectionScore");

export const ExamAttempt = z
  .object({
    id: z.string(),
    exam_id: z.string(),
    user_id: z.string(),
    status: z.enum(ATTEMPT_STATUSES),
    actor_role: z.enum(ACTOR_ROLES),
    started_at: z.string(),
    deadline_at: z.string(),
    time_limit_seconds: z.number().int().openapi({ description: "The attempt's own limit (accommodation and extensions included): deadline_at − started_at" }),
    submitted_at: z.string().nullable(),
    auto_finalized: z.boolean(),
    section_attempts: z.array(SectionAttempt).openapi({ description: "The sections opened with go, each with its quiz attempt" }),
    final_score: DecimalString.nullable().openapi({ description: "Σ weight × section % / 100; null while in progress" }),
    final_max_score: DecimalString.nullable().openapi({ description: "Σ weights; null while in progress" }),
    final_score_pct: PercentString.openapi({ description: "final_score / final_max_score × 100; null while in progress" }),
    passed: z.boolean().nullable().openapi({ description: "final_score_pct ≥ passing_score (no passing score passes); null while in progress" }),
    sections: z.array(SectionResult).optional().openapi({ description: "Once finished: every live section of the exam with its result" }),
    server_now: z.string(),
    remaining_seconds: z.number().int().openapi({ description: "Whole seconds to deadline_at by the server's clock; 0 once finished or past the deadline" }),
  })
  .openapi("ExamAttempt");

export const GoResult = z
  .object({
    section: z.object({ id: z.string(), title: z.string(), position: z.number().int() }),
    quiz: QuizDetail.openapi({ description: "The section's quiz in the student view, matching rights with fresh tokens" }),
    deadline_at: z.string(),
    server_now: z.string(),
    remaining_seconds: z.number().int(),
  })
  .openapi("ExamSectionGo");

export const SectionSaveResult = z
  .object({
    saved: z.number().int().openapi({ description: "Items kept" }),
    ignored: z.number().int().openapi({ description: "Items ignored because a save with a higher or equal client_seq was kept" }),
    section_index: z.number().int(),
    server_now: z.string(),
    deadline_at: z.string(),
    remaining_seconds: z.number().int(),
  })
  .openapi("SaveExamSectionAnswersResult");
