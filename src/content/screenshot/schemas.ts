import { z } from "@hono/zod-openapi";

export const CONTENT_TYPES = ["lessons", "quizzes", "assignments", "exams"] as const;
export type ContentType = (typeof CONTENT_TYPES)[number];

const count = z.number().int().min(0);

export const TypeCounts = z
  .object({
    total: count.openapi({ description: "Live (not deleted) objects of the type." }),
    screenshots_allowed: count,
    screenshots_blocked: count,
  })
  .openapi("ScreenshotTypeCounts");

export const ScreenshotSettings = z
  .object({ lessons: TypeCounts, quizzes: TypeCounts, assignments: TypeCounts, exams: TypeCounts })
  .openapi("ScreenshotSettings");

export const ScreenshotUpdateBody = z
  .object({
    content_type: z.enum(CONTENT_TYPES),
    enabled: z.boolean().openapi({ description: "true blocks screenshots on every live object of the type." }),
  })
  .openapi("ScreenshotUpdateBody");

export const ScreenshotUpdateResult = z
  .object({
    content_type: z.enum(CONTENT_TYPES),
    screenshot_protection_enabled: z.boolean(),
    updated_count: count.openapi({ description: "Objects whose flag this request changed (0 when all already had the value)." }),
    settings: ScreenshotSettings,
  })
  .openapi("ScreenshotUpdateResult");

export type ScreenshotSettings = z.infer<typeof ScreenshotSettings>;
export type ScreenshotUpdateBody = z.infer<typeof ScreenshotUpdateBody>;
export type ScreenshotUpdateResult = z.infer<typeof ScreenshotUpdateResult>;
