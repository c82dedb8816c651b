import { sql, type SQL } from "drizzle-orm";
import { batchable, type BatchItem } from "../../core/db/batch";
import { sqlUuidv7 } from "../../core/db/sql-ids";
import type { ServiceContext, TenantCtx } from "../../core/http/context";
import { uuidv7 } from "../../core/lib/ids";
import type { RatingSourceType } from "../../db/schema";
import { eventDefinition } from "../../platform/notifications/catalog";
import { enqueue } from "../../platform/notifications/enqueue";
import { schoolEvent } from "../../platform/notifications/settings";
import { decimalTextSql, schoolRankForSql, schoolTotalSql } from "./ranking";
import { effectiveRuleSql } from "./rules";
import { targetLabelSql } from "./labels";

/**
 * The one point-event writer (docs/decisions.md, Rating): statements for the batch of the source
 * event itself, so the award lands with the state change or not at all. Use:
 *
 *   reads.push(...ratingPrefetch(ctx).statements)          // in the caller's READ batch, then
 *   prefetch.remember(results)                             // so the pushes cost no round trip
 *   writes.push(...(await scoredAward(ctx, award)))       // quiz, assignment, exam
 *   writes.push(...(await completionAwards(ctx, who)))    // lesson, module, course, after the batch's completions
 *
 * Each statement applies the effective rule (rules.ts) in SQL when the batch runs: `calc_mode`
 * (`fixed` points; `raw` points × score % / 100, half-up to hundredths; `above_threshold` points when
 * the score % reaches the threshold), `award_only_if_passed`, and `repeat_behavior` against the
 * student's earlier awards for the same object (`ignore`: none yet; `award_each`: always;
 * `overwrite`: the difference to what they hold, either sign; `overwrite_if_higher`: the difference
 * when positive). A zero amount writes nothing. The source event's `source_key` is unique in the
 * school, so a retried or repeated call writes nothing. Totals follow through the triggers of
 * migration 0012. Pushes: #60 `rating.points_awarded` for a positive event, #63
 * `rating.top_entered` when the events of the call take the student's school rank from above 10
 * to 10 or better.
 */

export type AwardCtx = ServiceContext & Pick<TenantCtx, "tenantId">;

export const RATING_RULE_EVENTS = [eventDefinition("rating.points_awarded")!, eventDefinition("rating.top_entered")!];

export interface ScoredAward {
  sourceType: "quiz" | "assignment" | "exam";
  /** The quiz, assignment or exam. */
  targetId: string | SQL;
  studentId: string;
  /** Unique per source event in the school: `quiz_attempt:<id>`, `exam_attempt:<id>`, `submission:<id>:<graded_at>`. */
  sourceKey: string;
  /** SQL: the score in hundredths of a percent (0..10000), read when the batch runs. */
  scorePct: SQL;
  /** SQL 1/0: the attempt passed; NULL (an assignment) compares the score with the rule's threshold. */
  passed: SQL;
  /** SQL: the object's passing score in whole percent, or NULL (none; assignments). */
  passingScore: SQL;
  /** SQL that holds when the batch runs: the source event took effect in this batch. */
  when: SQL;
}

/** Rows the award is computed from: target_id, source_key, pct, passed, passing_score (a SELECT with a WHERE). */
interface SourceRows {
  sourceType: RatingSourceType;
  studentId: string;
  select: SQL;
}

function insertAwards(ctx: AwardCtx, rows: SourceRows, id: string | SQL, now: number): BatchItem {
  const { tenantId } = ctx;
  const { sourceType, studentId } = rows;
  const rule = effectiveRuleSql(tenantId, sourceType, sql`x.target_id`);
  const threshold = sql`(CASE ${rule.thresholdSource} WHEN 'rule_specified' THEN ${rule.thresholdValue}
      WHEN 'passing_score' THEN x.passing_score * 100 ELSE COALESCE(x.passing_score * 100, ${rule.thresholdValue}) END)`;
  const met = sql`(${threshold} IS NULL OR x.pct >= ${threshold})`;
  const passed = sql`(CASE WHEN x.passed IS NULL THEN ${met} ELSE x.passed = 1 END)`;
  const amount = sql`(CASE ${rule.calcMode} WHEN 'raw' THEN (2 * ${rule.points} * x.pct + 10000) / 20000
      WHEN 'above_threshold' THEN CASE WHEN ${met} THEN ${rule.points} ELSE 0 END ELSE ${rule.points} END)`;
  const earlier = sql`FROM point_events pe WHERE pe.tenant_id = ${tenantId} AND pe.student_id = ${studentId} AND pe.source_type = ${sourceType} AND pe.target_id = x.target_id`;
  return batchable(
    ctx,
    sql`INSERT INTO point_events (id, tenant_id, student_id, source_type, target_id, source_key, points_hundredths, rule_id, reason, actor_user_id, awarded_at)
      SELECT ${id}, ${tenantId}, ${studentId}, ${sourceType}, a.target_id, a.source_key, a.delta, a.rule_id, NULL, NULL, ${now}
      FROM (SELECT x.target_id, x.source_key, ${rule.id} AS rule_id, ${rule.repeatBehavior} AS repeat_behavior,
              ${rule.enabled} = 1 AND (${rule.awardOnlyIfPassed} = 0 OR ${passed}) AS eligible,
              EXISTS (SELECT 1 ${earlier}) AS awarded_before,
              ${amount} - CASE WHEN ${rule.repeatBehavior} IN ('overwrite', 'overwrite_if_higher') THEN (SELECT COALESCE(SUM(pe.points_hundredths), 0) ${earlier}) ELSE 0 END AS delta
            FROM (${rows.select}) x ${rule.joins}) a
      WHERE a.eligible AND a.delta <> 0
        AND NOT (a.repeat_behavior = 'ignore' AND a.awarded_before)
        AND NOT (a.repeat_behavior = 'overwrite_if_higher' AND a.delta < 0)
      ON CONFLICT (tenant_id, source_key) DO NOTHING`,
  );
}

/** The school-local calendar date of `now` (the #63 dedupe key names it). */
function localDate(now: number, timeZone: string): string {
  return new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).format(now);
}

/**
 * #63 to the student, about the call's event `eventId`, when `callPoints` (SQL: the hundredths this call's events added, NULL or 0 when
 * none) took the school rank from above 10 to 10 or better. The rank before is the rank the total
 * without those points would have.
 */
export async function topEnteredPush(ctx: AwardCtx, studentId: string, eventId: string | SQL, callPoints: SQL, now: number): Promise<BatchItem> {
  const { tenantId } = ctx;
  const total = schoolTotalSql(tenantId, studentId);
  const rankAfter = schoolRankForSql(tenantId, studentId, total);
  const rankBefore = schoolRankForSql(tenantId, studentId, sql`${total} - COALESCE(${callPoints}, 0)`);
  const school = await schoolEvent(ctx, tenantId, RATING_RULE_EVENTS[1]!);
  return enqueue(
    ctx,
    "rating.top_entered",
    { token: "student", studentId },
    { rank: rankAfter, total_points: decimalTextSql(total) },
    { id: eventId },
    { exact: `rating.top_entered:${studentId}:${localDate(now, school?.timezone ?? "UTC")}` },
    { when: sql`COALESCE(${callPoints}, 0) <> 0 AND ${rankBefore} > 10 AND ${rankAfter} <= 10` },
  );
}

/** #60 for the point event `eventId` (SQL or id) when it exists and is positive. */
function pointsAwardedPush(ctx: AwardCtx, studentId: string, eventId: string | SQL): Promise<BatchItem> {
  const { tenantId } = ctx;
  const column = (name: string) => sql`(SELECT ${sql.raw(`ev.${name}`)} FROM point_events ev WHERE ev.tenant_id = ${tenantId} AND ev.id = ${eventId})`;
  return enqueue(
    ctx,
    "rating.points_awarded",
    { token: "student", studentId },
    {
      points: decimalTextSql(column("points_hundredths")),
      target_label: targetLabelSql(tenantId, column("source_type"), column("target_id")),
      total_points: decimalTextSql(schoolTotalSql(tenantId, studentId)),
    },
    { id: eventId },
    sql`'rating.points_awarded:' || ${eventId}`,
    { when: sql`${column("points_hundredths")} > 0` },
  );
}

/** The award of a scored source event (a quiz attempt, an accepted submission, an exam attempt) and its pushes. */
export async function scoredAward(ctx: AwardCtx, award: ScoredAward): Promise<BatchItem[]> {
  const now = ctx.clock.now();
  const id = uuidv7();
  const select = sql`SELECT ${award.targetId} AS target_id, ${award.sourceKey} AS source_key, (${award.scorePct}) AS pct,
      (${award.passed}) AS passed, (${award.passingScore}) AS passing_score WHERE ${award.when}`;
  const callPoints = sql`(SELECT cp.points_hundredths FROM point_events cp WHERE cp.tenant_id = ${ctx.tenantId} AND cp.id = ${id})`;
  return [
    insertAwards(ctx, { sourceType: award.sourceType, studentId: award.studentId, select }, id, now),
    await pointsAwardedPush(ctx, award.studentId, id),
    await topEnteredPush(ctx, award.studentId, id, callPoints, now),
  ];
}

const COMPLETION_TYPES = ["lesson", "module", "course"] as const;

/**
 * The lesson, module and course awards of the student's block completions written by this batch
 * (`completed_at` = the context clock's now), for after those inserts and the enrollments'
 * recount: a lesson whose live blocks are all completed, a module likewise, a course whose
 * enrollment is completed. Each counts as 100 % and passed, once per object and student
 * (`lesson:<id>:<student>`). One #60 per source type tells of the first such event of the batch.
 */
export async function completionAwards(ctx: AwardCtx, input: { studentId: string }): Promise<BatchItem[]> {
  const { tenantId } = ctx;
  const { studentId } = input;
  const now = ctx.clock.now();
  const fresh = (column: string) =>
    sql`SELECT ${sql.raw(`nb.${column}`)} FROM block_completions nb WHERE nb.tenant_id = ${tenantId} AND nb.student_id = ${studentId} AND nb.completed_at = ${now}`;
  const allDone = (column: string, id: SQL) => sql`NOT EXISTS (SELECT 1 FROM blocks ob WHERE ob.tenant_id = ${tenantId} AND ${sql.raw(`ob.${column}`)} = ${id} AND ob.deleted_at IS NULL
      AND NOT EXISTS (SELECT 1 FROM block_completions oc WHERE oc.tenant_id = ${tenantId} AND oc.block_id = ob.id AND oc.student_id = ${studentId}))`;
  const row = (type: string, id: SQL) => sql`${id} AS target_id, ${`${type}:`} || ${id} || ${`:${studentId}`} AS source_key, 10000 AS pct, 1 AS passed, NULL AS passing_score`;
  const selects: Record<(typeof COMPLETION_TYPES)[number], SQL> = {
    lesson: sql`SELECT ${row("lesson", sql`l.id`)} FROM lessons l
      WHERE l.tenant_id = ${tenantId} AND l.deleted_at IS NULL AND l.id IN (${fresh("lesson_id")}) AND ${allDone("lesson_id", sql`l.id`)}`,
    module: sql`SELECT ${row("module", sql`m.id`)} FROM course_modules m
      WHERE m.tenant_id = ${tenantId} AND m.deleted_at IS NULL AND m.id IN (${fresh("module_id")}) AND ${allDone("module_id", sql`m.id`)}`,
    course: sql`SELECT ${row("course", sql`c.id`)} FROM courses c
      WHERE c.tenant_id = ${tenantId} AND c.deleted_at IS NULL AND c.id IN (${fresh("course_id")})
        AND EXISTS (SELECT 1 FROM enrollments ce WHERE ce.tenant_id = ${tenantId} AND ce.course_id = c.id AND ce.student_id = ${studentId}
          AND ce.removed_at IS NULL AND ce.completed_at IS NOT NULL)`,
  };
  const statements: BatchItem[] = [];
  for (const type of COMPLETION_TYPES) {
    statements.push(insertAwards(ctx, { sourceType: type, studentId, select: selects[type] }, sqlUuidv7(now), now));
    const first = sql`(SELECT fe.id FROM point_events fe WHERE fe.tenant_id = ${tenantId} AND fe.student_id = ${studentId} AND fe.source_type = ${type}
        AND fe.awarded_at = ${now} AND fe.points_hundredths > 0 ORDER BY fe.id LIMIT 1)`;
    statements.push(await pointsAwardedPush(ctx, studentId, first));
  }
  const callPoints = sql`(SELECT SUM(cp.points_hundredths) FROM point_events cp WHERE cp.tenant_id = ${ctx.tenantId} AND cp.student_id = ${studentId}
      AND cp.awarded_at = ${now} AND cp.source_type IN ('lesson', 'module', 'course'))`;
  const last = sql`(SELECT le.id FROM point_events le WHERE le.tenant_id = ${ctx.tenantId} AND le.student_id = ${studentId} AND le.awarded_at = ${now}
      AND le.source_type IN ('lesson', 'module', 'course') ORDER BY le.id DESC LIMIT 1)`;
  statements.push(await topEnteredPush(ctx, studentId, last, callPoints, now));
  return statements;
}
