import { sql, type SQL } from "drizzle-orm";
import type { CalcMode, RatingSourceType, RepeatBehavior, ThresholdSource } from "../../db/schema";
import { inSchool } from "../../core/db/conditions";

/**
 * The point rules of a school (docs/decisions/rating.md, "Rating"): what each source type awards, from the
 * built-in defaults of a fresh school, the school's default row of the type, and an override of
 * one object, field by field (an unset field of an override inherits the default's, an unset
 * field of a default the built-in one).
 */

export interface RuleValues {
  enabled: boolean;
  /** Hundredths. */
  points: number;
  calcMode: CalcMode;
  thresholdSource: ThresholdSource | null;
  /** Hundredths of a percent. */
  thresholdValue: number | null;
  awardOnlyIfPassed: boolean;
  repeatBehavior: RepeatBehavior;
}

const completion = (points: number): RuleValues => ({
  enabled: true,
  points,
  calcMode: "fixed",
  thresholdSource: null,
  thresholdValue: null,
  awardOnlyIfPassed: false,
  repeatBehavior: "ignore",
});

const scored = (points: number): RuleValues => ({
  enabled: true,
  points,
  calcMode: "raw",
  thresholdSource: null,
  thresholdValue: null,
  awardOnlyIfPassed: false,
  repeatBehavior: "overwrite_if_higher",
});

/** A fresh school's rules (03-open-points, Rating). `manual` only says adjustments are on. */
export const BUILT_IN_RULES: Readonly<Record<RatingSourceType, RuleValues>> = {
  lesson: completion(100),
  module: completion(500),
  course: completion(2000),
  quiz: scored(1000),
  assignment: scored(1000),
  exam: scored(2000),
  manual: { ...completion(0), repeatBehavior: "award_each" },
};

/** The source types whose award depends on a score (the others count as 100 % and passed). */
export const SCORED_SOURCE_TYPES = ["quiz", "assignment", "exam"] as const satisfies readonly RatingSourceType[];

/**
 * The effective rule of `sourceType` for the object `target` (SQL naming its id), as joins and
 * column expressions for a SELECT: `${rule.joins}` goes in the FROM clause after a table or
 * `(SELECT 1)`, and `rule.enabled`, `rule.points`… are expressions over them. `rule.id` is the
 * override's id, else the school default's, else NULL (the built-in default).
 */
export function effectiveRuleSql(tenantId: string, sourceType: RatingSourceType, target: SQL | string, alias = "r") {
  const d = sql.raw(`${alias}d`);
  const o = sql.raw(`${alias}o`);
  const builtIn = BUILT_IN_RULES[sourceType];
  const pick = (column: string, fallback: unknown) => sql`COALESCE(${o}.${sql.raw(column)}, ${d}.${sql.raw(column)}, ${fallback})`;
  return {
    joins: sql`LEFT JOIN rating_rules ${d} ON ${inSchool(d, tenantId)} AND ${d}.source_type = ${sourceType} AND ${d}.target_id IS NULL
      LEFT JOIN rating_rules ${o} ON ${inSchool(o, tenantId)} AND ${o}.source_type = ${sourceType} AND ${o}.target_id = ${target} AND ${o}.deleted_at IS NULL`,
    id: sql`COALESCE(${o}.id, ${d}.id)`,
    enabled: pick("enabled", builtIn.enabled ? 1 : 0),
    points: pick("points_hundredths", builtIn.points),
    calcMode: pick("calc_mode", builtIn.calcMode),
    thresholdSource: pick("threshold_source", builtIn.thresholdSource),
    thresholdValue: pick("threshold_value_hundredths", builtIn.thresholdValue),
    awardOnlyIfPassed: pick("award_only_if_passed", builtIn.awardOnlyIfPassed ? 1 : 0),
    repeatBehavior: pick("repeat_behavior", builtIn.repeatBehavior),
  };
}

export type EffectiveRuleSql = ReturnType<typeof effectiveRuleSql>;
