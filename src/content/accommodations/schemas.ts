import { z } from "@hono/zod-openapi";
import { plainText } from "../../core/http/fields";

/** 1.00-4.00 with at most two decimals, as a decimal string or a number (05 section 1). */
const multiplier = z
  .union([z.string().regex(/^\d{1,2}(\.\d{1,2})?$/, "a decimal with at most two decimals"), z.number().finite()])
  .refine((value) => {
    const hundredths = Number(value) * 100;
    return Math.abs(hundredths - Math.round(hundredths)) < 1e-6 && Math.round(hundredths) >= 100 && Math.round(hundredths) <= 400;
  }, "must be from 1.00 to 4.00 with at most two decimals")
  .openapi({ example: "1.50", description: "1.00-4.00, two decimals; a decimal string or a number" });

export const AccommodationBody = z
  .object({
    time_multiplier: multiplier,
    extra_time_seconds: z.number().int().min(0).max(36000),
    extra_attempts: z.number().int().min(0).max(20),
    note: plainText({ max: 500, multiline: true }).nullable(),
  })
  .openapi("AccommodationRequest");

export type AccommodationBody = z.infer<typeof AccommodationBody>;

export const Accommodation = z
  .object({
    user_id: z.string(),
    time_multiplier: z.string().openapi({ example: "1.50" }),
    extra_time_seconds: z.number().int(),
    extra_attempts: z.number().int(),
    note: z.string().nullable().openapi({ description: "staff only: never shown to the student" }),
    updated_at: z.string().nullable(),
    updated_by: z.string().nullable(),
  })
  .openapi("Accommodation");
