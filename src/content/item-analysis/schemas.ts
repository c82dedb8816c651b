import { z } from "@hono/zod-openapi";

/** A decimal string with two decimals ("0.35", "-0.10"), or null (fewer than 20 attempts, or undefined). */
const Figure = (description: string) => z.string().nullable().openapi({ description, example: "0.35" });

const ItemOption = z
  .object({
    answer_id: z.string().openapi({ format: "uuid" }),
    chosen: z.number().int().openapi({ description: "Attempts that drew the question and chose this answer" }),
    share: Figure("chosen / n, 0.00-1.00; null under 20 attempts"),
  })
  .openapi("ItemAnalysisOption");

const Item = z
  .object({
    question_id: z.string().openapi({ format: "uuid" }),
    type: z.enum(["single", "multiple", "free_text", "matching"]),
    n: z.number().int().openapi({ description: "Counted attempts that drew the question" }),
    facility: Figure("Mean of awarded / points over the n attempts, 0.00-1.00 (an undrawn answer counts 0)"),
    discrimination: Figure("Facility in the top 27 % of the n attempts by score percent minus facility in the bottom 27 %"),
    point_biserial: Figure("Pearson correlation of the item's points with the rest of the score (score minus the item); null when either does not vary"),
    insufficient_data: z.boolean().openapi({ description: "true when n is under 20: the figures are null" }),
    options: z.array(ItemOption).optional().openapi({ description: "Choice questions only: the live answers in position order" }),
  })
  .openapi("ItemAnalysisItem");

export const ItemAnalysis = z
  .object({
    quiz_id: z.string().openapi({ format: "uuid" }),
    attempts: z.number().int().openapi({ description: "Settled student attempts outside exams counted (a restricted curator: their own students')" }),
    kr20: Figure("KR-20 (Cronbach's alpha) over the attempts that drew every question; null with random forms, fewer than 2 questions or 20 such attempts"),
    computed_at: z.string().openapi({ description: "When the figures were computed (ISO 8601); a snapshot may be older than the latest attempt", format: "date-time" }),
    items: z.array(Item).openapi({ description: "The quiz's live questions in position order" }),
  })
  .openapi("ItemAnalysis");
