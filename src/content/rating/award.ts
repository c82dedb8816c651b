import { sql, type SQL } from "drizzle-orm";
import { batchable, type BatchItem } from "../../core/db/batch";
import { sqlLiteral, sqlUuidv7 } from "../../core/db/sql-ids";
import type { SchoolCtx, SchoolActor } from "../../core/http/context";
import { localDate } from "../../core/lib/clock";
import { uuidv7 } from "../../core/lib/ids";
import type { RatingSourceType } from "../../db/schema";
import { eventDefinition } from "../../platform/notifications/catalog";
import { enqueue } from "../../platform/notifications/enqueue";
import { schoolEvent } from "../../platform/notifications/settings";
import { decimalTextSql } from "../../core/db/decimal";
import { schoolRankForSql, schoolTotalSql } from "./ranking";
import { OBJECT_TABLES } from "./labels";
import { effectiveRuleSql } from "./rules";
import { inSchool, liveInSchool } from "../../core/db/conditions";
import { pointsChangedWebhooks } from "./webhooks";

/**
 * The one point-event writer (docs/decisions/rating.md, "Awards"): statements for the batch of the source
 * event itself, so the award lands with the state change or not at all. The sources reach them as
the contributors of src/content/rating/contributors.ts (docs/domain-events.md): `rating.scored-awards`
for a settled attempt or an accepted submission, `rating.completion-awards` for completions. Use:
 *
 *   prefetchSchoolEvents(ctx, tenantId, [...mine, ...RATING_RULE_EVENTS])   // in the caller's READ batch, then
 *   prefetch.remember(results)                                              // so the pushes cost no round trip
 *   writes.push(...(await scoredAward(ctx, award)))                         // quiz, assignment, exam
 *   writes.push(...(await completionAwards(ctx, { studentId, now })))       // lesson, module, course, after the batch's completions
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

export type AwardCtx = SchoolCtx<SchoolActor>;

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

/** Ids and instants go into the award statements as literals (see `sqlLiteral`): the pushes name them many times over. */
const lit = sqlLiteral;

/**
 * One INSERT … SELECT over the source rows. Each layer names what the next one reads, so the rule's
 * columns and the threshold are evaluated (and bound) once: `r` the effective rule beside each
 * row, `t` its threshold, `m` whether the score meets it, `a` the amount and eligibility, and the
 * outer SELECT the delta against what the student holds for the object. The numbers are cast to
 * INTEGER first: D1 binds a JavaScript number (a built-in rule's points, an assignment's score %)
 * as REAL, and `raw`'s half-up rounding relies on integer division.
 */
function insertAwards(ctx: AwardCtx, rows: SourceRows, id: string | SQL, now: number): BatchItem {
  const tenant = lit(ctx.tenantId);
  const student = lit(rows.studentId);
  const { sourceType } = rows;
  const rule = effectiveRuleSql(ctx.tenantId, sourceType, sql`x.target_id`);
  const earlier = sql`FROM point_events pe WHERE ${inSchool("pe", tenant)} AND pe.student_id = ${student} AND pe.source_type = ${lit(sourceType)} AND pe.target_id = a.target_id`;
  return batchable(
    ctx,
    sql`INSERT INTO point_events (id, tenant_id, student_id, source_type, target_id, source_key, points_hundredths, rule_id, reason, actor_user_id, awarded_at)
      SELECT ${id}, ${tenant}, ${student}, ${lit(sourceType)}, d.target_id, d.source_key, d.delta, d.rule_id, NULL, NULL, ${lit(now)}
      FROM (SELECT a.target_id, a.source_key, a.rule_id, a.repeat_behavior, a.eligible,
              EXISTS (SELECT 1 ${earlier}) AS awarded_before,
              a.amount - CASE WHEN a.repeat_behavior IN ('overwrite', 'overwrite_if_higher') THEN (SELECT COALESCE(SUM(pe.points_hundredths), 0) ${earlier}) ELSE 0 END AS delta
            FROM (SELECT m.target_id, m.source_key, m.rule_id, m.repeat_behavior,
                    CASE m.calc_mode WHEN 'raw' THEN (2 * m.points * m.pct + 10000) / 20000
                      WHEN 'above_threshold' THEN CASE WHEN m.met THEN m.points ELSE 0 END ELSE m.points END AS amount,
                    m.enabled = 1 AND (m.award_only_if_passed = 0 OR CASE WHEN m.passed IS NULL THEN m.met ELSE m.passed = 1 END) AS eligible
                  FROM (SELECT t.*, (t.threshold IS NULL OR t.pct >= t.threshold) AS met
                        FROM (SELECT r.*, CASE r.threshold_source WHEN 'rule_specified' THEN r.threshold_value
                                WHEN 'passing_score' THEN r.passing_score * 100 ELSE COALESCE(r.passing_score * 100, r.threshold_value) END AS threshold
                              FROM (SELECT x.target_id, x.source_key, CAST(x.pct AS INTEGER) AS pct, CAST(x.passed AS INTEGER) AS passed,
                                      CAST(x.passing_score AS INTEGER) AS passing_score, ${rule.id} AS rule_id, CAST(${rule.enabled} AS INTEGER) AS enabled,
                                      CAST(${rule.points} AS INTEGER) AS points, ${rule.calcMode} AS calc_mode, ${rule.thresholdSource} AS threshold_source,
                                      CAST(${rule.thresholdValue} AS INTEGER) AS threshold_value, CAST(${rule.awardOnlyIfPassed} AS INTEGER) AS award_only_if_passed,
                                      ${rule.repeatBehavior} AS repeat_behavior
                                    FROM (${rows.select}) x ${rule.joins}) r) t) m) a) d
      WHERE d.eligible AND d.delta <> 0
        AND NOT (d.repeat_behavior = 'ignore' AND d.awarded_before)
        AND NOT (d.repeat_behavior = 'overwrite_if_higher' AND d.delta < 0)
      ON CONFLICT (tenant_id, source_key) DO NOTHING`,
  );
}

/**
 * #63 to the student, about the call's event `eventId`, when `callPoints` (SQL: the hundredths this call's events added, NULL or 0 when
 * none) took the school rank from above 10 to 10 or better. The rank before is the rank the total
 * without those points would have.
 */
export async function topEnteredPush(ctx: AwardCtx, studentId: string, eventId: string | SQL, callPoints: SQL, now: number): Promise<BatchItem> {
  const { tenantId } = ctx;
  const total = schoolTotalSql(tenantId, lit(studentId));
  const rankAfter = schoolRankForSql(tenantId, lit(studentId), total);
  const rankBefore = schoolRankForSql(tenantId, lit(studentId), sql`${total} - COALESCE(${callPoints}, 0)`);
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

/** #60 for the point event `eventId` (SQL or id, of `sourceType`) when it exists and is positive. */
function pointsAwardedPush(ctx: AwardCtx, sourceType: Exclude<RatingSourceType, "manual">, studentId: string, eventId: string | SQL): Promise<BatchItem> {
  const tenant = lit(ctx.tenantId);
  const event = typeof eventId === "string" ? lit(eventId) : eventId;
  const points = sql`(SELECT ev.points_hundredths FROM point_events ev WHERE ${inSchool("ev", tenant)} AND ev.id = ${event})`;
  // The object's title, deleted objects included (the event outlives them).
  const label = sql`(SELECT lt.title FROM ${sql.raw(OBJECT_TABLES[sourceType])} lt WHERE ${inSchool("lt", tenant)}
      AND lt.id = (SELECT ev.target_id FROM point_events ev WHERE ${inSchool("ev", tenant)} AND ev.id = ${event}))`;
  return enqueue(
    ctx,
    "rating.points_awarded",
    { token: "student", studentId },
    {
      points: decimalTextSql(points),
      target_label: label,
      total_points: decimalTextSql(schoolTotalSql(ctx.tenantId, lit(studentId))),
    },
    { id: event },
    sql`'rating.points_awarded:' || ${event}`,
    { when: sql`${points} > 0` },
  );
}

/** The award of a scored source event (a quiz attempt, an accepted submission, an exam attempt) and its pushes. */
export async function scoredAward(ctx: AwardCtx, award: ScoredAward): Promise<BatchItem[]> {
  const now = ctx.clock.now();
  const id = uuidv7();
  const select = sql`SELECT ${award.targetId} AS target_id, ${award.sourceKey} AS source_key, (${award.scorePct}) AS pct,
      (${award.passed}) AS passed, (${award.passingScore}) AS passing_score WHERE ${award.when}`;
  const callPoints = sql`(SELECT cp.points_hundredths FROM point_events cp WHERE ${inSchool("cp", lit(ctx.tenantId))} AND cp.id = ${lit(id)})`;
  return [
    insertAwards(ctx, { sourceType: award.sourceType, studentId: award.studentId, select }, lit(id), now),
    ...pointsChangedWebhooks(ctx, sql`wp.id = ${lit(id)}`),
    await pointsAwardedPush(ctx, award.sourceType, award.studentId, id),
    await topEnteredPush(ctx, award.studentId, id, callPoints, now),
  ];
}

const COMPLETION_TYPES = ["lesson", "module", "course"] as const;

/**
 * The lesson, module and course awards of the student's block completions written by this batch
 * (`completed_at` = `now`, the very value the completions were written with: two reads of a
 * production clock may differ by a millisecond), for after those inserts and the enrollments'
 * recount: a lesson whose live blocks are all completed, a module likewise, a course whose
 * enrollment is completed. Each counts as 100 % and passed, once per object and student
 * (`lesson:<id>:<student>`). One #60 per source type tells of the first such event of the batch.
 */
export async function completionAwards(ctx: AwardCtx, input: { studentId: string; now: number }): Promise<BatchItem[]> {
  const tenant = lit(ctx.tenantId);
  const student = lit(input.studentId);
  const at = lit(input.now);
  const { studentId, now } = input;
  const fresh = (column: string) =>
    sql`SELECT ${sql.raw(`nb.${column}`)} FROM block_completions nb WHERE ${inSchool("nb", tenant)} AND nb.student_id = ${student} AND nb.completed_at = ${at}`;
  const allDone = (column: string, id: SQL) => sql`NOT EXISTS (SELECT 1 FROM blocks ob WHERE ${inSchool("ob", tenant)} AND ${sql.raw(`ob.${column}`)} = ${id} AND ob.deleted_at IS NULL
      AND NOT EXISTS (SELECT 1 FROM block_completions oc WHERE ${inSchool("oc", tenant)} AND oc.block_id = ob.id AND oc.student_id = ${student}))`;
  const row = (type: string, id: SQL) => sql`${id} AS target_id, ${lit(`${type}:`)} || ${id} || ${lit(`:${studentId}`)} AS source_key, 10000 AS pct, 1 AS passed, NULL AS passing_score`;
  const selects: Record<(typeof COMPLETION_TYPES)[number], SQL> = {
    lesson: sql`SELECT ${row("lesson", sql`l.id`)} FROM lessons l
      WHERE ${liveInSchool("l", tenant)} AND l.id IN (${fresh("lesson_id")}) AND ${allDone("lesson_id", sql`l.id`)}`,
    module: sql`SELECT ${row("module", sql`m.id`)} FROM course_modules m
      WHERE ${liveInSchool("m", tenant)} AND ${allDone("module_id", sql`m.id`)}
        AND m.id IN (SELECT fb.module_id FROM blocks fb WHERE ${inSchool("fb", tenant)} AND fb.id IN (${fresh("block_id")}))`,
    course: sql`SELECT ${row("course", sql`c.id`)} FROM courses c
      WHERE ${liveInSchool("c", tenant)} AND c.id IN (${fresh("course_id")})
        AND EXISTS (SELECT 1 FROM enrollments ce WHERE ${inSchool("ce", tenant)} AND ce.course_id = c.id AND ce.student_id = ${student}
          AND ce.removed_at IS NULL AND ce.completed_at IS NOT NULL)`,
  };
  const statements: BatchItem[] = [];
  for (const type of COMPLETION_TYPES) {
    statements.push(insertAwards(ctx, { sourceType: type, studentId, select: selects[type] }, sqlUuidv7(now), now));
    const first = sql`(SELECT fe.id FROM point_events fe WHERE ${inSchool("fe", tenant)} AND fe.student_id = ${student} AND fe.source_type = ${lit(type)}
        AND fe.awarded_at = ${at} AND fe.points_hundredths > 0 ORDER BY fe.id LIMIT 1)`;
    statements.push(await pointsAwardedPush(ctx, type, studentId, first));
  }
  const ofBatch = sql`FROM point_events cp WHERE ${inSchool("cp", tenant)} AND cp.student_id = ${student} AND cp.awarded_at = ${at}
      AND cp.source_type IN ('lesson', 'module', 'course')`;
  // One call for the three types: the point events this batch wrote for the student's completions.
  statements.push(...pointsChangedWebhooks(ctx, sql`wp.student_id = ${student} AND wp.awarded_at = ${at} AND wp.source_type IN ('lesson', 'module', 'course')`));
  const callPoints = sql`(SELECT SUM(cp.points_hundredths) ${ofBatch})`;
  const last = sql`(SELECT cp.id ${ofBatch} ORDER BY cp.id DESC LIMIT 1)`;
  statements.push(await topEnteredPush(ctx, studentId, last, callPoints, now));
  return statements;
}
