import { formatHundredths } from "../../core/db/decimal";
import type { ScoringMode } from "../../db/schema";
import { readPayload, storedPayload } from "../attempts/payloads";
import { sectionScoreOf } from "../exams/attempt-present";
import { examFigures, type ExamFigures } from "../exams/exam-scoring";
import type { SectionFiguresRow } from "../exams/result";
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
  /** The exam attempt of a section's quiz attempt; null outside exams. */
  exam_attempt_id: string | null;
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
  examAttemptId: string | null;
  /** The answer's new verdict; null when the attempt has no answer to the question. */
  answer: Verdict | null;
  /** Points and maximum in hundredths before and after (an exam's section figures read them). */
  oldScore: number;
  newScore: number;
  oldMax: number;
  newMax: number;
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
    examAttemptId: row.exam_attempt_id,
    answer,
    oldScore,
    newScore,
    oldMax,
    newMax,
    oldPct,
    newPct,
    oldPassed,
    newPassed,
    changed: oldPct !== newPct || oldPassed !== newPassed,
  };
}

/** A finished exam attempt with a section's quiz attempt the regrade re-scores, as `examAttemptsRead` reads it. */
export interface ExamAttemptRowForRegrade {
  id: string;
  exam_id: string;
  user_id: string;
  actor_role: AttemptRowForRegrade["actor_role"];
  final_score_pct_hundredths: number | null;
  passed: number | null;
  title: string;
  passing_score: number | null;
  /** JSON: the exam's live sections with their quiz attempts' figures (`SectionFiguresRow[]`, exams/result.ts). */
  sections: string;
}

export interface ExamOutcome {
  examAttemptId: string;
  examId: string;
  userId: string;
  actorRole: AttemptRowForRegrade["actor_role"];
  title: string;
  /** A section quiz attempt of the regrade in this exam attempt: the exam's writes wait on its item. */
  sectionAttemptId: string;
  figures: ExamFigures;
  oldPct: number;
  newPct: number;
  oldPassed: boolean | null;
  newPassed: boolean;
  changed: boolean;
}

/**
 * The exam attempts whose sections the outcomes re-score, re-derived by the exam's own scoring
 * (exams/exam-scoring.ts, as its finish computes them) from their sections with the re-scored
 * figures in place of the stored ones (docs/decisions/regrade.md, "Exam sections"). An exam
 * attempt none of whose sections' points or maximum move is left as it is.
 */
export function examOutcomesOf(rows: readonly ExamAttemptRowForRegrade[], outcomes: readonly Outcome[]): ExamOutcome[] {
  const moved = new Map(outcomes.filter((o) => o.examAttemptId !== null && (o.newScore !== o.oldScore || o.newMax !== o.oldMax)).map((o) => [o.attemptId, o]));
  const out: ExamOutcome[] = [];
  for (const row of rows) {
    const sections = JSON.parse(row.sections) as SectionFiguresRow[];
    const regraded = sections.map((section) => (section.quiz_attempt_id ? moved.get(section.quiz_attempt_id) : undefined));
    const first = regraded.find((outcome) => outcome !== undefined);
    if (!first) continue;
    const figures = examFigures(
      sections.map((section, i) => {
        const outcome = regraded[i];
        return outcome ? { weight: section.weight, score: { scoreHundredths: outcome.newScore, maxHundredths: outcome.newMax } } : sectionScoreOf(section);
      }),
      row.passing_score,
    );
    const oldPct = row.final_score_pct_hundredths ?? 0;
    const oldPassed = row.passed === null ? null : row.passed === 1;
    out.push({
      examAttemptId: row.id,
      examId: row.exam_id,
      userId: row.user_id,
      actorRole: row.actor_role,
      title: row.title,
      sectionAttemptId: first.attemptId,
      figures,
      oldPct,
      newPct: figures.finalPctHundredths,
      oldPassed,
      newPassed: figures.passed,
      changed: oldPct !== figures.finalPctHundredths || oldPassed !== figures.passed,
    });
  }
  return out;
}

interface Changed {
  attemptId: string;
  userId: string;
  oldPct: number;
  newPct: number;
  oldPassed: boolean | null;
  newPassed: boolean | null;
  changed: boolean;
}

/**
 * The response: the attempts whose score or pass changes, in attempt order (oldest first): quiz
 * attempts outside exams, and for a question in exam sections the exam attempts (their final
 * percentage and pass), not the sections' quiz attempts, which are part of their exam's result.
 */
export function resultOf(dryRun: boolean, outcomes: readonly Outcome[], examOutcomes: readonly ExamOutcome[] = []): RegradeResult {
  const changed = [...outcomes.filter((outcome): outcome is Outcome => outcome.examAttemptId === null), ...examOutcomes.map((o): Changed => ({ ...o, attemptId: o.examAttemptId }))]
    .filter((outcome) => outcome.changed)
    .sort((a, b) => (a.attemptId < b.attemptId ? -1 : a.attemptId > b.attemptId ? 1 : 0));
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
