import { sql } from "drizzle-orm";
import { batchable, type BatchItem } from "../../core/db/batch";
import { inSchool } from "../../core/db/conditions";
import { BUCKET_COLUMNS, bucketSumsSql, figuresWhere, type FiguresScope } from "../common/analytics";
import { contentContributor, type EventCtx } from "../common/events";

/**
 * The quiz analytics figures kept per (quiz, member, role) in `quiz_figures` and
 * `quiz_question_figures` (docs/decisions/heavy-reads.md, "Analytics aggregates"). A rebuild
 * replaces the rows of the attempts `filter` selects (alias `a`, the quiz's attempts outside exam
 * sections) with their figures recomputed from those attempts, so it is exact and idempotent
 * whatever the batch did before it.
 */

/** A result counts once it is final: submitted with no answer waiting for a review (as quizzes/analytics.ts). */
const SETTLED = sql`a.status = 'submitted' AND a.pending_review = 0`;
const PCT = sql`coalesce(a.score_pct_hundredths, 0)`;

const where = (tenantId: string, alias: string, scope: FiguresScope) => figuresWhere(tenantId, alias, "quiz_id", scope);

/** The statements that rebuild the figures of the scope's attempts, in order. */
export function quizFiguresRebuild(ctx: EventCtx, scope: FiguresScope): BatchItem[] {
  const t = ctx.tenantId;
  return [
    batchable(ctx, sql`DELETE FROM quiz_figures WHERE ${where(t, "quiz_figures", scope)}`),
    batchable(
      ctx,
      sql`INSERT INTO quiz_figures (tenant_id, quiz_id, user_id, actor_role, attempt_count, submitted_count, settled_count, passed_count,
          pct_sum, pct_max, pct_min, ${BUCKET_COLUMNS})
        SELECT a.tenant_id, a.quiz_id, a.user_id, a.actor_role, count(*), coalesce(sum(a.status = 'submitted'), 0), coalesce(sum(${SETTLED}), 0),
          coalesce(sum(${SETTLED} AND a.passed = 1), 0),
          sum(CASE WHEN ${SETTLED} THEN ${PCT} END), max(CASE WHEN ${SETTLED} THEN ${PCT} END), min(CASE WHEN ${SETTLED} THEN ${PCT} END),
          ${bucketSumsSql(PCT, SETTLED)}
        FROM quiz_attempts a
        WHERE ${where(t, "a", scope)} AND a.exam_attempt_id IS NULL
        GROUP BY a.quiz_id, a.user_id, a.actor_role`,
    ),
    batchable(ctx, sql`DELETE FROM quiz_question_figures WHERE ${where(t, "quiz_question_figures", scope)}`),
    batchable(
      ctx,
      sql`INSERT INTO quiz_question_figures (tenant_id, quiz_id, user_id, actor_role, question_id, answered, correct)
        SELECT a.tenant_id, a.quiz_id, a.user_id, a.actor_role, ans.question_id, count(*), coalesce(sum(ans.is_correct = 1), 0)
        FROM quiz_attempts a
          JOIN quiz_attempt_answers ans ON ans.attempt_id = a.id AND ${inSchool("ans", t)} AND ans.quiz_id = a.quiz_id
        WHERE ${where(t, "a", scope)} AND a.exam_attempt_id IS NULL AND ${SETTLED}
        GROUP BY a.quiz_id, a.user_id, a.actor_role, ans.question_id`,
    ),
  ];
}

/** Keeps a quiz's figures with the batch that started, finished or scored an attempt of it outside an exam. */
export const QUIZ_FIGURES_CONTRIBUTOR = contentContributor({
  name: "quizzes.analytics-figures",
  handles: ["attempt.recorded"],
  async statements(ctx, event) {
    return event.attempt === "quiz" ? quizFiguresRebuild(ctx, { objectId: event.objectId, userId: event.userId }) : [];
  },
});
