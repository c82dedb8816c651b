import { sql } from "drizzle-orm";
import { batchable, type BatchItem } from "../../core/db/batch";
import { inSchool } from "../../core/db/conditions";
import { formatHundredthsOrNull } from "../../core/db/decimal";
import type { SchoolCtx } from "../../core/http/context";
import { auditFromRows, rowBoolean, rowDecimal } from "../../platform/audit/from-row";
import type { AttemptRow } from "./present";

/**
 * `quiz_attempt.graded` (docs/decisions/audit.md, "Content actions"): the answers this grading
 * changed (points and feedback, before and after) and the attempt's score, percentage, pass and
 * pending review before and after. The answers before come from the grading's first read batch
 * (`gradedAnswersRead`); the attempt after is read by the entry, which goes after the settling.
 */

export interface GradedAnswerRow {
  question_id: string;
  awarded_hundredths: number | null;
  feedback: string | null;
  graded_at: number | null;
}

/** The attempt's stored answers as the grading's change check needs them. */
export function gradedAnswersRead(ctx: SchoolCtx, attemptId: string): BatchItem {
  return batchable(
    ctx,
    sql`SELECT ga.question_id, ga.awarded_hundredths, ga.feedback, ga.graded_at FROM quiz_attempt_answers ga
      WHERE ${inSchool("ga", ctx.tenantId)} AND ga.attempt_id = ${attemptId}`,
  );
}

interface GradeChange {
  questionId: string;
  awardedHundredths: number;
  feedback?: string | null;
}

type AnswerView = { question_id: string; awarded_points: string | null; feedback: string | null };

/**
 * The answers a grading changes, as its UPDATE decides (a new answer, one never graded, other
 * points or other feedback; left-out feedback keeps the stored one), in the body's order.
 */
function answerChanges(grades: readonly GradeChange[], stored: readonly GradedAnswerRow[]): { before: AnswerView[]; after: AnswerView[] } {
  const byQuestion = new Map(stored.map((row) => [row.question_id, row]));
  const last = new Map(grades.map((grade) => [grade.questionId, grade]));
  const before: AnswerView[] = [];
  const after: AnswerView[] = [];
  for (const grade of last.values()) {
    const row = byQuestion.get(grade.questionId);
    const feedback = grade.feedback !== undefined ? grade.feedback : (row?.feedback ?? null);
    if (row && row.graded_at !== null && row.awarded_hundredths === grade.awardedHundredths && row.feedback === feedback) continue;
    before.push({ question_id: grade.questionId, awarded_points: formatHundredthsOrNull(row?.awarded_hundredths), feedback: row?.feedback ?? null });
    after.push({ question_id: grade.questionId, awarded_points: formatHundredthsOrNull(grade.awardedHundredths), feedback });
  }
  return { before, after };
}

/** The entry, for the grading's write batch after the settling; written only when this call graded an answer. */
export function gradedAudit(
  ctx: SchoolCtx,
  input: { attempt: AttemptRow; grades: readonly GradeChange[]; stored: readonly GradedAnswerRow[]; now: number },
): BatchItem {
  const { attempt, now } = input;
  const column = (name: string) => sql`SELECT ${sql.raw(`ar.${name}`)} FROM quiz_attempts ar WHERE ar.id = ${attempt.id} AND ${inSchool("ar", ctx.tenantId)}`;
  const answers = answerChanges(input.grades, input.stored);
  return auditFromRows(ctx, {
    always: true,
    action: "quiz_attempt.graded",
    targetType: "quiz_attempt",
    targetId: attempt.id,
    summary: "Quiz attempt graded",
    changes: {
      answers: [answers.before, answers.after],
      score: [formatHundredthsOrNull(attempt.score_hundredths), rowDecimal(column("score_hundredths"))],
      score_pct: [formatHundredthsOrNull(attempt.score_pct_hundredths), rowDecimal(column("score_pct_hundredths"))],
      passed: [attempt.passed === null ? null : attempt.passed === 1, rowBoolean(column("passed"))],
      pending_review: [attempt.pending_review === 1, rowBoolean(column("pending_review"))],
    },
    when: sql`EXISTS (SELECT 1 FROM quiz_attempt_answers gw WHERE ${inSchool("gw", ctx.tenantId)} AND gw.attempt_id = ${attempt.id}
      AND gw.graded_at = ${now} AND gw.graded_by = ${ctx.actor.userId})`,
  });
}
