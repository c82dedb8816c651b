import { describe, expect, it } from "vitest";
import { formatHundredths, formatHundredthsOrNull } from "../../../src/core/db/decimal";
import type { ScoringMode } from "../../../src/db/schema";
import { readPayload, type Response } from "../../../src/content/attempts/payloads";
import { attemptTotals, normalizeFreeText, scoreAnswer, type ScoringQuestion } from "../../../src/content/attempts/scoring";

/**
 * The scoring table: each question type × each scoring mode × a right, partly right, wrong and
 * empty answer, with the exact decimals the API shows. Partly right answers earn something only
 * in `partial` mode and only for multiple and matching questions.
 */

const A = "00000000-0000-7000-8000-00000000000a";
const B = "00000000-0000-7000-8000-00000000000b";
const C = "00000000-0000-7000-8000-00000000000c";
const D = "00000000-0000-7000-8000-00000000000d";
const E = "00000000-0000-7000-8000-00000000000e";
const X = "00000000-0000-7000-8000-0000000000ff";

const question = (partial: Partial<ScoringQuestion> & Pick<ScoringQuestion, "type">): ScoringQuestion => ({
  id: "q",
  pointsHundredths: 100,
  scoringMode: null,
  answers: [],
  correctText: [],
  matches: [],
  ...partial,
});

const single = question({ type: "single", pointsHundredths: 150, answers: [{ id: A, isCorrect: true }, { id: B, isCorrect: false }] });
const multiple = question({
  type: "multiple",
  answers: [
    { id: A, isCorrect: true },
    { id: B, isCorrect: true },
    { id: C, isCorrect: true },
    { id: D, isCorrect: false },
    { id: E, isCorrect: false },
  ],
});
// Three pairs (A, B, C have a left side) and a right-side distractor D.
const matching = question({
  type: "matching",
  pointsHundredths: 200,
  matches: [
    { id: A, hasLeft: true },
    { id: B, hasLeft: true },
    { id: C, hasLeft: true },
    { id: D, hasLeft: false },
  ],
});
const freeText = question({ type: "free_text", correctText: ["Paris", "  New   York "] });

const pairs = (...list: [string, string][]) => ({ pairs: list.map(([left_id, right_id]) => ({ left_id, right_id })) });

/** The verdict as the API shows it: [awarded_points, is_correct]. */
function shown(q: ScoringQuestion, mode: ScoringMode, payload: unknown): [string | null, boolean | null] {
  let response: Response | null = null;
  if (payload !== undefined) {
    const read = readPayload(q.type, payload);
    if (!read.ok) throw new Error(read.message);
    response = read.response;
  }
  const verdict = scoreAnswer(q, mode, response);
  return [formatHundredthsOrNull(verdict.awardedHundredths), verdict.isCorrect];
}

type Row = [label: string, q: ScoringQuestion, mode: ScoringMode, payload: unknown, awarded: string | null, isCorrect: boolean | null];

const TABLE: Row[] = [
  // single: the mode changes nothing.
  ["single right", single, "all_or_nothing", { answer_ids: [A] }, "1.50", true],
  ["single right (selected_answer_id)", single, "all_or_nothing", { selected_answer_id: A }, "1.50", true],
  ["single right (selected_option_id)", single, "partial", { selected_option_id: A }, "1.50", true],
  ["single: only the first of answer_ids counts", single, "partial", { answer_ids: [B, A] }, "0.00", false],
  ["single wrong", single, "all_or_nothing", { answer_ids: [B] }, "0.00", false],
  ["single wrong (an id of no answer)", single, "partial", { selected_answer_id: X }, "0.00", false],
  ["single empty", single, "all_or_nothing", { answer_ids: [] }, "0.00", false],
  ["single empty", single, "partial", undefined, "0.00", false],

  // multiple, all_or_nothing: the exact correct set or nothing.
  ["multiple a/n right", multiple, "all_or_nothing", { answer_ids: [C, A, B] }, "1.00", true],
  ["multiple a/n right (selected_option_ids, repeated id)", multiple, "all_or_nothing", { selected_option_ids: [A, B, C, A] }, "1.00", true],
  ["multiple a/n partly right", multiple, "all_or_nothing", { answer_ids: [A, B] }, "0.00", false],
  ["multiple a/n right plus a wrong one", multiple, "all_or_nothing", { selected_answer_ids: [A, B, C, D] }, "0.00", false],
  ["multiple a/n wrong", multiple, "all_or_nothing", { answer_ids: [D, E] }, "0.00", false],
  ["multiple a/n empty", multiple, "all_or_nothing", { answer_ids: [] }, "0.00", false],
  // multiple, partial: points × max(0, right − wrong) / correct_count, half-up.
  ["multiple partial right", multiple, "partial", { answer_ids: [A, B, C] }, "1.00", true],
  ["multiple partial 2 of 3", multiple, "partial", { answer_ids: [A, B] }, "0.67", false],
  ["multiple partial 1 of 3", multiple, "partial", { answer_ids: [A] }, "0.33", false],
  ["multiple partial 2 right 1 wrong", multiple, "partial", { answer_ids: [A, B, D] }, "0.33", false],
  ["multiple partial 3 right 1 wrong", multiple, "partial", { answer_ids: [A, B, C, E] }, "0.67", false],
  ["multiple partial more wrong than right", multiple, "partial", { answer_ids: [A, D, E] }, "0.00", false],
  ["multiple partial wrong", multiple, "partial", { answer_ids: [D] }, "0.00", false],
  ["multiple partial empty", multiple, "partial", undefined, "0.00", false],

  // matching, all_or_nothing: every pair right.
  ["matching a/n right", matching, "all_or_nothing", pairs([A, A], [B, B], [C, C]), "2.00", true],
  ["matching a/n 2 of 3", matching, "all_or_nothing", pairs([A, A], [B, B], [C, D]), "0.00", false],
  ["matching a/n wrong", matching, "all_or_nothing", pairs([A, B], [B, A], [C, D]), "0.00", false],
  ["matching a/n empty", matching, "all_or_nothing", pairs(), "0.00", false],
  // matching, partial: points × right_pairs / total_pairs.
  ["matching partial right", matching, "partial", pairs([C, C], [A, A], [B, B]), "2.00", true],
  ["matching partial 2 of 3", matching, "partial", pairs([A, A], [B, B], [C, D]), "1.33", false],
  ["matching partial 1 of 3", matching, "partial", pairs([A, A], [B, C]), "0.67", false],
  ["matching partial: the first pair of a left side counts", matching, "partial", pairs([A, B], [A, A]), "0.00", false],
  ["matching partial wrong", matching, "partial", pairs([A, D], [B, C], [C, A]), "0.00", false],
  ["matching partial empty", matching, "partial", undefined, "0.00", false],

  // free_text: the mode changes nothing; a miss waits for review.
  ["free text right", freeText, "all_or_nothing", { text: "  paris " }, "1.00", true],
  ["free text right (collapsed whitespace, case)", freeText, "partial", { text: "NEW\t\n york" }, "1.00", true],
  ["free text wrong: pending", freeText, "all_or_nothing", { text: "London" }, null, null],
  ["free text near miss: pending", freeText, "partial", { text: "Pari s" }, null, null],
  ["free text empty", freeText, "all_or_nothing", { text: "   " }, "0.00", false],
  ["free text empty", freeText, "partial", undefined, "0.00", false],
];

describe("scoring table", () => {
  it.each(TABLE)("%s (%s)", (_label, q, mode, payload, awarded, isCorrect) => {
    expect(shown(q, mode, payload)).toEqual([awarded, isCorrect]);
  });

  it("the question's own mode wins over the quiz default", () => {
    const own = { ...multiple, scoringMode: "partial" as const };
    expect(shown(own, "all_or_nothing", { answer_ids: [A, B] })).toEqual(["0.67", false]);
    const strict = { ...matching, scoringMode: "all_or_nothing" as const };
    expect(shown(strict, "partial", pairs([A, A], [B, B]))).toEqual(["0.00", false]);
  });

  it("rounds half-up to hundredths", () => {
    // 0.05 × 1/2 = 0.025 → 0.03; 1.00 × 1/8 = 0.125 → 0.13; 0.01 × 1/2 = 0.005 → 0.01.
    const half = question({ type: "multiple", pointsHundredths: 5, answers: [{ id: A, isCorrect: true }, { id: B, isCorrect: true }] });
    expect(shown(half, "partial", { answer_ids: [A] })).toEqual(["0.03", false]);
    const eighths = question({ type: "multiple", answers: [A, B, C, D, E, X, "00000000-0000-7000-8000-000000000001", "00000000-0000-7000-8000-000000000002"].map((id) => ({ id, isCorrect: true })) });
    expect(shown(eighths, "partial", { answer_ids: [A] })).toEqual(["0.13", false]);
    const cent = question({ type: "matching", pointsHundredths: 1, matches: [{ id: A, hasLeft: true }, { id: B, hasLeft: true }] });
    // is_correct is "awarded equals the question's points" (the contract), so a half that rounds up to the whole is correct.
    expect(shown(cent, "partial", pairs([A, A]))).toEqual(["0.01", true]);
  });

  it("free text: trimmed, whitespace collapsed, case-folded, NFC", () => {
    expect(normalizeFreeText("  Straße\u00a0 Nr ")).toBe(normalizeFreeText("STRASSE NR"));
    expect(normalizeFreeText("Cafe\u0301")).toBe(normalizeFreeText("CAFÉ"));
    const accented = question({ type: "free_text", correctText: ["Café"] });
    expect(shown(accented, "all_or_nothing", { text: "cafe\u0301" })).toEqual(["1.00", true]);
  });

  it("a question without a correct answer can never be answered right", () => {
    const none = question({ type: "multiple", answers: [{ id: A, isCorrect: false }] });
    expect(shown(none, "all_or_nothing", { answer_ids: [A] })).toEqual(["0.00", false]);
    expect(shown(none, "partial", { answer_ids: [A] })).toEqual(["0.00", false]);
    const noPairs = question({ type: "matching", matches: [{ id: D, hasLeft: false }] });
    expect(shown(noPairs, "all_or_nothing", pairs([A, D]))).toEqual(["0.00", false]);
  });
});

describe("attempt totals", () => {
  const verdicts = (...list: (number | null)[]) => list.map((awardedHundredths) => ({ awardedHundredths, isCorrect: awardedHundredths === null ? null : false }));
  const shownTotals = (t: ReturnType<typeof attemptTotals>) => ({
    score: formatHundredths(t.scoreHundredths),
    max: formatHundredths(t.maxScoreHundredths),
    pct: formatHundredths(t.scorePctHundredths),
    pending: t.pendingReview,
    passed: t.passed,
  });
  const three = [single, multiple, matching]; // 1.50 + 1.00 + 2.00 = 4.50

  it("score, maximum and percentage half-up; passed against the passing score", () => {
    // 3.00 of 4.50 = 66.666… % → 66.67
    expect(shownTotals(attemptTotals(three, verdicts(150, 17, 133), 67))).toEqual({ score: "3.00", max: "4.50", pct: "66.67", pending: false, passed: false });
    expect(shownTotals(attemptTotals(three, verdicts(150, 17, 133), 66))).toEqual({ score: "3.00", max: "4.50", pct: "66.67", pending: false, passed: true });
    expect(shownTotals(attemptTotals(three, verdicts(150, 100, 200), 100))).toEqual({ score: "4.50", max: "4.50", pct: "100.00", pending: false, passed: true });
  });

  it("no passing score: every settled attempt passes, a zero one too", () => {
    expect(shownTotals(attemptTotals(three, verdicts(0, 0, 0), null))).toEqual({ score: "0.00", max: "4.50", pct: "0.00", pending: false, passed: true });
  });

  it("a pending answer counts 0 and leaves passed null", () => {
    expect(shownTotals(attemptTotals([...three, freeText], verdicts(150, 100, 200, null), 10))).toEqual({ score: "4.50", max: "5.50", pct: "81.82", pending: true, passed: null });
  });

  it("no questions: percentage 0", () => {
    expect(shownTotals(attemptTotals([], [], 50))).toEqual({ score: "0.00", max: "0.00", pct: "0.00", pending: false, passed: false });
    expect(shownTotals(attemptTotals([], [], null))).toEqual({ score: "0.00", max: "0.00", pct: "0.00", pending: false, passed: true });
  });
});

describe("payload keys", () => {
  it.each([
    ["single", { selected_answer_id: "nope" }],
    ["single", { text: "A" }],
    ["multiple", { answer_ids: A }],
    ["multiple", { selected_option_id: A }],
    ["free_text", { text: 12 }],
    ["free_text", { answer_ids: [A] }],
    ["matching", { pairs: [{ left_id: A }] }],
    ["matching", { pairs: {} }],
    ["matching", []],
  ] as const)("a %s question refuses %j", (type, payload) => {
    expect(readPayload(type, payload).ok).toBe(false);
  });
});
