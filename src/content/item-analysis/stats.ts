import { formatHundredths, hundredthsFromNumber, hundredthsOf } from "../../core/db/decimal";
import type { QuestionType } from "../../db/schema";

/**
 * The item figures of 05 section 2, pure: attempts go in one at a time (a chunk of rows is read,
 * added and dropped), the figures come out at the end. Formulas and the choices the contract leaves
 * open: docs/decisions/item-analysis.md, "Formulas".
 */

/** Fewer attempts than this leave a figure null (`insufficient_data`). */
export const MIN_ATTEMPTS = 20;
/** The share of attempts in the top and in the bottom group of the discrimination, in percent. */
const GROUP_PERCENT = 27;

export interface ItemQuestion {
  id: string;
  type: QuestionType;
  pointsHundredths: number;
  /** Live answers of a choice question in position order; empty for the other types. */
  answerIds: string[];
}

export interface ItemAttempt {
  id: string;
  scoreHundredths: number;
  scorePctHundredths: number;
  /** The drawn question ids; null: the attempt drew no form, so every question counts as drawn. */
  formQuestionIds: string[] | null;
}

/** One answer row of the attempt: the points awarded and, for a choice question, the chosen ids. */
export interface ItemAnswer {
  questionId: string;
  awardedHundredths: number;
  chosen: readonly string[];
}

export interface ItemOption {
  answer_id: string;
  chosen: number;
  share: string | null;
}

export interface ItemFigures {
  question_id: string;
  type: QuestionType;
  n: number;
  facility: string | null;
  discrimination: string | null;
  point_biserial: string | null;
  insufficient_data: boolean;
  options?: ItemOption[];
}

export interface ItemAnalysisFigures {
  attempts: number;
  kr20: string | null;
  items: ItemFigures[];
}

const isChoice = (type: QuestionType) => type === "single" || type === "multiple";

/** Collects attempts; keeps per attempt its score and, per question, whether it drew it and the points. */
export class ItemAccumulator {
  private readonly index = new Map<string, number>();
  private readonly attempts: { id: string; score: number; pct: number }[] = [];
  /** attempt-major: `drawn[a * k + i]`, `awarded[a * k + i]`. */
  private readonly drawn: number[] = [];
  private readonly awarded: number[] = [];
  /** Per question, per live answer: how many attempts that drew the question chose it. */
  private readonly chosen: Map<string, number>[];

  constructor(
    private readonly questions: readonly ItemQuestion[],
    /** The quiz draws fewer questions than it has (random forms): no KR-20. */
    private readonly drawsSubset: boolean,
  ) {
    questions.forEach((question, i) => this.index.set(question.id, i));
    this.chosen = questions.map((question) => new Map(question.answerIds.map((id) => [id, 0])));
  }

  add(attempt: ItemAttempt, answers: readonly ItemAnswer[]): void {
    const k = this.questions.length;
    const base = this.attempts.length * k;
    this.attempts.push({ id: attempt.id, score: attempt.scoreHundredths, pct: attempt.scorePctHundredths });
    const form = attempt.formQuestionIds === null ? null : new Set(attempt.formQuestionIds);
    for (let i = 0; i < k; i += 1) {
      this.drawn.push(form === null || form.has(this.questions[i]!.id) ? 1 : 0);
      this.awarded.push(0);
    }
    for (const answer of answers) {
      const i = this.index.get(answer.questionId);
      if (i === undefined || this.drawn[base + i] === 0) continue;
      this.awarded[base + i] = answer.awardedHundredths;
      const counts = this.chosen[i]!;
      for (const id of new Set(answer.chosen)) {
        const count = counts.get(id);
        if (count !== undefined) counts.set(id, count + 1);
      }
    }
  }

  result(): ItemAnalysisFigures {
    const k = this.questions.length;
    // Best first; equal percentages keep the earlier attempt first (ids are time-ordered).
    const ranked = this.attempts.map((attempt, a) => ({ ...attempt, a })).sort((x, y) => y.pct - x.pct || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
    const items = this.questions.map((question, i) => this.item(question, i, ranked.filter((row) => this.drawn[row.a * k + i] === 1).map((row) => row.a)));
    return { attempts: this.attempts.length, kr20: this.kr20(), items };
  }

  private item(question: ItemQuestion, i: number, drawers: number[]): ItemFigures {
    const k = this.questions.length;
    const n = drawers.length;
    const enough = n >= MIN_ATTEMPTS;
    const x = drawers.map((a) => this.awarded[a * k + i]!);
    const points = question.pointsHundredths;
    const sum = x.reduce((s, v) => s + v, 0);
    let discrimination: string | null = null;
    if (enough && points > 0) {
      const g = Math.floor((n * GROUP_PERCENT) / 100);
      const top = x.slice(0, g).reduce((s, v) => s + v, 0);
      const bottom = x.slice(n - g).reduce((s, v) => s + v, 0);
      discrimination = formatHundredths(hundredthsOf(top - bottom, g * points));
    }
    const figures: ItemFigures = {
      question_id: question.id,
      type: question.type,
      n,
      facility: enough && points > 0 ? formatHundredths(Math.min(100, Math.max(0, hundredthsOf(sum, n * points)))) : null,
      discrimination,
      point_biserial: enough ? correlation(x, drawers.map((a, j) => this.attempts[a]!.score - x[j]!)) : null,
      insufficient_data: !enough,
    };
    if (isChoice(question.type)) {
      figures.options = question.answerIds.map((id) => {
        const chosen = this.chosen[i]!.get(id) ?? 0;
        return { answer_id: id, chosen, share: enough ? formatHundredths(hundredthsOf(chosen, n)) : null };
      });
    }
    return figures;
  }

  /** Cronbach's alpha over the attempts that drew every question (KR-20 when items score 0 or full points). */
  private kr20(): string | null {
    const k = this.questions.length;
    if (k < 2 || this.drawsSubset) return null;
    const full: number[] = [];
    this.attempts.forEach((_, a) => {
      for (let i = 0; i < k; i += 1) if (this.drawn[a * k + i] === 0) return;
      full.push(a);
    });
    if (full.length < MIN_ATTEMPTS) return null;
    let itemVariances = 0;
    for (let i = 0; i < k; i += 1) itemVariances += variance(full.map((a) => this.awarded[a * k + i]!));
    const totals = variance(full.map((a) => this.awarded.slice(a * k, a * k + k).reduce((s, v) => s + v, 0)));
    if (totals === 0) return null;
    return formatHundredths(hundredthsFromNumber(round6((k / (k - 1)) * (1 - itemVariances / totals))));
  }
}

/** Population variance. */
function variance(values: readonly number[]): number {
  const mean = values.reduce((s, v) => s + v, 0) / values.length;
  return values.reduce((s, v) => s + (v - mean) * (v - mean), 0) / values.length;
}

/** Pearson's r of two series, null when either does not vary. */
function correlation(x: readonly number[], y: readonly number[]): string | null {
  const n = x.length;
  const mx = x.reduce((s, v) => s + v, 0) / n;
  const my = y.reduce((s, v) => s + v, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let j = 0; j < n; j += 1) {
    sxy += (x[j]! - mx) * (y[j]! - my);
    sxx += (x[j]! - mx) ** 2;
    syy += (y[j]! - my) ** 2;
  }
  if (sxx === 0 || syy === 0) return null;
  return formatHundredths(hundredthsFromNumber(round6(sxy / Math.sqrt(sxx * syy))));
}

/** Six decimals first, so float noise (0.28499999…) never decides the half-up rounding of an exact half. */
function round6(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
