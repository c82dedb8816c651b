import { z } from "@hono/zod-openapi";
import { decimalField } from "../../core/db/decimal";
import { plainText, uuidField } from "../../core/http/fields";

export const ADJUSTMENT_LIMITS = { maxPoints: 100_000, reason: { min: 1, max: 2000 }, idempotencyKey: { min: 1, max: 255 } } as const;

export const CreateAdjustmentBody = z
  .object({
    student_id: uuidField,
    points: decimalField({ min: -ADJUSTMENT_LIMITS.maxPoints, max: ADJUSTMENT_LIMITS.maxPoints })
      .refine((hundredths) => hundredths !== 0, "must not be zero")
      .openapi({ type: "string", example: "-5.00", description: "Signed, non-zero, at most two decimals, |points| ≤ 100000.00; negative deducts." }),
    reason: plainText({ ...ADJUSTMENT_LIMITS.reason, multiline: true }).openapi({ description: "Why (1-2000 characters after trimming); stored with the event and shown to the student." }),
    // Kept exactly as sent: it is the client's opaque key.
    idempotency_key: z
      .string()
      .min(ADJUSTMENT_LIMITS.idempotencyKey.min)
      .max(ADJUSTMENT_LIMITS.idempotencyKey.max)
      .optional()
      .openapi({ description: "1-255 characters. A key the school already used returns that first event (200) whatever this body says; nothing is written." }),
  })
  .openapi("CreateAdjustmentRequest");

export type CreateAdjustmentBody = z.infer<typeof CreateAdjustmentBody>;

export const AdjustmentResult = z.object({ event_id: z.string().openapi({ format: "uuid" }) }).openapi("AdjustmentResult");
