import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { createdAt, id, tenantRef } from "../columns";

/**
 * A regrade of a quiz question (05 section 2; docs/decisions/regrade.md). `seq` numbers the
 * regrades of one question (1, 2, …; the `<n>` of the rating keys). At most one regrade of a quiz
 * is `running` at a time: the claim is an INSERT … WHERE NOT EXISTS a running one. `key` is the
 * new key of a `new_key` regrade (`{correct_answer_ids}` or `{correct_text}`); `points_hundredths`
 * the question's points when claimed (what a `drop` takes out of `max_score`).
 */
export const quizRegrades = sqliteTable(
  "quiz_regrades",
  {
    id: id(),
    tenantId: tenantRef(),
    quizId: text("quiz_id").notNull(),
    questionId: text("question_id").notNull(),
    seq: integer("seq").notNull(),
    mode: text("mode", { enum: ["accept_all", "drop", "new_key"] }).notNull(),
    key: text("key", { mode: "json" }).$type<{ correct_answer_ids?: string[]; correct_text?: string[] }>(),
    pointsHundredths: integer("points_hundredths").notNull(),
    status: text("status", { enum: ["running", "done"] }).notNull(),
    createdBy: text("created_by"),
    createdAt: createdAt(),
    finishedAt: integer("finished_at"),
  },
  (t) => [index("quiz_regrades_tenant_quiz").on(t.tenantId, t.quizId, t.status), index("quiz_regrades_tenant_question").on(t.tenantId, t.questionId, t.seq)],
);

/**
 * The attempts one regrade re-scores, listed when it is claimed; `applied_at` is set by the chunk
 * that re-scored the attempt, in the same batch, so a retried chunk finds it applied and changes
 * nothing twice. The scores before and after are percentages in hundredths.
 */
export const quizRegradeItems = sqliteTable(
  "quiz_regrade_items",
  {
    tenantId: tenantRef(),
    regradeId: text("regrade_id").notNull(),
    attemptId: text("attempt_id").notNull(),
    userId: text("user_id").notNull(),
    oldScorePctHundredths: integer("old_score_pct_hundredths"),
    oldPassed: integer("old_passed", { mode: "boolean" }),
    newScorePctHundredths: integer("new_score_pct_hundredths"),
    newPassed: integer("new_passed", { mode: "boolean" }),
    appliedAt: integer("applied_at"),
  },
  (t) => [
    primaryKey({ columns: [t.regradeId, t.attemptId] }),
    index("quiz_regrade_items_pending").on(t.regradeId, t.appliedAt, t.attemptId),
    index("quiz_regrade_items_attempt").on(t.tenantId, t.attemptId),
    index("quiz_regrade_items_user").on(t.tenantId, t.userId),
  ],
);
