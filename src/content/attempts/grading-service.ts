import { sql, type SQL } from "drizzle-orm";
import { batchable, rowsOf, runBatch, type BatchItem } from "../../core/db/batch";
import { decimalTextSql, formatHundredths } from "../../core/db/decimal";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { uuidv7 } from "../../core/lib/ids";
import { restrictedScope, scopeCondition } from "../../platform/schools/curator-scope";
import { eventDefinition } from "../../platform/notifications/catalog";
import { dispatchQueued, enqueue } from "../../platform/notifications/enqueue";
import { prefetchSchoolEvents } from "../../platform/notifications/settings";
import { attemptsErrors as e } from "./errors";
import type { GradeBody } from "./grading-schemas";
import { answerRowsSql, ATTEMPT_COLUMNS, attemptRowSql, presentSubmitted, type AnswerRow, type AttemptRow } from "./present";
import { prepareSettle, settleStatements, type SettleTarget } from "./settle";
import { inSchool } from "../../core/db/conditions";
import { gradedAnswersRead, gradedAudit, type GradedAnswerRow } from "./grading-audit";

/**
 * `POST /attempts/:id/grade` (view_analytics; a restricted curator only for their own students):
 * a curator sets the awarded points (and feedback) of answers of a submitted attempt, and the
 * attempt is settled again from its stored answers (settle.ts): score, percentage, pending review,
 * passed, the quiz_ref completions a pass brings, and the quiz events. Once no answer is left
 * pending the student is told (#39 `quiz.graded`).
 *
 * Round trips: the attempt and the gradable questions (one batch), what settling reads (one batch,
 * students' attempts only), then one write batch that also reads the attempt back.
 */

const GRADED = eventDefinition("quiz.graded")!;

interface GradableQuestion {
  id: string;
  points_hundredths: number;
}

interface Grade {
  questionId: string;
  awardedHundredths: number;
  isCorrect: boolean;
  /** Undefined: the answer keeps its feedback. */
  feedback?: string | null;
}

/**
 * The questions of the attempt's quiz a grade may name: the live ones (of its form, when it has one), and deleted ones the attempt
 * answered (an answer waiting for review must stay gradable, or the attempt could never settle).
 */
function gradableQuestionsSql(ctx: SchoolCtx, attemptId: string): SQL {
  const { tenantId } = ctx;
  return sql`SELECT q.id, q.points_hundredths FROM quiz_questions q
    WHERE ${inSchool("q", tenantId)}
      AND q.quiz_id = (SELECT ga.quiz_id FROM quiz_attempts ga WHERE ga.id = ${attemptId} AND ${inSchool("ga", tenantId)})
      AND ((q.deleted_at IS NULL AND ${inFormSql(ctx, attemptId)})
        OR EXISTS (SELECT 1 FROM quiz_attempt_answers gq WHERE ${inSchool("gq", tenantId)} AND gq.attempt_id = ${attemptId} AND gq.question_id = q.id))`;
}

/** The question `q` is in the attempt's form, or the attempt has none (docs/decisions/quizzes.md, "Random forms"). */
function inFormSql(ctx: SchoolCtx, attemptId: string): SQL {
  const form = sql`(SELECT fa.form_question_ids FROM quiz_attempts fa WHERE fa.id = ${attemptId} AND ${inSchool("fa", ctx.tenantId)})`;
  return sql`(${form} IS NULL OR q.id IN (SELECT value FROM json_each(${form})))`;
}

/** The checks of the body against the quiz, in the contract's order of identifiers. */
function checkedGrades(body: GradeBody, questions: readonly GradableQuestion[]): Grade[] {
  const points = new Map(questions.map((question) => [question.id, question.points_hundredths]));
  const unknown = body.grades.find((grade) => !points.has(grade.question_id));
  if (unknown) throw new ApiError(e.QUESTION_NOT_IN_QUIZ, { message: `Question ${unknown.question_id} is not a question of this quiz.` });
  return body.grades.map((grade) => {
    const max = points.get(grade.question_id)!;
    if (grade.awarded_points < 0 || grade.awarded_points > max) {
      throw new ApiError(e.POINTS_OUT_OF_RANGE, { message: `awarded_points for question ${grade.question_id} must be between 0.00 and ${formatHundredths(max)}.` });
    }
    const out: Grade = { questionId: grade.question_id, awardedHundredths: grade.awarded_points, isCorrect: grade.awarded_points === max };
    if (grade.feedback !== undefined) out.feedback = grade.feedback === null || grade.feedback === "" ? null : grade.feedback;
    return out;
  });
}

/**
 * One statement for every grade: the answer gets its points, verdict, feedback, grader and time; a
 * question the attempt left unanswered gets an answer row (payload `{}`). An answer whose grade
 * and feedback are what it already has is left untouched, so a retried request changes nothing.
 */
function gradesStatement(ctx: SchoolCtx, attempt: AttemptRow, grades: readonly Grade[], now: number): BatchItem {
  const { tenantId } = ctx;
  const items = grades.map((grade) => ({
    id: uuidv7(),
    question_id: grade.questionId,
    awarded: grade.awardedHundredths,
    correct: grade.isCorrect ? 1 : 0,
    ...(grade.feedback !== undefined ? { feedback: grade.feedback } : {}),
  }));
  // A feedback left out keeps the stored one: the new row's value is then the current value.
  const feedback = sql`CASE WHEN json_type(g.value, '$.feedback') IS NULL
      THEN (SELECT cf.feedback FROM quiz_attempt_answers cf WHERE cf.tenant_id = a.tenant_id AND cf.attempt_id = a.id AND cf.question_id = g.value ->> '$.question_id')
      ELSE g.value ->> '$.feedback' END`;
  return batchable(
    ctx,
    sql`INSERT INTO quiz_attempt_answers (id, tenant_id, attempt_id, quiz_id, user_id, question_id, payload, client_seq,
        awarded_hundredths, is_correct, feedback, graded_by, graded_at, saved_at)
      SELECT g.value ->> '$.id', a.tenant_id, a.id, a.quiz_id, a.user_id, g.value ->> '$.question_id', '{}', NULL,
        g.value ->> '$.awarded', g.value ->> '$.correct', ${feedback}, ${ctx.actor.userId}, ${now}, ${now}
      FROM json_each(${JSON.stringify(items)}) g
        JOIN quiz_attempts a ON a.id = ${attempt.id} AND ${inSchool("a", tenantId)} AND a.status = 'submitted'
      WHERE true
      ON CONFLICT (attempt_id, question_id) DO UPDATE SET
        awarded_hundredths = excluded.awarded_hundredths,
        is_correct = excluded.is_correct,
        feedback = excluded.feedback,
        graded_by = excluded.graded_by,
        graded_at = excluded.graded_at
      WHERE quiz_attempt_answers.graded_at IS NULL
        OR quiz_attempt_answers.awarded_hundredths IS NOT excluded.awarded_hundredths
        OR quiz_attempt_answers.feedback IS NOT excluded.feedback`,
  );
}

/**
 * #39 to the student once this call has graded something and no answer is left pending. Only a
 * student's own attempt outside an exam tells anyone (as settling does). The key carries the
 * grading time (`graded_at`), so a later regrade tells the student again.
 */
async function gradedPush(ctx: SchoolCtx, attempt: AttemptRow, quizTitle: string, now: number): Promise<BatchItem[]> {
  if (attempt.actor_role !== "student" || attempt.exam_attempt_id !== null) return [];
  const { tenantId } = ctx;
  const column = (name: string) => sql`(SELECT ${sql.raw(`gv.${name}`)} FROM quiz_attempts gv WHERE gv.id = ${attempt.id} AND ${inSchool("gv", tenantId)})`;
  const when = sql`EXISTS (SELECT 1 FROM quiz_attempts gs WHERE gs.id = ${attempt.id} AND ${inSchool("gs", tenantId)} AND gs.status = 'submitted' AND gs.pending_review = 0)
    AND EXISTS (SELECT 1 FROM quiz_attempt_answers gn WHERE ${inSchool("gn", tenantId)} AND gn.attempt_id = ${attempt.id} AND gn.graded_at = ${now} AND gn.graded_by = ${ctx.actor.userId})`;
  return [
    await enqueue(
      ctx,
      "quiz.graded",
      { token: "student", studentId: attempt.user_id },
      {
        quiz_title: quizTitle,
        score: decimalTextSql(column("score_hundredths")),
        max_score: decimalTextSql(column("max_score_hundredths")),
        score_pct: decimalTextSql(column("score_pct_hundredths")),
      },
      { id: attempt.id },
      `quiz.graded:${attempt.id}:${now}`,
      { when },
    ),
  ];
}

export async function gradeAttempt(ctx: SchoolCtx, input: { attemptId: string; body: GradeBody }) {
  const { tenantId } = ctx;
  const { attemptId } = input;
  const inScope = scopeCondition(sql`a.user_id`, restrictedScope(ctx));
  const prefetch = prefetchSchoolEvents(ctx, tenantId, [GRADED]);
  const reads = await runBatch(ctx, [
    batchable(
      ctx,
      sql`SELECT ${ATTEMPT_COLUMNS}, q.title AS quiz_title
        FROM quiz_attempts a JOIN quizzes q ON q.id = a.quiz_id AND ${inSchool("q", tenantId)}
        WHERE a.id = ${attemptId} AND ${inSchool("a", tenantId)} ${inScope ? sql`AND ${inScope}` : sql``}`,
    ),
    batchable(ctx, gradableQuestionsSql(ctx, attemptId)),
    gradedAnswersRead(ctx, attemptId),
    ...(prefetch.statements as BatchItem[]),
  ]);
  const attempt = rowsOf<AttemptRow & { quiz_title: string }>(reads[0])[0];
  if (!attempt) throw new ApiError(e.ATTEMPT_NOT_FOUND);
  if (attempt.status !== "submitted") throw new ApiError(e.ATTEMPT_NOT_SUBMITTED);
  const grades = checkedGrades(input.body, rowsOf<GradableQuestion>(reads[1]));
  prefetch.remember(reads.slice(3));

  const target: SettleTarget = {
    attemptId,
    quizId: attempt.quiz_id,
    userId: attempt.user_id,
    actorRole: attempt.actor_role,
    examAttemptId: attempt.exam_attempt_id,
  };
  const preparation = prepareSettle(ctx, target);
  const plan = preparation.read(await runBatch(ctx, preparation.statements));
  const now = ctx.clock.now();
  const writes = [
    gradesStatement(ctx, attempt, grades, now),
    ...(await settleStatements(ctx, target, plan)),
    ...(await gradedPush(ctx, attempt, attempt.quiz_title, now)),
    gradedAudit(ctx, { attempt, grades, stored: rowsOf<GradedAnswerRow>(reads[2]), now }),
  ];
  const results = await runBatch(ctx, [...writes, attemptRowSql(ctx, attemptId), answerRowsSql(ctx, attemptId)]);
  await dispatchQueued(ctx);
  const row = rowsOf<AttemptRow>(results[writes.length])[0]!;
  return presentSubmitted(row, rowsOf<AnswerRow>(results[writes.length + 1]), now);
}
