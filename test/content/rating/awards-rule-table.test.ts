import { describe, expect, it } from "vitest";
import { schoolWithAdmin, signedIn } from "../../helpers/users";
import { attemptScoring, completionRulesOff, dec, eventsOf, scoredQuiz, setRule, sumOf, totalOf, type RuleFields } from "./awards-helpers";

/**
 * The rule table (issue 18): every calc_mode × threshold source × award_only_if_passed ×
 * repeat_behavior, applied by quiz submits through HTTP. Each row is one quiz with passing score
 * 60 and its own override (points 10.01, threshold_value 75.00), and three attempts of the same
 * student scoring 50 % (failed), 80 % (passed) and 70 % (passed). Expected values are worked out by
 * hand:
 * - amounts: fixed 10.01 each; raw 10.01 × pct / 100 half-up = 5.01 (5.005), 8.01 (8.008), 7.01
 *   (7.007); above_threshold 10.01 when pct ≥ threshold, else 0;
 * - thresholds: passing_score 60; rule_specified 75; none (threshold_source NULL) takes the
 *   object's passing score first, so 60 here too (threshold_value only for objects without one);
 * - award_only_if_passed skips the 50 % attempt (the quiz's own `passed`);
 * - ignore: the first non-zero amount only; award_each: every non-zero amount; overwrite: the
 *   difference to what the student holds for the quiz (any sign); overwrite_if_higher: the
 *   difference when positive. A zero difference writes nothing.
 */

type Row = [calcMode: NonNullable<RuleFields["calcMode"]>, threshold: "passing_score" | "rule_specified" | "none", onlyIfPassed: boolean, repeat: NonNullable<RuleFields["repeatBehavior"]>, events: string[], total: string];

const TABLE: Row[] = [
  ["fixed", "passing_score", false, "ignore", ["10.01"], "10.01"],
  ["fixed", "passing_score", false, "award_each", ["10.01", "10.01", "10.01"], "30.03"],
  ["fixed", "passing_score", false, "overwrite", ["10.01"], "10.01"],
  ["fixed", "passing_score", false, "overwrite_if_higher", ["10.01"], "10.01"],
  ["fixed", "passing_score", true, "ignore", ["10.01"], "10.01"],
  ["fixed", "passing_score", true, "award_each", ["10.01", "10.01"], "20.02"],
  ["fixed", "passing_score", true, "overwrite", ["10.01"], "10.01"],
  ["fixed", "passing_score", true, "overwrite_if_higher", ["10.01"], "10.01"],
  ["fixed", "rule_specified", false, "ignore", ["10.01"], "10.01"],
  ["fixed", "rule_specified", false, "award_each", ["10.01", "10.01", "10.01"], "30.03"],
  ["fixed", "rule_specified", false, "overwrite", ["10.01"], "10.01"],
  ["fixed", "rule_specified", false, "overwrite_if_higher", ["10.01"], "10.01"],
  ["fixed", "rule_specified", true, "ignore", ["10.01"], "10.01"],
  ["fixed", "rule_specified", true, "award_each", ["10.01", "10.01"], "20.02"],
  ["fixed", "rule_specified", true, "overwrite", ["10.01"], "10.01"],
  ["fixed", "rule_specified", true, "overwrite_if_higher", ["10.01"], "10.01"],
  ["fixed", "none", false, "ignore", ["10.01"], "10.01"],
  ["fixed", "none", false, "award_each", ["10.01", "10.01", "10.01"], "30.03"],
  ["fixed", "none", false, "overwrite", ["10.01"], "10.01"],
  ["fixed", "none", false, "overwrite_if_higher", ["10.01"], "10.01"],
  ["fixed", "none", true, "ignore", ["10.01"], "10.01"],
  ["fixed", "none", true, "award_each", ["10.01", "10.01"], "20.02"],
  ["fixed", "none", true, "overwrite", ["10.01"], "10.01"],
  ["fixed", "none", true, "overwrite_if_higher", ["10.01"], "10.01"],

  ["raw", "passing_score", false, "ignore", ["5.01"], "5.01"],
  ["raw", "passing_score", false, "award_each", ["5.01", "8.01", "7.01"], "20.03"],
  // 5.01; 8.01 − 5.01 = 3.00; 7.01 − 8.01 = −1.00.
  ["raw", "passing_score", false, "overwrite", ["5.01", "3.00", "-1.00"], "7.01"],
  ["raw", "passing_score", false, "overwrite_if_higher", ["5.01", "3.00"], "8.01"],
  ["raw", "passing_score", true, "ignore", ["8.01"], "8.01"],
  ["raw", "passing_score", true, "award_each", ["8.01", "7.01"], "15.02"],
  ["raw", "passing_score", true, "overwrite", ["8.01", "-1.00"], "7.01"],
  ["raw", "passing_score", true, "overwrite_if_higher", ["8.01"], "8.01"],
  ["raw", "rule_specified", false, "ignore", ["5.01"], "5.01"],
  ["raw", "rule_specified", false, "award_each", ["5.01", "8.01", "7.01"], "20.03"],
  ["raw", "rule_specified", false, "overwrite", ["5.01", "3.00", "-1.00"], "7.01"],
  ["raw", "rule_specified", false, "overwrite_if_higher", ["5.01", "3.00"], "8.01"],
  ["raw", "rule_specified", true, "ignore", ["8.01"], "8.01"],
  ["raw", "rule_specified", true, "award_each", ["8.01", "7.01"], "15.02"],
  ["raw", "rule_specified", true, "overwrite", ["8.01", "-1.00"], "7.01"],
  ["raw", "rule_specified", true, "overwrite_if_higher", ["8.01"], "8.01"],
  ["raw", "none", false, "ignore", ["5.01"], "5.01"],
  ["raw", "none", false, "award_each", ["5.01", "8.01", "7.01"], "20.03"],
  ["raw", "none", false, "overwrite", ["5.01", "3.00", "-1.00"], "7.01"],
  ["raw", "none", false, "overwrite_if_higher", ["5.01", "3.00"], "8.01"],
  ["raw", "none", true, "ignore", ["8.01"], "8.01"],
  ["raw", "none", true, "award_each", ["8.01", "7.01"], "15.02"],
  ["raw", "none", true, "overwrite", ["8.01", "-1.00"], "7.01"],
  ["raw", "none", true, "overwrite_if_higher", ["8.01"], "8.01"],

  // Threshold 60: 50 % gives 0 (nothing written), 80 % and 70 % give 10.01.
  ["above_threshold", "passing_score", false, "ignore", ["10.01"], "10.01"],
  ["above_threshold", "passing_score", false, "award_each", ["10.01", "10.01"], "20.02"],
  ["above_threshold", "passing_score", false, "overwrite", ["10.01"], "10.01"],
  ["above_threshold", "passing_score", false, "overwrite_if_higher", ["10.01"], "10.01"],
  ["above_threshold", "passing_score", true, "ignore", ["10.01"], "10.01"],
  ["above_threshold", "passing_score", true, "award_each", ["10.01", "10.01"], "20.02"],
  ["above_threshold", "passing_score", true, "overwrite", ["10.01"], "10.01"],
  ["above_threshold", "passing_score", true, "overwrite_if_higher", ["10.01"], "10.01"],
  // Threshold 75: only 80 % reaches it; under overwrite the 70 % attempt (passed, 0 points) takes the 10.01 back.
  ["above_threshold", "rule_specified", false, "ignore", ["10.01"], "10.01"],
  ["above_threshold", "rule_specified", false, "award_each", ["10.01"], "10.01"],
  ["above_threshold", "rule_specified", false, "overwrite", ["10.01", "-10.01"], "0.00"],
  ["above_threshold", "rule_specified", false, "overwrite_if_higher", ["10.01"], "10.01"],
  ["above_threshold", "rule_specified", true, "ignore", ["10.01"], "10.01"],
  ["above_threshold", "rule_specified", true, "award_each", ["10.01"], "10.01"],
  ["above_threshold", "rule_specified", true, "overwrite", ["10.01", "-10.01"], "0.00"],
  ["above_threshold", "rule_specified", true, "overwrite_if_higher", ["10.01"], "10.01"],
  ["above_threshold", "none", false, "ignore", ["10.01"], "10.01"],
  ["above_threshold", "none", false, "award_each", ["10.01", "10.01"], "20.02"],
  ["above_threshold", "none", false, "overwrite", ["10.01"], "10.01"],
  ["above_threshold", "none", false, "overwrite_if_higher", ["10.01"], "10.01"],
  ["above_threshold", "none", true, "ignore", ["10.01"], "10.01"],
  ["above_threshold", "none", true, "award_each", ["10.01", "10.01"], "20.02"],
  ["above_threshold", "none", true, "overwrite", ["10.01"], "10.01"],
  ["above_threshold", "none", true, "overwrite_if_higher", ["10.01"], "10.01"],
];

const cents = (text: string) => Math.round(Number(text) * 100);

async function runMode(calcMode: Row[0]) {
  const { school } = await schoolWithAdmin();
  const student = await signedIn(school, { role: "student" });
  await completionRulesOff(school.id);
  let running = 0;
  for (const [mode, threshold, onlyIfPassed, repeat, expected, total] of TABLE.filter((row) => row[0] === calcMode)) {
    const row = { mode, threshold, onlyIfPassed, repeat };
    const { quiz } = await scoredQuiz(school.id, [student.id], { passingScore: 60 });
    const ruleId = await setRule(school.id, "quiz", quiz.id, {
      enabled: true,
      points: 1001,
      calcMode: mode,
      thresholdSource: threshold === "none" ? null : threshold,
      thresholdValue: 7500,
      awardOnlyIfPassed: onlyIfPassed,
      repeatBehavior: repeat,
    });
    const attempts = [await attemptScoring(student, quiz, 50), await attemptScoring(student, quiz, 80), await attemptScoring(student, quiz, 70)];
    const events = (await eventsOf(school.id, student.id, "quiz")).filter((event) => event.target_id === quiz.id);
    expect({ ...row, events: events.map((event) => event.points) }).toEqual({ ...row, events: expected });
    // Every event names its attempt and the override it applied; the quiz's events sum to the row's total.
    for (const event of events) {
      expect(attempts.map((id) => `quiz_attempt:${id}`)).toContain(event.source_key);
      expect(event).toMatchObject({ rule_id: ruleId, reason: null, actor_user_id: null });
    }
    expect({ ...row, held: dec(events.reduce((sum, event) => sum + cents(event.points), 0)) }).toEqual({ ...row, held: total });
    running += cents(total);
    expect({ ...row, total: await totalOf(school.id, student.id) }).toEqual({ ...row, total: dec(running) });
  }
  expect(await sumOf(school.id, student.id)).toBe(dec(running));
}

describe("the rule table: calc_mode × threshold source × award_only_if_passed × repeat_behavior", () => {
  it("fixed", async () => {
    await runMode("fixed");
  }, 180_000);

  it("raw", async () => {
    await runMode("raw");
  }, 180_000);

  it("above_threshold", async () => {
    await runMode("above_threshold");
  }, 180_000);
});
