import { z } from "@hono/zod-openapi";
import { DecimalString } from "../../core/db/decimal";
import { SUBMISSION_STATUSES } from "../../db/schema";

/** Shapes shared by the submission endpoints; each route file adds its own request bodies. */

const uuid = z.string().openapi({ format: "uuid" });
const timestamp = z.string().openapi({ format: "date-time" });

export const SUBMISSION_LIMITS = {
  text: 20_000,
  feedback: 10_000,
  attachmentIds: 20,
  filesPerRequest: 5,
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
