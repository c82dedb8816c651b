import { sql } from "drizzle-orm";
import { batchable, type BatchItem } from "../../core/db/batch";
import { inSchool } from "../../core/db/conditions";
import { BUCKET_COLUMNS, bucketSumsSql, figuresWhere, type FiguresScope } from "../common/analytics";
import { contentContributor, type EventCtx } from "../common/events";
import { SECTION_PCT } from "./analytics";

/**
 * The exam analytics figures kept per (exam, member, role) in `exam_figures` and
 * `exam_section_figures` (docs/decisions/heavy-reads.md, "Analytics aggregates"). A rebuild
 * replaces the rows of the exam attempts `scope` selects with their figures recomputed from those
 * attempts and their sections' quiz attempts: exact and idempotent.
 */

const SUBMITTED = sql`ea.status = 'submitted'`;
const PCT = sql`coalesce(ea.final_score_pct_hundredths, 0)`;

const where = (tenantId: string, alias: string, scope: FiguresScope) => figuresWhere(tenantId, alias, "exam_id", scope);

/** The statements that rebuild the figures of the scope's exam attempts, in order. */
export function examFiguresRebuild(ctx: EventCtx, scope: FiguresScope): BatchItem[] {
  const t = ctx.tenantId;
  return [
    batchable(ctx, sql`DELETE FROM exam_figures WHERE ${where(t, "exam_figures", scope)}`),
    batchable(
      ctx,
      sql`INSERT INTO exam_figures (tenant_id, exam_id, user_id, actor_role, attempt_count, submitted_count, passed_count, pct_sum, pct_max, pct_min, ${BUCKET_COLUMNS})
        SELECT ea.tenant_id, ea.exam_id, ea.user_id, ea.actor_role, count(*), coalesce(sum(${SUBMITTED}), 0), coalesce(sum(${SUBMITTED} AND ea.passed = 1), 0),
          sum(CASE WHEN ${SUBMITTED} THEN ${PCT} END), max(CASE WHEN ${SUBMITTED} THEN ${PCT} END), min(CASE WHEN ${SUBMITTED} THEN ${PCT} END),
          ${bucketSumsSql(PCT, SUBMITTED)}
        FROM exam_attempts ea
        WHERE ${where(t, "ea", scope)}
        GROUP BY ea.exam_id, ea.user_id, ea.actor_role`,
    ),
    batchable(ctx, sql`DELETE FROM exam_section_figures WHERE ${where(t, "exam_section_figures", scope)}`),
    batchable(
      ctx,
      sql`INSERT INTO exam_section_figures (tenant_id, exam_id, user_id, actor_role, section_id, pct_sum)
        SELECT ea.tenant_id, ea.exam_id, ea.user_id, ea.actor_role, esa.exam_section_id, coalesce(sum(${SECTION_PCT}), 0)
        FROM exam_attempts ea
          JOIN exam_section_attempts esa ON ${inSchool("esa", t)} AND esa.exam_attempt_id = ea.id
          LEFT JOIN quiz_attempts qa ON ${inSchool("qa", t)} AND qa.id = esa.quiz_attempt_id AND qa.exam_attempt_id = esa.exam_attempt_id
        WHERE ${where(t, "ea", scope)} AND ${SUBMITTED}
        GROUP BY ea.exam_id, ea.user_id, ea.actor_role, esa.exam_section_id`,
    ),
  ];
}

/** The exam an exam attempt belongs to, as SQL (for a section's quiz attempt). */
export function examOfAttemptSql(ctx: EventCtx, examAttemptId: string) {
  return sql`(SELECT xa.exam_id FROM exam_attempts xa WHERE xa.id = ${examAttemptId} AND ${inSchool("xa", ctx.tenantId)})`;
}

/** Keeps an exam's figures with the batch that started or finished an attempt of it, or scored one of its sections. */
export const EXAM_FIGURES_CONTRIBUTOR = contentContributor({
  name: "exams.analytics-figures",
  handles: ["attempt.recorded"],
  async statements(ctx, event) {
    return event.attempt === "exam" ? examFiguresRebuild(ctx, { objectId: event.objectId, userId: event.userId }) : [];
  },
});
