import { expect } from "vitest";
import { uuidv7 } from "../../../src/core/lib/ids";
import { giveQuizAccess, insertQuiz } from "../../helpers/quizzes";
import type { Member } from "../../helpers/users";
import { save, started, submit } from "../attempts/helpers";
import { fixtureD1 } from "../../helpers/databases";

/**
 * Fixtures of the award tests: rules written straight to `rating_rules` (the rules endpoints have
 * their own tests), quizzes whose score a test picks, and the student's point events and total as
 * D1 holds them.
 */

export type SourceType = "lesson" | "module" | "course" | "quiz" | "assignment" | "exam" | "manual";

export interface RuleFields {
  enabled?: boolean | null;
  /** Hundredths. */
  points?: number | null;
  calcMode?: "fixed" | "raw" | "above_threshold" | null;
  thresholdSource?: "passing_score" | "rule_specified" | null;
  /** Hundredths of a percent. */
  thresholdValue?: number | null;
  awardOnlyIfPassed?: boolean | null;
  repeatBehavior?: "ignore" | "award_each" | "overwrite" | "overwrite_if_higher" | null;
}

const bool = (value: boolean | null | undefined) => (value === undefined || value === null ? null : value ? 1 : 0);

/** The school's default of the source type (`targetId` null) or an override of one object; unset fields NULL (inherit). Returns the row id. */
export async function setRule(tenantId: string, sourceType: SourceType, targetId: string | null, fields: RuleFields): Promise<string> {
  const id = uuidv7();
  const now = Date.now();
  await fixtureD1.prepare(
    `INSERT INTO rating_rules (id, tenant_id, source_type, target_id, enabled, points_hundredths, calc_mode, threshold_source, threshold_value_hundredths,
       award_only_if_passed, repeat_behavior, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  )
    .bind(
      id,
      tenantId,
      sourceType,
      targetId,
      bool(fields.enabled),
      fields.points ?? null,
      fields.calcMode ?? null,
      fields.thresholdSource ?? null,
      fields.thresholdValue ?? null,
      bool(fields.awardOnlyIfPassed),
      fields.repeatBehavior ?? null,
      now,
      now,
    )
    .run();
  return id;
}

/** Switches the completion sources off, so a test of scored sources sees only their points. */
export async function completionRulesOff(tenantId: string): Promise<void> {
  for (const type of ["lesson", "module", "course"] as const) await setRule(tenantId, type, null, { enabled: false });
}

/** Hundredths as the API writes decimals, written out here rather than taken from the code under test. */
export function dec(hundredths: number): string {
  const sign = hundredths < 0 ? "-" : "";
  const abs = Math.abs(hundredths);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, "0")}`;
}

export interface EventRow {
  source_type: string;
  target_id: string | null;
  source_key: string;
  points: string;
  rule_id: string | null;
  reason: string | null;
  actor_user_id: string | null;
  awarded_at: number;
}

/** The student's point events in the order they were written (rowid), `source_type` filtered when given. */
export async function eventsOf(tenantId: string, studentId: string, sourceType?: SourceType): Promise<EventRow[]> {
  const rows = await fixtureD1.prepare(
    `SELECT source_type, target_id, source_key, points_hundredths, rule_id, reason, actor_user_id, awarded_at FROM point_events
     WHERE tenant_id = ? AND student_id = ? ${sourceType ? "AND source_type = ?" : ""} ORDER BY rowid`,
  )
    .bind(...[tenantId, studentId, ...(sourceType ? [sourceType] : [])])
    .all<Omit<EventRow, "points"> & { points_hundredths: number }>();
  return rows.results.map(({ points_hundredths, ...row }) => ({ ...row, points: dec(points_hundredths) }));
}

/** The points of the student's events on one object, oldest first. */
export async function pointsOn(tenantId: string, studentId: string, targetId: string): Promise<string[]> {
  return (await eventsOf(tenantId, studentId)).filter((row) => row.target_id === targetId).map((row) => row.points);
}

/** The student's stored total (`rating_totals`), "0.00" without a row. */
export async function totalOf(tenantId: string, studentId: string): Promise<string> {
  const row = await fixtureD1.prepare("SELECT points_hundredths FROM rating_totals WHERE tenant_id = ? AND student_id = ?").bind(tenantId, studentId).first<{ points_hundredths: number }>();
  return dec(row?.points_hundredths ?? 0);
}

/** The sum of the student's events, to check the stored total against. */
export async function sumOf(tenantId: string, studentId: string): Promise<string> {
  const row = await fixtureD1.prepare("SELECT COALESCE(SUM(points_hundredths), 0) AS s FROM point_events WHERE tenant_id = ? AND student_id = ?").bind(tenantId, studentId).first<{ s: number }>();
  return dec(row!.s);
}

/**
 * A quiz of three single-choice questions worth 5, 3 and 2 points (the first answer right), so a
 * submit scores 0, 20, 30, 50, 70, 80 or 100 %; reachable by the students through a published
 * course with one `quiz_ref` block.
 */
export async function scoredQuiz(
  tenantId: string,
  studentIds: readonly string[],
  spec: { passingScore?: number | null; title?: string; maxAttempts?: number | null; courseTitle?: string } = {},
) {
  const quiz = await insertQuiz(tenantId, {
    title: spec.title ?? "Fractions",
    passingScore: spec.passingScore ?? null,
    maxAttempts: spec.maxAttempts ?? null,
    questions: [
      { type: "single", pointsHundredths: 500 },
      { type: "single", pointsHundredths: 300 },
      { type: "single", pointsHundredths: 200 },
    ],
  });
  const tree = await giveQuizAccess(tenantId, quiz.id, studentIds, spec.courseTitle ? { title: spec.courseTitle } : {});
  return { quiz, tree };
}

/** Which questions to answer right for a score: 5 + 3 + 2 points. */
const RIGHT: Record<number, number[]> = { 0: [], 20: [2], 30: [1], 50: [0], 70: [0, 2], 80: [0, 1], 100: [0, 1, 2] };

type ScoredQuiz = Awaited<ReturnType<typeof scoredQuiz>>["quiz"];

/** Starts an attempt, answers for `pct` % and submits it through HTTP; the attempt id. */
export async function attemptScoring(student: Member, quiz: ScoredQuiz, pct: number): Promise<string> {
  const right = RIGHT[pct];
  if (!right) throw new Error(`no answer set scores ${pct} %`);
  const id = await started(student, quiz.id);
  if (right.length > 0) {
    const saved = await save(
      student,
      id,
      right.map((index) => ({ question_id: quiz.questions[index]!.id, payload: { answer_ids: [quiz.questions[index]!.answerIds[0]] } })),
    );
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
  }
  const done = await submit(student, id);
  expect(done.status, JSON.stringify(done.body)).toBe(200);
  expect(done.body.data.score_pct).toBe(`${pct}.00`);
  return id;
}
