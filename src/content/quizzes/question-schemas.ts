import { z } from "@hono/zod-openapi";
import { decimalField, DecimalString } from "../../core/db/decimal";
import { plainText, uuidField } from "../../core/http/fields";
import { reorderBody } from "../../core/http/reorder";
import { QUESTION_TYPES, SCORING_MODES } from "../../db/schema";

const uuid = z.string().openapi({ format: "uuid" });
const timestamp = z.string().openapi({ format: "date-time" });

/** Bounds of one question, so a question and its reads stay small and its points sum safely. */
export const QUESTION_LIMITS = { answers: 100, matches: 100, correctText: 100, maxPoints: 10_000 } as const;

const prompt = plainText({ max: 2000, multiline: true }).openapi({ description: "Up to 2000 characters; a question needs a prompt, an image, or both." });
const imageAssetId = uuidField.openapi({ description: "A confirmed image asset of the school (upload it through the media flow first); input only: reads carry `image_url`." });
const points = decimalField({ min: 0, exclusiveMin: true, max: QUESTION_LIMITS.maxPoints });

// ---------------------------------------------------------------------------------------------
// Requests

export const CreateQuestionBody = z
  .object({
    type: z.enum(QUESTION_TYPES),
    prompt: prompt.optional(),
    image_asset_id: imageAssetId.optional(),
    points: points.optional().openapi({ description: `Decimal string > 0, at most ${QUESTION_LIMITS.maxPoints} (default "1.00").` }),
    scoring_mode: z.enum(SCORING_MODES).optional().openapi({ description: "`partial` only for multiple and matching questions; unset: the quiz's default." }),
  })
  .openapi("CreateQuestionRequest");

const AnswerItem = z
  .strictObject({
    id: uuidField.optional().openapi({ description: "An existing live answer of this question: it keeps its id, and its picture unless image_asset_id or remove_image says otherwise. Without id: a new answer." }),
    text: plainText({ max: 500, multiline: true }).optional(),
    image_asset_id: imageAssetId.optional(),
    remove_image: z.boolean().optional(),
    is_correct: z.boolean().optional().openapi({ description: "Default false." }),
  })
  .openapi("QuestionAnswerInput");

const MatchItem = z
  .strictObject({
    left_text: plainText({ max: 500, multiline: true }).nullable().optional().openapi({ description: "Left out, null or empty: a right-side distractor." }),
    right_text: plainText({ min: 1, max: 500, multiline: true }),
  })
  .openapi("QuestionMatchInput");

export const UpdateQuestionBody = z
  .object({
    prompt: prompt.optional(),
    image_asset_id: imageAssetId.optional(),
    remove_image: z.boolean().optional(),
    answers: z
      .array(AnswerItem)
      .max(QUESTION_LIMITS.answers)
      .optional()
      .openapi({ description: "single/multiple only. REPLACES the answers: listed ids are kept, new items are added, answers left out are removed." }),
    correct_text: z
      .array(plainText({ min: 1, max: 500 }))
      .max(QUESTION_LIMITS.correctText)
      .optional()
      .openapi({ description: "free_text only: the accepted answers (compared trimmed, whitespace collapsed, case-folded, NFC)." }),
    points: points.optional(),
    scoring_mode: z
      .enum([...SCORING_MODES, ""])
      .optional()
      .openapi({ description: "`partial` only for multiple and matching questions; an empty string resets to the quiz's default." }),
    matches: z
      .array(MatchItem)
      .min(1)
      .max(QUESTION_LIMITS.matches)
      .optional()
      .openapi({ description: "matching only. REPLACES the pairs (new ids); right_text unique within the list; at least one item with left_text." }),
  })
  .openapi("UpdateQuestionRequest");

export const ReorderQuestionsBody = reorderBody("ordered_ids", { max: 500 }).openapi("ReorderQuestionsRequest");

// ---------------------------------------------------------------------------------------------
// Responses

export const QuestionObject = z
  .object({
    id: uuid,
    quiz_id: uuid,
    type: z.enum(QUESTION_TYPES),
    prompt: z.string(),
    image_url: z.string().nullable().openapi({ description: "A fresh signed link to the question's image; the asset id is never returned." }),
    position: z.number().int(),
    points: DecimalString,
    scoring_mode: z.enum(SCORING_MODES).nullable().openapi({ description: "Null: the quiz's default_scoring_mode applies." }),
    answers: z.array(
      z.object({ id: uuid, text: z.string(), image_url: z.string().nullable(), is_correct: z.boolean(), position: z.number().int() }).openapi("QuestionAnswer"),
    ),
    correct_text: z.array(z.string()),
    matches: z.array(
      z.object({ id: uuid, left_text: z.string().nullable(), right_text: z.string(), position: z.number().int() }).openapi("QuestionMatch"),
    ),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .openapi("Question");

/** The student's view of a question (inside a quiz read): nothing that gives an answer away. */
export const StudentQuestionObject = z
  .object({
    id: uuid,
    type: z.enum(QUESTION_TYPES),
    prompt: z.string(),
    image_url: z.string().nullable(),
    position: z.number().int(),
    points: DecimalString,
    answers: z.array(z.object({ id: uuid, text: z.string(), image_url: z.string().nullable(), position: z.number().int() })).optional().openapi({ description: "single and multiple." }),
    match_lefts: z.array(z.object({ id: uuid, text: z.string() })).optional().openapi({ description: "matching: the left sides with their real ids, in order." }),
    match_rights: z
      .array(z.object({ id: z.string().openapi({ description: "An opaque token, new on every read; send it back as right_id." }), text: z.string() }))
      .optional()
      .openapi({ description: "matching: every right side, shuffled on every read." }),
  })
  .openapi("StudentQuestion");

export const QuestionsReordered = z.object({ reordered: z.number().int() }).openapi("QuestionsReordered");
