import { z } from "@hono/zod-openapi";
import { DecimalString, PercentString } from "../../core/db/decimal";
import { plainText, uuidField } from "../../core/http/fields";
import { uuidParam } from "../../core/http/pagination";
import { reorderBody } from "../../core/http/reorder";
import { richTextField } from "../../core/lib/sanitize";
import { EXAM_STATUSES, RETAKE_POLICIES } from "../../db/schema";

const uuid = z.string().openapi({ format: "uuid" });
const timestamp = z.string().openapi({ format: "date-time" });

export const EXAM_LIMITS = {
  title: { min: 1, max: 255 },
  description: 10_000,
  timeLimitSeconds: { min: 1, max: 86_400 },
  passingScore: { min: 0, max: 100 },
  maxAttempts: { min: 1, max: 1000 },
  weight: { min: 1, max: 1000 },
  sections: 100,
} as const;

const int = (bounds: { min: number; max: number }, description: string) => z.number().int().min(bounds.min).max(bounds.max).openapi({ description });

const fields = {
  title: plainText(EXAM_LIMITS.title),
  description: richTextField({ max: EXAM_LIMITS.description }).openapi({ description: "Rich text, at most 10000 characters as sent; stored sanitized." }),
  time_limit_seconds: int(EXAM_LIMITS.timeLimitSeconds, "The whole exam's time, 1-86400 seconds."),
  passing_score: int(EXAM_LIMITS.passingScore, "Percent 0-100 (0 allowed)."),
  max_attempts: int(EXAM_LIMITS.maxAttempts, "1-1000."),
  retake_policy: z.enum(RETAKE_POLICIES),
  screenshot_protection_enabled: z.boolean(),
};

/**
 * `weight` is checked by the service, so every wrong value (0, 1001, 1.5, "x", null) answers the
 * contract's own identifier, 400 `invalid_weight`, rather than the body's.
 */
const weight = z.unknown().openapi({ type: "integer", minimum: 1, maximum: 1000, description: "1-1000; anything else is 400 `invalid_weight`." });
const sectionTitle = plainText(EXAM_LIMITS.title);

// ---------------------------------------------------------------------------------------------
// Requests

export const ListExamsQuery = z.object({
  // Checked by the service: an unknown value has its own identifier (`invalid_status`).
  status: z
    .string()
    .optional()
    .openapi({ type: "string", enum: [...EXAM_STATUSES], description: "Staff only (students always get published exams): `published` or `draft`; anything else is 400 `invalid_status`" }),
});

export const CreateExamBody = z
  .object({
    title: fields.title,
    description: fields.description.optional(),
    time_limit_seconds: fields.time_limit_seconds,
    // On create, null is the same as leaving the field out.
    passing_score: fields.passing_score.nullable().optional().openapi({ description: "Percent 0-100 (0 allowed); unset: any finished attempt passes." }),
    max_attempts: fields.max_attempts.nullable().optional().openapi({ description: "1-1000; unset: unlimited." }),
    retake_policy: fields.retake_policy.optional().openapi({ description: "Default `best`." }),
    screenshot_protection_enabled: fields.screenshot_protection_enabled.optional().openapi({ description: "Default false." }),
  })
  .openapi("CreateExamRequest");

export const UpdateExamBody = z
  .object({
    title: fields.title.optional(),
    description: fields.description.optional(),
    time_limit_seconds: fields.time_limit_seconds.optional(),
    passing_score: fields.passing_score.optional(),
    clear_passing_score: z.boolean().optional().openapi({ description: "true: no passing score (any finished attempt passes)" }),
    max_attempts: fields.max_attempts.optional(),
    clear_max_attempts: z.boolean().optional().openapi({ description: "true: unlimited attempts" }),
    retake_policy: fields.retake_policy.optional(),
    screenshot_protection_enabled: fields.screenshot_protection_enabled.optional(),
  })
  .refine((body) => !(body.clear_passing_score === true && body.passing_score !== undefined), {
    message: "send passing_score or clear_passing_score, not both",
    path: ["clear_passing_score"],
  })
  .refine((body) => !(body.clear_max_attempts === true && body.max_attempts !== undefined), {
    message: "send max_attempts or clear_max_attempts, not both",
    path: ["clear_max_attempts"],
  })
  .openapi("UpdateExamRequest", {
    description:
      "Fields left out stay as they are. On a published exam, time_limit_seconds, passing_score, max_attempts and retake_policy (and the clear_* flags) " +
      "may only repeat the current value (409 `exam_published_immutable`); title, description and screenshot_protection_enabled are always editable.",
  });

export type UpdateExamBody = z.infer<typeof UpdateExamBody>;

export const SectionParams = z.object({ id: uuidParam, section_id: uuidParam });

export const CreateSectionBody = z
  .object({
    quiz_id: uuidField.openapi({ description: "A live quiz of the school" }),
    title: sectionTitle,
    weight,
  })
  .openapi("CreateExamSectionRequest");

export const UpdateSectionBody = z
  .object({
    quiz_id: uuidField.optional().openapi({ description: "A live quiz of the school" }),
    title: sectionTitle.optional(),
    weight: weight.optional(),
  })
  .openapi("UpdateExamSectionRequest", {
    description: "Fields left out stay as they are. On a published exam only the title may change (409 `exam_published_immutable`).",
  });

export const ReorderSectionsBody = reorderBody("section_ids", { max: EXAM_LIMITS.sections }).openapi("ReorderExamSectionsRequest");

// ---------------------------------------------------------------------------------------------
// Responses

const examFields = {
  id: uuid,
  tenant_id: uuid,
  title: z.string(),
  description: z.string(),
  time_limit_seconds: z.number().int(),
  passing_score: z.number().int().nullable(),
  max_attempts: z.number().int().nullable(),
  retake_policy: z.enum(RETAKE_POLICIES),
  screenshot_protection_enabled: z.boolean(),
  status: z.enum(EXAM_STATUSES),
  created_at: timestamp,
  updated_at: timestamp,
};

export const SectionObject = z
  .object({ id: uuid, quiz_id: uuid, title: z.string(), position: z.number().int(), weight: z.number().int() })
  .openapi("ExamSection");

const SectionRead = SectionObject.extend({ question_count: z.number().int().openapi({ description: "Live questions of the section's quiz" }) }).openapi("ExamSectionRead");

const SectionFigures = z
  .object({
    section_id: uuid,
    title: z.string(),
    weight: z.number().int(),
    score: DecimalString.openapi({ description: "weight × the section's score fraction" }),
    max_score: DecimalString.openapi({ description: "The weight" }),
    score_pct: DecimalString,
  })
  .openapi("ExamSectionScore");

const ExamResult = z
  .object({
    attempt_id: uuid,
    score: DecimalString.nullable(),
    max_score: DecimalString.nullable(),
    score_pct: PercentString,
    passed: z.boolean().nullable(),
    submitted_at: timestamp.nullable(),
    sections: z.array(SectionFigures).openapi({ description: "The exam's live sections in order; an unvisited section scores 0" }),
  })
  .openapi("ExamResult");

export const ExamObject = z
  .object({
    ...examFields,
    sections: z.array(SectionRead).openapi({ description: "Live sections in position order" }),
    result: ExamResult.nullable().optional().openapi({ description: "Students only: the finished attempt that counts by retake_policy (best or last), null without one" }),
    in_progress_attempt: z
      .object({ attempt_id: uuid, started_at: timestamp, deadline_at: timestamp })
      .nullable()
      .optional()
      .openapi({ description: "Students only" }),
    attempts_count: z.number().int().optional().openapi({ description: "Students only: finished attempts" }),
    effective_time_limit_seconds: z.number().int().optional().openapi({ description: "Students only: the caller's time limit with their accommodation" }),
    effective_max_attempts: z.number().int().nullable().optional().openapi({ description: "Students only: the caller's attempts with their accommodation" }),
    auth_has_access: z.boolean().optional().openapi({ description: "Students only: true (every student of the school may take a published exam)" }),
    has_access_untill: timestamp.nullable().optional().openapi({ description: "Students only: always null" }),
  })
  .openapi("Exam");

export const ExamListItem = z
  .object({
    id: uuid,
    title: z.string(),
    description: z.string(),
    status: z.enum(EXAM_STATUSES),
    time_limit_seconds: z.number().int(),
    passing_score: z.number().int().nullable(),
    max_attempts: z.number().int().nullable(),
    retake_policy: z.enum(RETAKE_POLICIES),
    screenshot_protection_enabled: z.boolean(),
    section_count: z.number().int().openapi({ description: "Live sections" }),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .openapi("ExamListItem");

export const ExamList = z.array(ExamListItem).openapi("ExamList");

export const ExamPublished = z.object({ published: z.literal(true) }).openapi("ExamPublished");
export const ExamUnpublished = z.object({ unpublished: z.literal(true) }).openapi("ExamUnpublished");
export const SectionsReordered = z.object({ reordered: z.number().int() }).openapi("ExamSectionsReordered");
