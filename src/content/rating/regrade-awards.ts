import { sql, type SQL } from "drizzle-orm";
import { batchable, type BatchItem } from "../../core/db/batch";
import { inSchool, liveInSchool } from "../../core/db/conditions";
import { sqlLiteral, sqlUuidv7 } from "../../core/db/sql-ids";
import type { SchoolActor, SchoolCtx } from "../../core/http/context";
import { effectiveRuleSql } from "./rules";
import { pointsChangedWebhooks } from "./webhooks";

/**
 * The point events of a quiz regrade (05 section 2; docs/decisions/regrade.md, "Rating"). A
 * regrade moves what a student holds for the quiz to what the effective rule gives their settled
 * attempts as the regrade left them, by one signed event per student: the difference between that
 * recomputation and the sum of their `quiz` events for the quiz. The recomputation follows what the
 * awards did attempt by attempt (rating/award.ts), over the student's settled attempts outside
 * exams in the order they were submitted: `award_each` the sum of the eligible amounts, `ignore`
 * the first eligible non-zero amount, `overwrite` the last eligible amount, `overwrite_if_higher`
 * the highest eligible amount (never below 0). The event is keyed
 * `regrade:<question_id>:<attempt_id>:<n>` (the student's first re-scored attempt of the chunk,
 * `n` the regrade's number for the question), so a retried chunk writes nothing (the key exists and
 * the difference is 0 anyway). No #60/#63: the student is told by `quiz.regraded`. A regrade of a
 * question in exam sections moves the exam's points the same way (source `exam`, the exam's
 * finished attempts and their final percentages; the key names the exam attempt).
 */

export interface RegradeAwards {
  /** `quiz`: the quiz's attempts outside exams; `exam`: the exam's attempts, whose sections the regrade re-scored. */
  source: "quiz" | "exam";
  /** The quiz or the exam. */
  objectId: string;
  questionId: string;
  seq: number;
  /** (student, attempt naming the key) pairs, one per student; none writes nothing. */
  students: readonly (readonly [string, string])[];
  now: number;
}

const lit = sqlLiteral;

/** The quiz's settled student attempts outside exams, as the quiz awards scored them. */
const quizAttempts = (tenant: SQL, quiz: SQL, students: SQL) =>
  sql`SELECT a.user_id, a.id, a.submitted_at, CAST(COALESCE(a.score_pct_hundredths, 0) AS INTEGER) AS pct, CAST(a.passed AS INTEGER) AS passed,
      CAST(q.passing_score AS INTEGER) AS passing_score
    FROM quiz_attempts a JOIN quizzes q ON q.id = a.quiz_id AND ${liveInSchool("q", tenant)}
    WHERE ${inSchool("a", tenant)} AND a.quiz_id = ${quiz} AND a.status = 'submitted' AND a.pending_review = 0
      AND a.actor_role = 'student' AND a.exam_attempt_id IS NULL
      AND a.user_id IN (SELECT st.student_id FROM (${students}) st)`;

/**
 * The exam's finished student attempts, as the exam's award scored them (its final percentage and
 * pass). A deleted exam's too: its sections' quiz may outlive it, and the points its attempts
 * earned follow their corrected figures rather than leave.
 */
const examAttempts = (tenant: SQL, exam: SQL, students: SQL) =>
  sql`SELECT a.user_id, a.id, a.submitted_at, CAST(COALESCE(a.final_score_pct_hundredths, 0) AS INTEGER) AS pct, CAST(a.passed AS INTEGER) AS passed,
      CAST(q.passing_score AS INTEGER) AS passing_score
    FROM exam_attempts a JOIN exams q ON q.id = a.exam_id AND ${inSchool("q", tenant)}
    WHERE ${inSchool("a", tenant)} AND a.exam_id = ${exam} AND a.status = 'submitted' AND a.actor_role = 'student'
      AND a.user_id IN (SELECT st.student_id FROM (${students}) st)`;

/**
 * The regrade's signed events and their `rating.points_changed` webhook events, for the chunk's
 * batch. The events are found by their key's two fixed ends, not by LIKE: D1 refuses a LIKE pattern
 * over 50 bytes, which `regrade:<uuid>:%:<n>` passes from the 1,000th regrade of a question.
 */
export function regradeAwardsStatements(ctx: SchoolCtx<SchoolActor>, input: RegradeAwards): BatchItem[] {
  if (input.students.length === 0) return [];
  const prefix = `regrade:${input.questionId}:`;
  const suffix = `:${input.seq}`;
  return [
    regradeAwardsStatement(ctx, input),
    ...pointsChangedWebhooks(
      ctx,
      sql`wp.source_type = ${input.source} AND wp.target_id = ${input.objectId} AND wp.awarded_at = ${input.now}
        AND substr(wp.source_key, 1, ${prefix.length}) = ${prefix} AND substr(wp.source_key, ${-suffix.length}) = ${suffix}`,
    ),
  ];
}

function regradeAwardsStatement(ctx: SchoolCtx<SchoolActor>, input: RegradeAwards): BatchItem {
  const tenant = lit(ctx.tenantId);
  const students = sql`SELECT value ->> '$[0]' AS student_id, value ->> '$[1]' AS attempt_id FROM json_each(${JSON.stringify(input.students)})`;
  const object = lit(input.objectId);
  const rule = effectiveRuleSql(ctx.tenantId, input.source, object);
  const threshold = sql`CASE r.threshold_source WHEN 'rule_specified' THEN r.threshold_value
      WHEN 'passing_score' THEN x.passing_score * 100 ELSE COALESCE(x.passing_score * 100, r.threshold_value) END`;
  const met = sql`(${threshold} IS NULL OR x.pct >= ${threshold})`;
  const amount = sql`CASE r.calc_mode WHEN 'raw' THEN (2 * r.points * x.pct + 10000) / 20000
      WHEN 'above_threshold' THEN CASE WHEN ${met} THEN r.points ELSE 0 END ELSE r.points END`;
  const eligible = sql`(r.enabled = 1 AND (r.award_only_if_passed = 0 OR CASE WHEN x.passed IS NULL THEN ${met} ELSE x.passed = 1 END))`;
  const ofStudent = sql`FROM amounts m WHERE m.user_id = s.student_id AND m.eligible`;
  const target = sql`CASE (SELECT r.repeat_behavior FROM rule r)
      WHEN 'award_each' THEN COALESCE((SELECT SUM(m.amount) ${ofStudent}), 0)
      WHEN 'ignore' THEN COALESCE((SELECT m.amount ${ofStudent} AND m.amount <> 0 ORDER BY m.submitted_at, m.id LIMIT 1), 0)
      WHEN 'overwrite' THEN COALESCE((SELECT m.amount ${ofStudent} ORDER BY m.submitted_at DESC, m.id DESC LIMIT 1), 0)
      ELSE MAX(0, COALESCE((SELECT MAX(m.amount) ${ofStudent}), 0)) END`;
  const held = sql`(SELECT COALESCE(SUM(pe.points_hundredths), 0) FROM point_events pe
      WHERE ${inSchool("pe", tenant)} AND pe.student_id = s.student_id AND pe.source_type = ${lit(input.source)} AND pe.target_id = ${object})`;
  return batchable(
    ctx,
    sql`WITH rule AS (
          SELECT ${rule.id} AS id, CAST(${rule.enabled} AS INTEGER) AS enabled, CAST(${rule.points} AS INTEGER) AS points, ${rule.calcMode} AS calc_mode,
            ${rule.thresholdSource} AS threshold_source, CAST(${rule.thresholdValue} AS INTEGER) AS threshold_value,
            CAST(${rule.awardOnlyIfPassed} AS INTEGER) AS award_only_if_passed, ${rule.repeatBehavior} AS repeat_behavior
          FROM (SELECT 1) ${rule.joins}),
        amounts AS (
          SELECT x.user_id, x.id, x.submitted_at, ${amount} AS amount, ${eligible} AS eligible
          FROM (${input.source === "quiz" ? quizAttempts(tenant, object, students) : examAttempts(tenant, object, students)}) x, rule r)
      INSERT INTO point_events (id, tenant_id, student_id, source_type, target_id, source_key, points_hundredths, rule_id, reason, actor_user_id, awarded_at)
      SELECT ${sqlUuidv7(input.now)}, ${tenant}, d.student_id, ${lit(input.source)}, ${object}, d.source_key, d.delta, (SELECT r.id FROM rule r), NULL, NULL, ${lit(input.now)}
      FROM (SELECT s.student_id, ${lit(`regrade:${input.questionId}:`)} || s.attempt_id || ${lit(`:${input.seq}`)} AS source_key, ${target} - ${held} AS delta
            FROM (${students}) s) d
      WHERE d.delta <> 0
      ON CONFLICT (tenant_id, source_key) DO NOTHING`,
  );
}
