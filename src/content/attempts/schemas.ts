import { z } from "@hono/zod-openapi";
import { DecimalString, PercentString } from "../../core/db/decimal";
import { uuidField } from "../../core/http/fields";
import { ACTOR_ROLES, ATTEMPT_STATUSES } from "../../db/schema";
import { StudentQuestionObject } from "../quizzes/question-schemas";
import { FREE_TEXT_MAX, PAYLOAD_MAX_CHARS, PAYLOAD_MAX_DEPTH, payloadBoundsProblem } from "./payloads";

export const MAX_SAVE_ITEMS = 200;

// ---------------------------------------------------------------------------------------------
// Requests

export const StartAttemptBody = z
  .object({ quiz_id: uuidField.openapi({ description: "The quiz to attempt" }) })
  .openapi("StartQuizAttemptRequest");

// The bounds are checked here, before the payload travels to the attempt's journal (whose RPC a deep enough value would break); the journal checks the rest by question type.
const Payload = z
  .record(z.string(), z.unknown())
  .superRefine((payload, check) => {
    const problem = payloadBoundsProblem(payload);
    if (problem !== null) check.addIssue({ code: "custom", message: problem });
  })
  .openapi({
    type: "object",
    description:
      "By question type: single `{answer_ids: [id]}` (first element used), `{selected_answer_id}` or `{selected_option_id}`; multiple `{answer_ids}`, " +
      "`{selected_answer_ids}` or `{selected_option_ids}`; free text `{text}` (at most " + FREE_TEXT_MAX + " characters); matching `{pairs: [{left_id, right_id}]}` with `left_id` from " +
      "`match_lefts[].id` and `right_id` the token from `match_rights[].id`. With several keys of its type the first listed counts; only that key is kept " +
      "(other keys are dropped). At most " + PAYLOAD_MAX_DEPTH + " levels of nesting and " + PAYLOAD_MAX_CHARS + " characters of JSON.",
    example: { answer_ids: ["0190d0a4-5b6c-7d8e-9f00-112233445566"] },
  });

const SaveItem = z.object({
  question_id: uuidField.openapi({ description: "A question of the attempt's quiz" }),
  payload: Payload,
  client_seq: z
    .number()
    .int()
    .min(0)
    .max(Number.MAX_SAFE_INTEGER)
    .optional()
    .openapi({ description: "Per question, the highest client_seq is kept; an item at or below it is ignored; an item without one is newer than every earlier save" }),
});

export const SaveAnswersBody = z
  .object({
    answers: z
      .array(SaveItem)
      .min(1)
      .max(MAX_SAVE_ITEMS)
      .openapi({ description: `1 to ${MAX_SAVE_ITEMS} answers, merged by question into the attempt's saved answers` }),
  })
  .openapi("SaveQuizAnswersRequest");

export type SaveAnswersBody = z.infer<typeof SaveAnswersBody>;

// ---------------------------------------------------------------------------------------------
// Responses

const SavedAnswer = z
  .object({
    question_id: z.string(),
    payload: z.record(z.string(), z.unknown()),
    awarded_points: DecimalString.nullable().openapi({ description: '"0.00" while in progress; null while the answer waits for review' }),
    is_correct: z.boolean().nullable().openapi({ description: "false while in progress; null while the answer waits for review" }),
    feedback: z.string().nullable().optional().openapi({ description: "The grader's feedback (submitted attempts only)" }),
  })
  .openapi("QuizSavedAnswer");

export const Attempt = z
  .object({
    id: z.string(),
    quiz_id: z.string(),
    user_id: z.string(),
    status: z.enum(ATTEMPT_STATUSES),
    actor_role: z.enum(ACTOR_ROLES),
    score: DecimalString.nullable().openapi({ description: "Null while in progress; answers waiting for review count 0" }),
    max_score: DecimalString.openapi({ description: "In progress: the live questions' total; submitted: the total when it was scored" }),
    score_pct: PercentString.openapi({ description: "Null while in progress" }),
    passed: z.boolean().nullable().openapi({ description: "Null while in progress or while an answer waits for review" }),
    pending_review: z.boolean(),
    started_at: z.string(),
    deadline_at: z.string().nullable(),
    time_limit_seconds: z.number().int().nullable().openapi({ description: "The attempt's own limit (accommodation and extensions included): deadline_at − started_at; null when untimed" }),
    submitted_at: z.string().nullable(),
    auto_finalized: z.boolean(),
    saved_answers: z.array(SavedAnswer).optional().openapi({ description: "Left out when nothing is saved" }),
    server_now: z.string(),
    remaining_seconds: z.number().int().nullable().openapi({ description: "Null when untimed; 0 once the attempt is submitted or the time is up" }),
    questions: z
      .array(StudentQuestionObject)
      .optional()
      .openapi({ description: "GET of an attempt with a random form only: the student view of exactly its drawn questions, in drawn order (answers in the form's order)" }),
  })
  .openapi("QuizAttempt");

export const SaveResult = z
  .object({
    saved: z.number().int().openapi({ description: "Items kept" }),
    ignored: z.number().int().openapi({ description: "Items ignored because a save with a higher or equal client_seq was kept" }),
    server_now: z.string(),
    remaining_seconds: z.number().int().nullable(),
  })
  .openapi("SaveQuizAnswersResult");
