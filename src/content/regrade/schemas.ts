import { z } from "@hono/zod-openapi";
import { plainText, uuidField } from "../../core/http/fields";

export const REGRADE_MODES = ["accept_all", "drop", "new_key"] as const;
export type RegradeMode = (typeof REGRADE_MODES)[number];

/** Changes listed in a response at most; `affected_attempts` counts them all. */
export const CHANGES_SHOWN = 500;

export const RegradeBody = z
  .strictObject({
    mode: z.enum(REGRADE_MODES).openapi({
      description:
        "`accept_all`: every answer to the question gets full points; `drop`: the question counts for nobody (its points leave `max_score`); `new_key`: the answers are re-scored under the key given, which becomes the question's key",
    }),
    correct_answer_ids: z
      .array(uuidField)
      .min(1)
      .max(100)
      .optional()
      .openapi({ description: "new_key on a single (exactly one) or multiple choice question: the live answers that are correct" }),
    correct_text: z
      .array(plainText({ min: 1, max: 500 }))
      .min(1)
      .max(100)
      .optional()
      .openapi({ description: "new_key on a free-text question: the accepted answers" }),
    dry_run: z.boolean().optional().openapi({ description: "Default true: report what the regrade would do and change nothing" }),
  })
  .openapi("RegradeRequest");

export type RegradeBody = z.infer<typeof RegradeBody>;

const Change = z
  .object({
    attempt_id: z.string().openapi({
      description: "The quiz attempt; for a question in exam sections, the finished exam attempt whose result changes (its final percentage and pass)",
    }),
    student_id: z.string().openapi({ description: "The attempt's user" }),
    old_score: z.string().openapi({ example: "60.00", description: "The attempt's score percentage before (an exam attempt's final percentage)" }),
    new_score: z.string().openapi({ example: "80.00", description: "The attempt's score percentage after (an exam attempt's final percentage)" }),
    old_passed: z.boolean().nullable(),
    new_passed: z.boolean().nullable(),
  })
  .openapi("RegradeChange");

export const RegradeResult = z
  .object({
    dry_run: z.boolean(),
    affected_attempts: z.number().int().openapi({ description: "Attempts whose score or pass changes: quiz attempts outside exams and exam attempts" }),
    changes: z.array(Change).openapi({ description: `Those attempts, oldest first, at most ${CHANGES_SHOWN}` }),
    truncated: z.boolean().openapi({ description: `true when more than ${CHANGES_SHOWN} attempts change` }),
  })
  .openapi("RegradeResult");

export type RegradeResult = z.infer<typeof RegradeResult>;
