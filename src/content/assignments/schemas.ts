import { z } from "@hono/zod-openapi";
import { decimalField, DecimalString, PercentString } from "../../core/db/decimal";
import { plainText, searchTerm, uuidField } from "../../core/http/fields";
import { pageQuery, uuidParam } from "../../core/http/pagination";
import { richTextField } from "../../core/lib/sanitize";
import { SUBMISSION_STATUSES } from "../../db/schema";

const uuid = z.string().openapi({ format: "uuid" });
const timestamp = z.string().openapi({ format: "date-time" });

export const ASSIGNMENT_LIMITS = {
  title: { min: 1, max: 255 },
  instructions: 20_000,
  maxScore: 100_000,
  maxAttempts: { min: 1, max: 1000 },
  groupTargets: 500,
  page: { maxLimit: 100, defaultLimit: 20 },
} as const;

const fields = {
  title: plainText(ASSIGNMENT_LIMITS.title),
  instructions: richTextField({ max: ASSIGNMENT_LIMITS.instructions }).openapi({ description: "Rich text, at most 20000 characters as sent; stored sanitized." }),
  max_score: decimalField({ min: 0, exclusiveMin: true, max: ASSIGNMENT_LIMITS.maxScore }),
  max_attempts: z.number().int().min(ASSIGNMENT_LIMITS.maxAttempts.min).max(ASSIGNMENT_LIMITS.maxAttempts.max),
  screenshot_protection_enabled: z.boolean(),
};

// ---------------------------------------------------------------------------------------------
// Requests

export const ListAssignmentsQuery = z.object({
  q: searchTerm().openapi({ description: "Title contains (case-insensitive)" }),
  ...pageQuery(ASSIGNMENT_LIMITS.page),
});

export const CreateAssignmentBody = z
  .object({
    title: fields.title,
    instructions: fields.instructions.optional().openapi({ description: "Default empty." }),
    max_score: fields.max_score.optional().openapi({ type: "string", example: "100.00", description: 'A decimal > 0 and ≤ 100000 with at most two decimals. Default "100.00".' }),
    max_attempts: fields.max_attempts.nullable().optional().openapi({ description: "1-1000; null or left out: unlimited." }),
    screenshot_protection_enabled: fields.screenshot_protection_enabled.optional().openapi({ description: "Default false." }),
  })
  .openapi("CreateAssignmentRequest");

export type CreateAssignmentBody = z.infer<typeof CreateAssignmentBody>;

export const UpdateAssignmentBody = z
  .object({
    title: fields.title.optional(),
    instructions: fields.instructions.optional(),
    max_score: fields.max_score.optional().openapi({ type: "string", example: "50.50", description: "A decimal > 0 and ≤ 100000; scores already given stay as they are." }),
    max_attempts: fields.max_attempts.optional(),
    clear_max_attempts: z.boolean().optional().openapi({ description: "true: unlimited attempts" }),
    screenshot_protection_enabled: fields.screenshot_protection_enabled.optional(),
  })
  .refine((body) => !(body.clear_max_attempts === true && body.max_attempts !== undefined), {
    message: "send max_attempts or clear_max_attempts, not both",
    path: ["clear_max_attempts"],
  })
  .openapi("UpdateAssignmentRequest", { description: "Fields left out stay as they are." });

export type UpdateAssignmentBody = z.infer<typeof UpdateAssignmentBody>;

export const AttachmentParams = z.object({ id: uuidParam, attachmentId: uuidParam });

export const AddAttachmentBody = z
  .object({
    media_asset_id: uuidField.openapi({ description: "A confirmed media asset of the school (any kind)" }),
    position: z.number().int().min(0).max(1_000_000).optional().openapi({ description: "Stored as given; left out: after the last attachment." }),
  })
  .openapi("AddAssignmentAttachmentRequest");

export const PutGroupTargetsBody = z
  .object({
    group_ids: z
      .array(uuidField)
      .max(ASSIGNMENT_LIMITS.groupTargets)
      .optional()
      .openapi({ description: "Live groups of the school, at most 500 (duplicates collapsed); empty or left out: open to every student of the school." }),
  })
  .openapi("PutAssignmentGroupTargetsRequest");

// ---------------------------------------------------------------------------------------------
// Responses

export const AttachmentObject = z
  .object({
    id: uuid,
    media_asset_id: uuid,
    position: z.number().int(),
    filename: z.string(),
    size: z.number().int(),
    kind: z.string(),
    mime: z.string(),
  })
  .openapi("AssignmentAttachment");

export const AssignmentObject = z
  .object({
    id: uuid,
    title: z.string(),
    instructions: z.string(),
    max_score: DecimalString,
    max_attempts: z.number().int().nullable(),
    screenshot_protection_enabled: z.boolean(),
    attachments: z.array(AttachmentObject).openapi({ description: "In position order on the detail; always empty in list rows" }),
    created_at: timestamp,
    updated_at: timestamp,
    my_submission_status: z.enum(SUBMISSION_STATUSES).nullable().optional().openapi({ description: "Students only: the status of their latest attempt, null without one" }),
    my_submission_score: DecimalString.nullable().optional().openapi({ description: "Students only: the score of their latest attempt" }),
  })
  .openapi("Assignment");

export const AssignmentList = z
  .object({ assignments: z.array(AssignmentObject), total: z.number().int(), page: z.number().int(), limit: z.number().int() })
  .openapi("AssignmentList");

export const AssignmentProgress = z
  .object({
    completed: z.number().int().openapi({ description: "Accessible assignments with a submission beyond draft" }),
    accessible: z.number().int().openapi({ description: "Live assignments open to the student" }),
    percent: PercentString,
  })
  .openapi("AssignmentProgress");

export const DownloadLink = z.string().openapi({ description: "A signed download link of the file, valid one hour" });

export const GroupTargets = z.object({ group_ids: z.array(uuid).openapi({ description: "Targeted live groups, by id; empty: open to all" }) }).openapi("AssignmentGroupTargets");
