import { z } from "@hono/zod-openapi";
import { DecimalString } from "../../core/db/decimal";
import { plainText, uuidField } from "../../core/http/fields";
import { offsetQuery } from "../../core/http/pagination";
import { richTextField } from "../../core/lib/sanitize";
import { SUBMISSION_STATUSES } from "../../db/schema";

/** Shapes shared by the submission endpoints; each route file adds its own request bodies. */

const uuid = z.string().openapi({ format: "uuid" });
const timestamp = z.string().openapi({ format: "date-time" });

export const SUBMISSION_LIMITS = {
  text: 20_000,
  feedback: 10_000,
  attachmentIds: 20,
  filesPerRequest: 5,
  worksheet: { maxLimit: 200, defaultLimit: 50 },
} as const;

export const SubmissionFile = z
  .object({
    media_asset_id: uuid,
    position: z.number().int(),
    filename: z.string(),
    size: z.number().int(),
    kind: z.string(),
    mime: z.string(),
    url: z.string().nullable().openapi({ description: "A fresh signed download link (one hour)." }),
  })
  .openapi("SubmissionFile");

export const SubmissionObject = z
  .object({
    id: uuid,
    assignment_id: uuid,
    student_id: uuid,
    attempt: z.number().int(),
    status: z.enum(SUBMISSION_STATUSES),
    text: z.string().nullable(),
    score: DecimalString.nullable(),
    feedback: z.string().nullable(),
    graded_by_id: uuid.nullable(),
    graded_at: timestamp.nullable(),
    submitted_at: timestamp.nullable(),
    attachments: z.array(SubmissionFile),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .openapi("Submission");

export const WorksheetRow = SubmissionObject.extend({
  student_email: z.string(),
  student_first_name: z.string(),
  student_last_name: z.string(),
  attempt_count: z.number().int().openapi({ description: "Attempts the student has made at the assignment" }),
  late: z.boolean().openapi({ description: "Submitted after the student's effective closing date of the assignment; false when not submitted or no date" }),
}).openapi("SubmissionWorksheetRow");

export const SubmissionList = z
  .object({
    submissions: z.array(WorksheetRow.partial({ student_email: true, student_first_name: true, student_last_name: true, attempt_count: true, late: true })),
    total: z.number().int(),
  })
  .openapi("SubmissionList", {
    description: "Managers of students: the worksheet, one row per student (their latest attempt) with the worksheet fields. Anyone else: their own latest submission, or nothing.",
  });

export const SubmissionHistory = z.object({ submissions: z.array(SubmissionObject) }).openapi("SubmissionHistory");

// ---------------------------------------------------------------------------------------------
// Requests

const attachmentIds = z
  .array(uuidField)
  .max(SUBMISSION_LIMITS.attachmentIds)
  .openapi({ description: "Confirmed media assets of the school uploaded by the student, at most 20 (duplicates collapsed), in order" });

const submissionText = richTextField({ max: SUBMISSION_LIMITS.text });

export const CreateSubmissionBody = z.object({ attachment_ids: attachmentIds.optional() }).openapi("CreateSubmissionRequest");

export type CreateSubmissionBody = z.infer<typeof CreateSubmissionBody>;

/** The multipart form of the same request, documented only: the service reads it. */
export const CREATE_SUBMISSION_FORM = {
  type: "object" as const,
  required: ["attachments"],
  properties: {
    attachments: {
      type: "array" as const,
      minItems: 1,
      maxItems: SUBMISSION_LIMITS.filesPerRequest,
      items: { type: "string" as const, format: "binary" },
      description: "1 to 5 file parts named `attachments`; each is stored as a media asset of the school (kind from its content, quota counted).",
    },
  },
};

export const UpdateSubmissionBody = z
  .object({
    text: submissionText.nullable().optional().openapi({ description: "Rich text, at most 20000 characters as sent; stored sanitized. null clears it." }),
    attachment_ids: attachmentIds.optional().openapi({ description: "Replaces the files: confirmed assets of the school uploaded by the student, at most 20" }),
  })
  .openapi("UpdateSubmissionRequest", { description: "Fields left out stay as they are." });

export type UpdateSubmissionBody = z.infer<typeof UpdateSubmissionBody>;

export const ReviewSubmissionBody = z
  .object({
    status: z.enum(["accepted", "rejected"]),
    score: z
      .unknown()
      .optional()
      .openapi({ type: "string", example: "85.50", description: "A decimal from 0 to the assignment's max_score (string or number); required to accept" }),
    feedback: plainText({ max: SUBMISSION_LIMITS.feedback, multiline: true }).nullable().optional().openapi({ description: "At most 10000 characters; left out keeps the current feedback, null clears it" }),
  })
  .openapi("ReviewSubmissionRequest");

export type ReviewSubmissionBody = z.infer<typeof ReviewSubmissionBody>;

export const WorksheetQuery = z.object({
  status: z.enum(SUBMISSION_STATUSES).optional().openapi({ description: "Only students whose latest attempt has this status" }),
  ...offsetQuery(SUBMISSION_LIMITS.worksheet),
});

export const HistoryQuery = z.object({
  student_id: uuidField.optional().openapi({ description: "Managers of students: whose attempts (default the caller's own)" }),
});
