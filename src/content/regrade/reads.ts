import { sql, type SQL } from "drizzle-orm";
import { batchable, rowsOf, type BatchItem } from "../../core/db/batch";
import { inSchool, liveInSchool } from "../../core/db/conditions";
import type { SchoolActor, SchoolCtx } from "../../core/http/context";
import type { QuestionType, ScoringMode } from "../../db/schema";
import { attemptSectionsJsonSql } from "../exams/result";
import type { AttemptRowForRegrade, ExamAttemptRowForRegrade, RegradeQuestion } from "./plan";
import type { RegradeMode } from "./schemas";

/**
 * The reads of a regrade (docs/decisions/regrade.md, "Which attempts"). The attempts re-scored are
 * the quiz's submitted attempts (pending review included), inside exam sections only when their
 * exam attempt is finished, that took the
 * question: for `accept_all` and `new_key` those with an answer to it, for `drop` also those whose
 * `max_score` counted it unanswered (their form drew it, or without a form the question existed when
 * they were submitted). An attempt an earlier `drop` of the question already re-scored is left out
 * of every later regrade of that question.
 */

type Ctx = SchoolCtx<SchoolActor>;

export interface QuestionRow {
  id: string;
  quiz_id: string;
  type: QuestionType;
  points_hundredths: number;
  scoring_mode: ScoringMode | null;
  correct_text: string;
  created_at: number;
  quiz_title: string;
  default_scoring_mode: ScoringMode;
  passing_score: number | null;
  answers: string;
  matches: string;
  running: number;
}

/** The live question of a live quiz (or the question whatever its state: `deletedToo`), its live answers and matches, and whether a regrade of its quiz is running. */
/** A running regrade older than this no longer blocks a new one (its queue gave up on it). */
export const STALE_AFTER_MS = 60 * 60 * 1000;

/** SQL true when a regrade of the quiz is running (and not stale). */
export function runningSql(ctx: Ctx, quizId: string | SQL, now: number): SQL {
  return sql`EXISTS (SELECT 1 FROM quiz_regrades rr WHERE ${inSchool("rr", ctx.tenantId)} AND rr.quiz_id = ${quizId} AND rr.status = 'running'
    AND rr.created_at > ${now - STALE_AFTER_MS})`;
}

export function questionRead(ctx: Ctx, questionId: string, options: { deletedToo?: boolean } = {}): BatchItem {
  const t = ctx.tenantId;
  // A queued chunk still re-scores under the regrade it was given when the question or quiz was deleted since.
  const live = (alias: string) => (options.deletedToo ? inSchool(alias, t) : liveInSchool(alias, t));
  return batchable(
    ctx,
    sql`SELECT qq.id, qq.quiz_id, qq.type, qq.points_hundredths, qq.scoring_mode, qq.correct_text, qq.created_at,
        qz.title AS quiz_title, qz.default_scoring_mode, qz.passing_score,
        (SELECT COALESCE(json_group_array(json_object('id', qa.id, 'is_correct', qa.is_correct)), '[]')
          FROM (SELECT qa.id, qa.is_correct FROM quiz_answers qa WHERE ${liveInSchool("qa", t)} AND qa.question_id = qq.id ORDER BY qa.position, qa.id) qa) AS answers,
        (SELECT COALESCE(json_group_array(json_object('id', qm.id, 'has_left', qm.left_text IS NOT NULL AND qm.left_text <> '')), '[]')
          FROM quiz_matches qm WHERE ${liveInSchool("qm", t)} AND qm.question_id = qq.id) AS matches,
        ${runningSql(ctx, sql`qq.quiz_id`, ctx.clock.now())} AS running
      FROM quiz_questions qq JOIN quizzes qz ON qz.id = qq.quiz_id AND ${live("qz")}
      WHERE qq.id = ${questionId} AND ${live("qq")}`,
  );
}

/** The question as scoring reads it; `key` replaces its key (a `new_key` regrade's). */
export function regradeQuestion(row: QuestionRow, key?: { correctAnswerIds?: readonly string[]; correctText?: readonly string[] }): RegradeQuestion {
  const answers = (JSON.parse(row.answers) as { id: string; is_correct: number }[]).map((answer) => ({
    id: answer.id,
    isCorrect: key?.correctAnswerIds ? key.correctAnswerIds.includes(answer.id) : answer.is_correct === 1,
  }));
  const matches = (JSON.parse(row.matches) as { id: string; has_left: number }[]).map((match) => ({ id: match.id, hasLeft: match.has_left === 1 }));
  return {
    id: row.id,
    type: row.type,
    pointsHundredths: row.points_hundredths,
    scoringMode: row.scoring_mode,
    answers,
    correctText: key?.correctText ?? (JSON.parse(row.correct_text) as string[]),
    matches,
    quizTitle: row.quiz_title,
    defaultMode: row.default_scoring_mode,
    passingScore: row.passing_score,
  };
}

/** SQL true when attempt `a` has an answer to the question. */
function answered(ctx: Ctx, questionId: string): SQL {
  return sql`EXISTS (SELECT 1 FROM quiz_attempt_answers ta WHERE ${inSchool("ta", ctx.tenantId)} AND ta.attempt_id = a.id AND ta.question_id = ${questionId})`;
}

/** SQL true when attempt `a` took the question in the sense of `mode` and no earlier drop re-scored it. */
export function tookQuestion(ctx: Ctx, question: { id: string; created_at: number }, mode: RegradeMode): SQL {
  const t = ctx.tenantId;
  const drew = sql`(${answered(ctx, question.id)}
    OR (a.form_question_ids IS NOT NULL AND ${question.id} IN (SELECT value FROM json_each(a.form_question_ids)))
    OR (a.form_question_ids IS NULL AND a.submitted_at >= ${question.created_at}))`;
  const dropped = sql`EXISTS (SELECT 1 FROM quiz_regrade_items di JOIN quiz_regrades dr ON dr.id = di.regrade_id AND ${inSchool("dr", t)}
    WHERE ${inSchool("di", t)} AND di.attempt_id = a.id AND di.applied_at IS NOT NULL AND dr.question_id = ${question.id} AND dr.mode = 'drop')`;
  return sql`${mode === "drop" ? drew : answered(ctx, question.id)} AND NOT ${dropped}`;
}

/**
 * SQL true when attempt `a` is settled for a regrade: submitted, and inside an exam section only
 * once its exam attempt is finished (an exam in progress scores its sections at its finish).
 */
export function settledForRegrade(ctx: Ctx): SQL {
  return sql`a.status = 'submitted' AND (a.exam_attempt_id IS NULL
    OR EXISTS (SELECT 1 FROM exam_attempts sx WHERE sx.id = a.exam_attempt_id AND ${inSchool("sx", ctx.tenantId)} AND sx.status = 'submitted'))`;
}

/** The columns of `AttemptRowForRegrade` over attempt `a` and its answer `ans` (LEFT JOIN) to the question. */
function rowColumns(ctx: Ctx, questionId: string): SQL {
  return sql`a.id, a.user_id, a.actor_role, a.exam_attempt_id, a.score_hundredths, a.max_score_hundredths, a.score_pct_hundredths, a.passed,
    (SELECT count(*) FROM quiz_attempt_answers op WHERE ${inSchool("op", ctx.tenantId)} AND op.attempt_id = a.id
      AND op.question_id <> ${questionId} AND op.awarded_hundredths IS NULL) AS other_pending,
    ans.id IS NOT NULL AS has_answer, ans.payload, ans.awarded_hundredths, ans.is_correct, ans.graded_by`;
}

function answerJoin(ctx: Ctx, questionId: string): SQL {
  return sql`LEFT JOIN quiz_attempt_answers ans ON ${inSchool("ans", ctx.tenantId)} AND ans.attempt_id = a.id AND ans.question_id = ${questionId}`;
}

/** The attempts a regrade of the question would re-score now (the dry run, and the plan a real run answers with). */
export function candidatesRead(ctx: Ctx, question: QuestionRow, mode: RegradeMode): BatchItem {
  return batchable(
    ctx,
    sql`SELECT ${rowColumns(ctx, question.id)} FROM quiz_attempts a ${answerJoin(ctx, question.id)}
      WHERE ${inSchool("a", ctx.tenantId)} AND a.quiz_id = ${question.quiz_id} AND ${settledForRegrade(ctx)}
        AND ${tookQuestion(ctx, question, mode)}
      ORDER BY a.id`,
  );
}

/** The next `limit` attempts of the regrade not re-scored yet. */
export function chunkRead(ctx: Ctx, input: { regradeId: string; questionId: string; limit: number }): BatchItem {
  return batchable(
    ctx,
    sql`SELECT ${rowColumns(ctx, input.questionId)}
      FROM quiz_regrade_items i JOIN quiz_attempts a ON a.id = i.attempt_id AND ${inSchool("a", ctx.tenantId)} ${answerJoin(ctx, input.questionId)}
      WHERE ${inSchool("i", ctx.tenantId)} AND i.regrade_id = ${input.regradeId} AND i.applied_at IS NULL
      ORDER BY i.attempt_id LIMIT ${input.limit}`,
  );
}

/** The finished exam attempts of the given section quiz attempts' rows, with their exam and sections (`ExamAttemptRowForRegrade`). */
export function examAttemptsRead(ctx: Ctx, rows: readonly AttemptRowForRegrade[]): BatchItem[] {
  const ids = [...new Set(rows.flatMap((row) => (row.exam_attempt_id ? [row.exam_attempt_id] : [])))];
  if (ids.length === 0) return [];
  const t = ctx.tenantId;
  return [
    batchable(
      ctx,
      sql`SELECT ea.id, ea.exam_id, ea.user_id, ea.actor_role, ea.final_score_pct_hundredths, ea.passed, e.title, e.passing_score,
          ${attemptSectionsJsonSql(t, sql`ea.exam_id`, sql`ea.id`)} AS sections
        FROM exam_attempts ea JOIN exams e ON e.id = ea.exam_id AND ${inSchool("e", t)}
        WHERE ${inSchool("ea", t)} AND ea.status = 'submitted' AND ea.id IN (SELECT value FROM json_each(${JSON.stringify(ids)}))
        ORDER BY ea.id`,
    ),
  ];
}

export const examRowsFor = rowsOf<ExamAttemptRowForRegrade>;

export interface RegradeRow {
  id: string;
  quiz_id: string;
  question_id: string;
  seq: number;
  mode: RegradeMode;
  points_hundredths: number;
  status: "running" | "done";
}

export function regradeRead(ctx: Ctx, regradeId: string): BatchItem {
  return batchable(
    ctx,
    sql`SELECT r.id, r.quiz_id, r.question_id, r.seq, r.mode, r.points_hundredths, r.status FROM quiz_regrades r
      WHERE r.id = ${regradeId} AND ${inSchool("r", ctx.tenantId)}`,
  );
}

export const rowsFor = rowsOf<AttemptRowForRegrade>;
