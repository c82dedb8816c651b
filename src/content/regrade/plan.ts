import { formatHundredths } from "../../core/db/decimal";
import type { ScoringMode } from "../../db/schema";
import { readPayload, storedPayload } from "../attempts/payloads";
import { normalizeFreeText, scoreAnswer, type ScoringQuestion } from "../attempts/scoring";
import { CHANGES_SHOWN, type RegradeMode, type RegradeResult } from "./schemas";

/**
 * What a regrade does to one attempt, pure (docs/decisions/regrade.md, "Scoring"). The dry run and
 * every chunk of the real run compute with these functions from the same reads, so the dry run
 * reports exactly what the run writes. The totals follow attempts/settle.ts: the score is the sum
 * of the awarded points (a pending answer counts 0), the percentage half-up against `max_score`,
 * `passed` null while an answer waits for review.
 */

export interface RegradeQuestion extends ScoringQuestion {
  quizTitle: string;
  defaultMode: ScoringMode;
  passingScore: number | null;
}

/** An attempt the regrade re-scores, with its answer to the question (null fields: none). */
export interface AttemptRowForRegrade {
  id: string;
  user_id: string;
  actor_role: "student" | "curator" | "admin";
  score_hundredths: number | null;
  max_score_hundredths: number | null;
  score_pct_hundredths: number | null;
  passed: number | null;
  /** Answers to other questions waiting for a grade. */
  other_pending: number;
  has_answer: number;
  payload: string | null;
  awarded_hundredths: number | null;
  is_correct: number | null;
  graded_by: string | null;
}

export interface Verdict {
  awarded: number | null;
  correct: boolean | null;
}

export interface Outcome {
  attemptId: string;
  userId: string;
  actorRole: AttemptRowForRegrade["actor_role"];
  /** The answer's new verdict; null when the attempt has no answer to the question. */
  answer: Verdict | null;
  oldPct: number;
  newPct: number;
  oldPassed: boolean | null;
  newPassed: boolean | null;
  changed: boolean;
}

/** The verdict on a stored answer under the regrade. */
function regradedVerdict(question: RegradeQuestion, mode: RegradeMode, row: AttemptRowForRegrade): Verdict {
  const stored: Verdict = { awarded: row.awarded_hundredths, correct: row.is_correct === null ? null : row.is_correct === 1 };
  if (mode === "accept_all") return { awarded: question.pointsHundredths, correct: true };
  // A dropped question's answer keeps its verdict (the analytics still show how it was answered) and earns nothing.
  if (mode === "drop") return { awarded: 0, correct: stored.correct };
  const read = readPayload(question.type, storedPayload(row.payload ?? "{}"));
  const response = read.ok ? read.response : null;
  if (question.type === "free_text") {
    const given = response?.type === "free_text" ? normalizeFreeText(response.text) : "";
    if (given !== "" && question.correctText.some((text) => normalizeFreeText(text) === given)) return { awarded: question.pointsHundredths, correct: true };
    // A person's grade (or a review still waiting) stands; a credit the old key gave automatically goes.
    if (row.graded_by !== null || stored.awarded === null) return stored;
    return { awarded: 0, correct: false };
  }
  const verdict = scoreAnswer(question, question.defaultMode, response);
  return { awarded: verdict.awardedHundredths, correct: verdict.isCorrect };
}

/** Hundredths of a percent of `score` against `max`, half-up, capped at 100 %; 0 without a maximum (settle.ts). */
export function pctOf(score: number, max: number): number {
  return max > 0 ? Math.min(10_000, Math.floor((score * 20_000 + max) / (2 * max))) : 0;
}

export function outcomeOf(question: RegradeQuestion, mode: RegradeMode, row: AttemptRowForRegrade): Outcome {
  const answer = row.has_answer === 1 ? regradedVerdict(question, mode, row) : null;
  const oldScore = row.score_hundredths ?? 0;
  const newScore = oldScore - (row.has_answer === 1 ? (row.awarded_hundredths ?? 0) : 0) + (answer?.awarded ?? 0);
  const oldMax = row.max_score_hundredths ?? 0;
  const newMax = mode === "drop" ? Math.max(0, oldMax - question.pointsHundredths) : oldMax;
  const pending = row.other_pending > 0 || (answer !== null && answer.awarded === null);
  const newPct = pctOf(newScore, newMax);
  const newPassed = pending ? null : question.passingScore === null || newPct >= question.passingScore * 100;
  const oldPct = row.score_pct_hundredths ?? 0;
  const oldPassed = row.passed === null ? null : row.passed === 1;
  return {
    attemptId: row.id,
    userId: row.user_id,
    actorRole: row.actor_role,
    answer,
    oldPct,
    newPct,
    oldPassed,
    newPassed,
    changed: oldPct !== newPct || oldPassed !== newPassed,
  };
}

/** The response: the attempts whose score or pass changes, in attempt order (oldest first). */
export function resultOf(dryRun: boolean, outcomes: readonly Outcome[]): RegradeResult {
  const changed = outcomes.filter((outcome) => outcome.changed).sort((a, b) => (a.attemptId < b.attemptId ? -1 : a.attemptId > b.attemptId ? 1 : 0));
  return {
    dry_run: dryRun,
    affected_attempts: changed.length,
    changes: changed.slice(0, CHANGES_SHOWN).map((outcome) => ({
      attempt_id: outcome.attemptId,
      student_id: outcome.userId,
      old_score: formatHundredths(outcome.oldPct),
      new_score: formatHundredths(outcome.newPct),
      old_passed: outcome.oldPassed,
      new_passed: outcome.newPassed,
    })),
    truncated: changed.length > CHANGES_SHOWN,
  };
}
