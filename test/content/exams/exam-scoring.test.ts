import { describe, expect, it } from "vitest";
import { examFigures, type SectionScore } from "../../../src/content/exams/exam-scoring";
import { formatHundredths } from "../../../src/core/db/decimal";

/**
 * The weighted final score as a table: sections as (weight, score, max) in hundredths of a point
 * (null: never opened), the passing score, and the exact decimals the API shows. Every figure is
 * the exact value rounded half-up once.
 */

const s = (weight: number, score: number | null, max = 100): SectionScore => ({ weight, score: score === null ? null : { scoreHundredths: score, maxHundredths: max } });

const table: { name: string; sections: SectionScore[]; passing: number | null; score: string; max: string; pct: string; passed: boolean }[] = [
  { name: "two equal weights, 50 % and 100 %", sections: [s(1, 50), s(1, 100)], passing: 75, score: "1.50", max: "2.00", pct: "75.00", passed: true },
  { name: "weights 1..4 at 25/50/75/100 %", sections: [s(1, 25), s(2, 50), s(3, 75), s(4, 100)], passing: null, score: "7.50", max: "10.00", pct: "75.00", passed: true },
  { name: "weights 3 and 7, thirds: 17/3 points", sections: [s(3, 100, 300), s(7, 200, 300)], passing: 57, score: "5.67", max: "10.00", pct: "56.67", passed: false },
  // Rounding each section first would give 3 × 333.30 = 999.90.
  { name: "three thirds of weight 1000 sum exactly to 1000", sections: [s(1000, 100, 300), s(1000, 100, 300), s(1000, 100, 300)], passing: 34, score: "1000.00", max: "3000.00", pct: "33.33", passed: false },
  { name: "a section never opened counts 0", sections: [s(2, 100), s(1, null)], passing: 66, score: "2.00", max: "3.00", pct: "66.67", passed: true },
  { name: "a section worth 0 points counts 0", sections: [s(1, 0, 0), s(1, 50)], passing: null, score: "0.50", max: "2.00", pct: "25.00", passed: true },
  { name: "half-up on the score: 0.125 → 0.13", sections: [s(1, 25, 200)], passing: null, score: "0.13", max: "1.00", pct: "12.50", passed: true },
  { name: "half-up on the percentage: 0.005 % → 0.01", sections: [s(1, 1, 10_000), s(1, 0)], passing: null, score: "0.00", max: "2.00", pct: "0.01", passed: true },
  { name: "a score above its max counts as the max", sections: [s(1, 150)], passing: 100, score: "1.00", max: "1.00", pct: "100.00", passed: true },
  { name: "no sections", sections: [], passing: 50, score: "0.00", max: "0.00", pct: "0.00", passed: false },
  // The equality edge of passing_score.
  { name: "exactly the passing score passes (weights 2 and 3: 3 of 5 = 60 %)", sections: [s(2, 100), s(3, 100, 300)], passing: 60, score: "3.00", max: "5.00", pct: "60.00", passed: true },
  { name: "one point above the result fails", sections: [s(2, 100), s(3, 100, 300)], passing: 61, score: "3.00", max: "5.00", pct: "60.00", passed: false },
  { name: "59.995 % shows as 60.00 and passes 60", sections: [s(1, 11_999, 20_000)], passing: 60, score: "0.60", max: "1.00", pct: "60.00", passed: true },
  { name: "59.9945 % shows as 59.99 and fails 60", sections: [s(1, 119_989, 200_000)], passing: 60, score: "0.60", max: "1.00", pct: "59.99", passed: false },
  { name: "a passing score of 0 passes 0 %", sections: [s(5, 0)], passing: 0, score: "0.00", max: "5.00", pct: "0.00", passed: true },
  { name: "no passing score passes 0 %", sections: [s(5, 0)], passing: null, score: "0.00", max: "5.00", pct: "0.00", passed: true },
  { name: "100 % against a passing score of 100", sections: [s(7, 300, 300), s(11, 250, 250)], passing: 100, score: "18.00", max: "18.00", pct: "100.00", passed: true },
];

describe("examFigures", () => {
  it.each(table)("$name", ({ sections, passing, score, max, pct, passed }) => {
    const figures = examFigures(sections, passing);
    expect({
      score: formatHundredths(figures.finalScoreHundredths),
      max: formatHundredths(figures.finalMaxHundredths),
      pct: formatHundredths(figures.finalPctHundredths),
      passed: figures.passed,
    }).toEqual({ score, max, pct, passed });
  });
});
