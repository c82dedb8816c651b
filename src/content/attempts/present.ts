import { sql } from "drizzle-orm";
import { batchable, type BatchItem } from "../../core/db/batch";
import { formatHundredths, formatHundredthsOrNull } from "../../core/db/decimal";
import type { SchoolCtx, SchoolActor } from "../../core/http/context";
import { iso, isoOrNull } from "../../core/lib/clock";
import type { JournalEntry } from "./journal-state";
import { attemptTimeLimitSeconds, remainingSeconds } from "./journal-state";
import { storedPayload } from "./payloads";
import { inSchool } from "../../core/db/conditions";

/**
 * The attempt as every attempt endpoint answers it (docs/decisions/quizzes.md, "Quiz attempts"). In
 * progress: no score, `passed` null, `max_score` the live questions' total, saved answers from the
 * journal with the verdicts hidden ("0.00", false). Submitted: the stored scores and the scored
 * answers (`awarded_points` and `is_correct` null while waiting for review) with their feedback.
 * `saved_answers` is left out when nothing is saved.
 */

/** An attempt row as `attemptRowSql` reads it. */
export interface AttemptRow {
  id: string;
  tenant_id: string;
  quiz_id: string;
  user_id: string;
  actor_role: "student" | "curator" | "admin";
  status: "in_progress" | "submitted";
  exam_attempt_id: string | null;
  started_at: number;
  deadline_at: number | null;
  submitted_at: number | null;
  auto_finalized: number;
  score_hundredths: number | null;
  max_score_hundredths: number | null;
  score_pct_hundredths: number | null;
  pending_review: number;
  passed: number | null;
  form_seed: string | null;
  form_question_ids: string | null;
  form_shuffle_answers: number;
}

/** A stored answer as `answerRowsSql` reads it. */
export interface AnswerRow {
  question_id: string;
  payload: string;
  awarded_hundredths: number | null;
  is_correct: number | null;
  feedback: string | null;
}

export const ATTEMPT_COLUMNS = sql`a.id, a.tenant_id, a.quiz_id, a.user_id, a.actor_role, a.status, a.exam_attempt_id, a.started_at, a.deadline_at,
  a.submitted_at, a.auto_finalized, a.score_hundredths, a.max_score_hundredths, a.score_pct_hundredths, a.pending_review, a.passed,
  a.form_seed, a.form_question_ids, a.form_shuffle_answers`;

type Ctx = SchoolCtx<SchoolActor>;

/** The attempt row (alias `a`) of the school. */
export function attemptRowSql(ctx: Ctx, attemptId: string): BatchItem {
  return batchable(ctx, sql`SELECT ${ATTEMPT_COLUMNS} FROM quiz_attempts a WHERE a.id = ${attemptId} AND ${inSchool("a", ctx.tenantId)}`);
}

/** The attempt's stored answers in question order (answers to questions deleted since come last). */
export function answerRowsSql(ctx: Ctx, attemptId: string): BatchItem {
  return batchable(
    ctx,
    sql`SELECT aa.question_id, aa.payload, aa.awarded_hundredths, aa.is_correct, aa.feedback
      FROM quiz_attempt_answers aa LEFT JOIN quiz_questions aq ON aq.id = aa.question_id AND ${inSchool("aq", ctx.tenantId)}
      WHERE ${inSchool("aa", ctx.tenantId)} AND aa.attempt_id = ${attemptId}
      ORDER BY aq.deleted_at IS NOT NULL, aq.position, aa.question_id`,
  );
}

function base(row: AttemptRow, now: number) {
  return {
    id: row.id,
    quiz_id: row.quiz_id,
    user_id: row.user_id,
    status: row.status,
    actor_role: row.actor_role,
    started_at: iso(row.started_at),
    deadline_at: isoOrNull(row.deadline_at),
    time_limit_seconds: attemptTimeLimitSeconds(row.started_at, row.deadline_at),
    submitted_at: isoOrNull(row.submitted_at),
    auto_finalized: row.auto_finalized === 1,
    server_now: iso(now),
  };
}

/** An attempt in progress, its saved answers from the journal. */
export function presentInProgress(row: AttemptRow, input: { liveTotal: number; entries: readonly JournalEntry[]; now: number }) {
  const saved = input.entries.map((entry) => ({ question_id: entry.questionId, payload: entry.payload, awarded_points: "0.00", is_correct: false }));
  return {
    ...base(row, input.now),
    score: null,
    max_score: formatHundredths(input.liveTotal),
    score_pct: null,
    passed: null,
    pending_review: false,
    ...(saved.length > 0 ? { saved_answers: saved } : {}),
    remaining_seconds: remainingSeconds(row.deadline_at, input.now),
  };
}

/** A submitted attempt with its scored answers. */
export function presentSubmitted(row: AttemptRow, answers: readonly AnswerRow[], now: number) {
  const saved = answers.map((answer) => ({
    question_id: answer.question_id,
    payload: storedPayload(answer.payload),
    awarded_points: formatHundredthsOrNull(answer.awarded_hundredths),
    is_correct: answer.is_correct === null ? null : answer.is_correct === 1,
    feedback: answer.feedback,
  }));
  return {
    ...base(row, now),
    score: formatHundredthsOrNull(row.score_hundredths),
    max_score: formatHundredths(row.max_score_hundredths ?? 0),
    score_pct: formatHundredthsOrNull(row.score_pct_hundredths),
    passed: row.passed === null ? null : row.passed === 1,
    pending_review: row.pending_review === 1,
    ...(saved.length > 0 ? { saved_answers: saved } : {}),
    remaining_seconds: row.deadline_at === null ? null : 0,
  };
}

export type AttemptView = ReturnType<typeof presentInProgress> | ReturnType<typeof presentSubmitted>;
