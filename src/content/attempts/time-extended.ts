import { z } from "@hono/zod-openapi";
import type { SQL } from "drizzle-orm";
import type { BatchItem } from "../../core/db/batch";
import type { SchoolCtx } from "../../core/http/context";
import { plainText } from "../../core/http/fields";
import type { EventDefinition } from "../../platform/notifications/catalog";
import { enqueue, timestamp } from "../../platform/notifications/enqueue";

/**
 * What quiz and exam extensions share (05 section 1, docs/decisions/accommodations.md, "Live
 * extensions"): the request body and the push `attempt.time_extended`, which is outside the 63
 * (its own code, fixed ru/en templates, always on, not listed by GET /admin/events) and obeys
 * rules 3-6 of 04.
 */

export const ExtendBody = z
  .object({
    add_seconds: z.number().int().min(60).max(14400),
    reason: plainText({ min: 1, max: 500, multiline: true }),
  })
  .openapi("ExtendAttemptRequest");

export type ExtendBody = z.infer<typeof ExtendBody>;

export const ATTEMPT_TIME_EXTENDED: EventDefinition = {
  code: "attempt.time_extended",
  category: "quiz",
  name: "More time for your attempt",
  description: "staff extend a student's timed quiz or exam attempt in progress (POST /t/attempts/:id/extend, POST /t/exam-attempts/:id/extend)",
  source: "api_action",
  recipients: "student",
  aggregateType: "quiz_attempt",
  variables: ["title", "added_minutes", "deadline_at"],
  defaultEnabled: true,
  defaultConfig: {},
  implemented: true,
  templates: {
    ru: { title: "Время продлено", body: "«{{title}}»: добавлено минут: {{added_minutes}}. Новый срок: {{deadline_at}}." },
    en: { title: "More time", body: "“{{title}}”: {{added_minutes}} min added. New deadline: {{deadline_at}}." },
  },
};

/**
 * The push for the extension's own batch: only a student's own attempt tells anyone (rule 3), the
 * dedupe key names the new deadline (rule 6: the timestamp the transition stored), so a retried
 * call sends nothing twice and a second extension sends again. `when` is the extension's condition.
 */
export async function timeExtendedPush(
  ctx: SchoolCtx,
  input: { attemptId: string; aggregateType: "quiz_attempt" | "exam_attempt"; studentId: string; actorRole: string; title: string; addSeconds: number; deadlineAt: number; when: SQL },
): Promise<BatchItem[]> {
  if (input.actorRole !== "student") return [];
  return [
    await enqueue(
      ctx,
      ATTEMPT_TIME_EXTENDED,
      { token: "student", studentId: input.studentId },
      { title: input.title, added_minutes: Math.ceil(input.addSeconds / 60), deadline_at: timestamp(input.deadlineAt) },
      { id: input.attemptId, type: input.aggregateType },
      `${ATTEMPT_TIME_EXTENDED.code}:${input.attemptId}:${input.deadlineAt}`,
      { when: input.when },
    ),
  ];
}
