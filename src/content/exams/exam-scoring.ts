/**
 * The exam's final figures from its sections (docs/decisions/exams.md, "Exam attempts"), exactly:
 * - pct_i = section score / section max × 100 (0 for a section never opened or whose max is 0;
 *   a score above its max counts as the max);
 * - final_max = Σ weight_i;
 * - final_score = Σ weight_i × pct_i / 100 = Σ weight_i × score_i / max_i;
 * - final_pct = final_score / final_max × 100 (0 when final_max is 0);
 * - passed = final_pct as shown (rounded) ≥ passing_score; no passing score passes.
 * Every figure is computed as an exact fraction and rounded half-up to hundredths once, from the
 * exact value: nothing is computed from an already rounded figure. Scores are hundredths of a
 * point, weights whole numbers.
 */

export interface SectionScore {
  weight: number;
  /** The section's quiz attempt score and max (hundredths); null when the section was never opened. */
  score: { scoreHundredths: number; maxHundredths: number } | null;
}

export interface ExamFigures {
  finalScoreHundredths: number;
  finalMaxHundredths: number;
  finalPctHundredths: number;
  passed: boolean;
}

/** An exact non-negative fraction. */
interface Fraction {
  num: bigint;
  den: bigint;
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

function add(a: Fraction, b: Fraction): Fraction {
  const num = a.num * b.den + b.num * a.den;
  const den = a.den * b.den;
  const divisor = gcd(num, den) || 1n;
  return { num: num / divisor, den: den / divisor };
}

/** `num / den` rounded half-up to an integer (both non-negative, den > 0). */
function roundHalfUp(num: bigint, den: bigint): number {
  return Number((2n * num + den) / (2n * den));
}

/** A section's fraction of its points, in [0, 1]; 0 when never opened or when its max is 0. */
function sectionRatio(section: SectionScore): Fraction {
  const score = section.score;
  if (score === null || score.maxHundredths <= 0) return { num: 0n, den: 1n };
  const earned = Math.min(Math.max(score.scoreHundredths, 0), score.maxHundredths);
  return { num: BigInt(earned), den: BigInt(score.maxHundredths) };
}

export function examFigures(sections: readonly SectionScore[], passingScore: number | null): ExamFigures {
  const totalWeight = BigInt(sections.reduce((sum, section) => sum + section.weight, 0));
  // Σ weight_i × score_i / max_i, in points.
  const finalScore = sections.reduce<Fraction>((sum, section) => {
    const ratio = sectionRatio(section);
    return add(sum, { num: BigInt(section.weight) * ratio.num, den: ratio.den });
  }, { num: 0n, den: 1n });
  const finalScoreHundredths = roundHalfUp(100n * finalScore.num, finalScore.den);
  const finalPctHundredths = totalWeight === 0n ? 0 : roundHalfUp(10_000n * finalScore.num, finalScore.den * totalWeight);
  return {
    finalScoreHundredths,
    finalMaxHundredths: Number(totalWeight) * 100,
    finalPctHundredths,
    passed: passingScore === null || finalPctHundredths >= passingScore * 100,
  };
}
