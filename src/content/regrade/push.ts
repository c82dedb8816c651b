import type { BatchItem } from "../../core/db/batch";
import type { SQL } from "drizzle-orm";
import type { SchoolActor, SchoolCtx } from "../../core/http/context";
import type { EventDefinition } from "../../platform/notifications/catalog";
import { enqueue } from "../../platform/notifications/enqueue";

/**
 * `quiz.regraded` (05 section 2), outside the 63 like `attempt.time_extended`: its own code, fixed
 * ru/en templates, always on, not listed by GET /admin/events; rules 3-6 of 04. The scores are the
 * attempt's percentages before and after.
 */
export const QUIZ_REGRADED: EventDefinition = {
  code: "quiz.regraded",
  category: "quiz",
  name: "Quiz result corrected",
  description: "staff regrade a question and a student's attempt scores differently (POST /t/quiz-questions/:id/regrade)",
  source: "api_action",
  recipients: "student",
  aggregateType: "quiz_attempt",
  variables: ["title", "old_score", "new_score"],
  defaultEnabled: true,
  defaultConfig: {},
  implemented: true,
  templates: {
    ru: { title: "Результат пересчитан", body: "«{{title}}»: было {{old_score}} %, стало {{new_score}} %." },
    en: { title: "Result corrected", body: "“{{title}}”: {{old_score}}% before, {{new_score}}% now." },
  },
};

/**
 * The push of one re-scored result, for the chunk's batch: a quiz attempt, or an exam attempt whose
 * result a regrade of a section's question changed (the exam's title and its final percentages: a
 * section's quiz is not the student's to see; their result is the exam's). The key names the
 * regrade and the attempt, so a retried chunk sends nothing twice.
 */
export function regradedPush(
  ctx: SchoolCtx<SchoolActor>,
  input: { regradeId: string; attempt: { id: string; type: "quiz_attempt" | "exam_attempt" }; studentId: string; title: string; oldScore: string; newScore: string; when: SQL },
): Promise<BatchItem> {
  return enqueue(
    ctx,
    QUIZ_REGRADED,
    { token: "student", studentId: input.studentId },
    { title: input.title, old_score: input.oldScore, new_score: input.newScore },
    input.attempt,
    `${QUIZ_REGRADED.code}:${input.regradeId}:${input.attempt.id}`,
    { when: input.when },
  );
}
