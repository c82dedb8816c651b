import { z } from "@hono/zod-openapi";
import { reorderBody } from "../../core/http/reorder";
import { BLOCK_TYPES, COMPLETION_SOURCES } from "../../db/schema";
import { LessonFields } from "./tree-schemas";

const uuid = z.string().openapi({ format: "uuid" });
const timestamp = z.string().openapi({ format: "date-time" });

const payloadDescription =
  "Per type: text {html ≤ 100000, sanitized}; video {media_asset_id (a confirmed video) | url (https)}; image {media_asset_id (a confirmed image), caption ≤ 500}; pdf {media_asset_id (a confirmed pdf)}; file {media_asset_id (any confirmed asset), title}; embed {url (https), title}; quiz_ref {quiz_id}; assignment_ref {assignment_id}; exam_ref {exam_id}. Keys the type does not list are dropped.";

// ---------------------------------------------------------------------------------------------
// Requests

/**
 * The envelope only: `type` is checked against the block types and the payload against its type
 * by the service, so each failure answers its own identifier (`invalid_block_type`,
 * `invalid_block_payload`) rather than the body's.
 */
export const CreateBlockBody = z
  .object({
    type: z.string().openapi({ enum: [...BLOCK_TYPES] }),
    payload: z.record(z.string(), z.unknown()).openapi({ description: payloadDescription }),
    position: z.number().int().min(0).max(100_000).optional().openapi({ description: "0-based index among the lesson's blocks; default: appended." }),
  })
  .openapi("CreateBlockRequest");

export const UpdateBlockBody = z
  .object({
    payload: z.record(z.string(), z.unknown()).optional().openapi({ description: `The new payload (required). ${payloadDescription}` }),
    type: z.string().optional().openapi({ description: "May be sent; it must be the block's own type (a type never changes)." }),
  })
  .openapi("UpdateBlockRequest");

export const ReorderBlocksBody = reorderBody("block_ids", { max: 500 }).openapi("ReorderBlocksRequest");

// ---------------------------------------------------------------------------------------------
// Responses

export const FullBlock = z
  .object({
    id: uuid,
    lesson_id: uuid,
    module_id: uuid,
    course_id: uuid,
    type: z.enum(BLOCK_TYPES),
    position: z.number().int(),
    payload: z.record(z.string(), z.unknown()).nullable().openapi({ description: "Null while the block is locked for the student." }),
    locked: z.boolean().openapi({ description: "Students of a sequential course: an earlier block is not complete yet." }),
    url: z.string().nullable().openapi({ description: "A fresh link to the payload's media asset; null for other payloads and locked blocks." }),
    quiz: z.record(z.string(), z.unknown()).nullable(),
    assignment: z.record(z.string(), z.unknown()).nullable(),
    exam: z.record(z.string(), z.unknown()).nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .openapi("Block");

export const BlockList = z.object({ blocks: z.array(FullBlock) }).openapi("BlockList");

export const LessonWithBlocks = LessonFields.extend({ blocks: z.array(FullBlock) }).openapi("LessonWithBlocks");

export const Progress = z
  .object({
    blocks_completed: z.number().int(),
    total_blocks: z.number().int().openapi({ description: "The course's block count at the last recompute." }),
    pct: z.string().nullable().openapi({ description: "blocks_completed / total_blocks as a percentage with two decimals (\"66.67\"); null without blocks.", example: "66.67" }),
    completed_at: timestamp.nullable().openapi({ description: "Set the first time every block was complete; never cleared." }),
  })
  .openapi("Progress");

export const BlockCompletion = z
  .object({
    id: uuid,
    student_id: uuid,
    block_id: uuid,
    enrollment_id: uuid,
    source: z.enum(COMPLETION_SOURCES),
    completed_at: timestamp,
  })
  .openapi("BlockCompletion");

export const CompletionResult = z
  .object({ completion: BlockCompletion, progress: Progress.openapi({ description: "The enrollment's progress after this completion." }) })
  .openapi("CompletionResult");

export const MyCompletions = z.object({ block_ids: z.array(uuid) }).openapi("MyCompletions");

export const Reordered = z.object({ reordered: z.number().int() }).openapi("BlocksReordered");
