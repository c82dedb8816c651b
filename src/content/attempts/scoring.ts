import { hundredthsOf, percentHundredths } from "../../core/db/decimal";
import type { QuestionType, ScoringMode } from "../../db/schema";
import type { Response } from "./payloads";

/**
 * Server-side scoring (docs/decisions/quizzes.md, "Quiz attempts"), pure: no clock, no database. Points are
 * integer hundredths and every fraction rounds half-up to hundredths (`hundredthsOf`).
 * - single: full points when the chosen answer is a correct one;
 * - multiple: all_or_nothing full points for exactly the correct set; partial
 *   `points × max(0, right − wrong) / correct_count`;
 * - matching: all_or_nothing every pair right; partial `points × right_pairs / total_pairs`, where
 *   the pairs are the rows with a left side and a pair is right when its right side is its own row;
 * - free_text: the answer normalized (trimmed, inner whitespace collapsed, case-folded, NFC) equal
 *   to a normalized `correct_text` item earns full points; anything else waits for review
 *   (awarded and is_correct null).
 * An unanswered question (no payload, nothing chosen, an empty text) earns 0 and is not correct.
 * The effective mode is the question's own, else the quiz's default; only multiple and matching
 * read it.
 */

export interface ScoringQuestion {
  id: string;
  type: QuestionType;
  pointsHundredths: number;
  scoringMode: ScoringMode | null;
  /** Live answers (single, multiple). */
  answers: readonly { id: string; isCorrect: boolean }[];
  /** free_text. */
  correctText: readonly string[];
  /** Live match rows (matching): `hasLeft` for pairs, false for right-side distractors. */
  matches: readonly { id: string; hasLeft: boolean }[];
}

export interface Verdict {
  /** Null while the answer waits for review. */
  awardedHundredths: number | null;
  isCorrect: boolean | null;
}

const UNANSWERED: Verdict = { awardedHundredths: 0, isCorrect: false };

/** The free-text comparison form: trimmed, inner whitespace collapsed, case-folded, NFC. */
export function normalizeFreeText(text: string): string {
  const collapsed = text.normalize("NFC").trim().replace(/\s+/gu, " ");
  // Upper then lower folds the cases lower-casing alone leaves apart ("ß" and "SS" meet at "ss").
  return collapsed.toUpperCase().toLowerCase().normalize("NFC");
}

function verdict(points: number, awarded: number): Verdict {
  return { awardedHundredths: awarded, isCorrect: awarded === points };
}

/** A share of the question's points, half-up to hundredths. */
function share(points: number, part: number, whole: number): number {
  return whole <= 0 ? 0 : hundredthsOf(points * part, whole * 100);
}

function scoreSingle(question: ScoringQuestion, answerId: string | null): Verdict {
  if (answerId === null) return UNANSWERED;
  const chosen = question.answers.find((answer) => answer.id === answerId);
  return verdict(question.pointsHundredths, chosen?.isCorrect ? question.pointsHundredths : 0);
}

function scoreMultiple(question: ScoringQuestion, mode: ScoringMode, answerIds: readonly string[]): Verdict {
  if (answerIds.length === 0) return UNANSWERED;
  const correct = new Set(question.answers.filter((answer) => answer.isCorrect).map((answer) => answer.id));
  const chosen = new Set(answerIds);
  const right = [...chosen].filter((id) => correct.has(id)).length;
  const wrong = chosen.size - right;
  const points = question.pointsHundredths;
  if (mode === "partial") return verdict(points, share(points, Math.max(0, right - wrong), correct.size));
  return verdict(points, correct.size > 0 && wrong === 0 && right === correct.size ? points : 0);
}

function scoreMatching(question: ScoringQuestion, mode: ScoringMode, pairs: readonly { leftId: string; rightId: string }[]): Verdict {
  if (pairs.length === 0) return UNANSWERED;
  const lefts = new Set(question.matches.filter((match) => match.hasLeft).map((match) => match.id));
  // The first pair naming a left side is the answer for it.
  const chosen = new Map<string, string>();
  for (const pair of pairs) if (!chosen.has(pair.leftId)) chosen.set(pair.leftId, pair.rightId);
  const right = [...lefts].filter((left) => chosen.get(left) === left).length;
  const points = question.pointsHundredths;
  if (mode === "partial") return verdict(points, share(points, right, lefts.size));
  return verdict(points, lefts.size > 0 && right === lefts.size ? points : 0);
}

function scoreFreeText(question: ScoringQuestion, text: string): Verdict {
  const given = normalizeFreeText(text);
  if (given === "") return UNANSWERED;
  if (question.correctText.some((item) => normalizeFreeText(item) === given)) return verdict(question.pointsHundredths, question.pointsHundredths);
  return { awardedHundredths: null, isCorrect: null };
}

/** The verdict on one answer; `response` null when the question was not answered (or the payload is of another type). */
export function scoreAnswer(question: ScoringQuestion, defaultMode: ScoringMode, response: Response | null): Verdict {
  if (response === null || response.type !== question.type) return UNANSWERED;
  const mode = question.scoringMode ?? defaultMode;
  switch (response.type) {
    case "single":
      return scoreSingle(question, response.answerId);
    case "multiple":
      return scoreMultiple(question, mode, response.answerIds);
    case "matching":
      return scoreMatching(question, mode, response.pairs);
    case "free_text":
      return scoreFreeText(question, response.text);
  }
}

export interface Totals {
  scoreHundredths: number;
  maxScoreHundredths: number;
  /** Hundredths of a percent; 0 when the maximum is 0. */
  scorePctHundredths: number;
  pendingReview: boolean;
  /** Null while an answer waits for review. */
  passed: boolean | null;
}

/**
 * An attempt's totals: the maximum is every question's points, the score the awarded points (an
 * answer waiting for review counts 0), passed the percentage against the passing score (none set:
 * every settled attempt passes). The SQL of settle.ts computes the same from stored answers.
 */
export function attemptTotals(questions: readonly ScoringQuestion[], verdicts: readonly Verdict[], passingScore: number | null): Totals {
  const maxScoreHundredths = questions.reduce((sum, question) => sum + question.pointsHundredths, 0);
  const scoreHundredths = verdicts.reduce((sum, item) => sum + (item.awardedHundredths ?? 0), 0);
  const pendingReview = verdicts.some((item) => item.awardedHundredths === null);
  const scorePctHundredths = percentHundredths(scoreHundredths, maxScoreHundredths) ?? 0;
  const passed = pendingReview ? null : passingScore === null || scorePctHundredths >= passingScore * 100;
  return { scoreHundredths, maxScoreHundredths, scorePctHundredths, pendingReview, passed };
}
