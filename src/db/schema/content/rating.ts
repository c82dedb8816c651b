import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, deletedAt, id, tenantRef, updatedAt } from "../columns";

export const RATING_SOURCE_TYPES = ["lesson", "module", "course", "quiz", "assignment", "exam", "manual"] as const;
export type RatingSourceType = (typeof RATING_SOURCE_TYPES)[number];
export const CALC_MODES = ["fixed", "raw", "above_threshold"] as const;
export type CalcMode = (typeof CALC_MODES)[number];
export const THRESHOLD_SOURCES = ["passing_score", "rule_specified"] as const;
export type ThresholdSource = (typeof THRESHOLD_SOURCES)[number];
export const REPEAT_BEHAVIORS = ["ignore", "award_each", "overwrite", "overwrite_if_higher"] as const;
export type RepeatBehavior = (typeof REPEAT_BEHAVIORS)[number];

/**
 * A school's point rules: the default of a source type (`target_id` NULL) or an override for one
 * object (`target_id` the lesson, module, course, quiz, assignment or exam). Every rule column is
 * nullable: NULL inherits, an override from its default, a default from the built-in defaults of
 * a fresh school (src/content/rating/rules.ts). A school without rows has the built-in rules.
 * Overrides are soft-deleted; defaults are never deleted.
 */
export const ratingRules = sqliteTable(
  "rating_rules",
  {
    id: id(),
    tenantId: tenantRef(),
    sourceType: text("source_type").$type<RatingSourceType>().notNull(),
    targetId: text("target_id"),
    enabled: integer("enabled", { mode: "boolean" }),
    pointsHundredths: integer("points_hundredths"),
    calcMode: text("calc_mode").$type<CalcMode>(),
    thresholdSource: text("threshold_source").$type<ThresholdSource>(),
    thresholdValueHundredths: integer("threshold_value_hundredths"),
    awardOnlyIfPassed: integer("award_only_if_passed", { mode: "boolean" }),
    repeatBehavior: text("repeat_behavior").$type<RepeatBehavior>(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    deletedAt: deletedAt(),
  },
  (t) => [
    uniqueIndex("rating_rules_default").on(t.tenantId, t.sourceType).where(sql`target_id IS NULL`),
    uniqueIndex("rating_rules_override").on(t.tenantId, t.sourceType, t.targetId).where(sql`target_id IS NOT NULL AND deleted_at IS NULL`),
  ],
);

/**
 * Every change of a student's points, kept for ever: a rule's award (signed: an `overwrite` that
 * lowers a result writes the negative difference) or an admin's adjustment (`source_type`
 * `manual`, `reason` required). `source_key` names the source event once per school
 * (`quiz_attempt:<id>`, `lesson:<lesson>:<student>`, `manual:<idempotency_key>`…), so a retried
 * or concurrent write inserts nothing. A student's total is the sum of their rows, kept in
 * `rating_totals` by the triggers of migration 0012.
 */
export const pointEvents = sqliteTable(
  "point_events",
  {
    id: id(),
    tenantId: tenantRef(),
    studentId: text("student_id").notNull(),
    sourceType: text("source_type").$type<RatingSourceType>().notNull(),
    targetId: text("target_id"),
    sourceKey: text("source_key").notNull(),
    pointsHundredths: integer("points_hundredths").notNull(),
    ruleId: text("rule_id"),
    reason: text("reason"),
    actorUserId: text("actor_user_id"),
    awardedAt: integer("awarded_at").notNull(),
  },
  (t) => [
    uniqueIndex("point_events_source_key").on(t.tenantId, t.sourceKey),
    index("point_events_student").on(t.tenantId, t.studentId, t.awardedAt),
    index("point_events_student_target").on(t.tenantId, t.studentId, t.sourceType, t.targetId),
    // Covering for the windowed board: a time range yields each event's student and points without
    // reading the table (docs/decisions/heavy-reads-rating.md, "Rating buckets").
    index("point_events_awarded_points").on(t.tenantId, t.awardedAt, t.studentId, t.pointsHundredths),
    index("point_events_target").on(t.tenantId, t.targetId),
  ],
);

/**
 * A student's running total (hundredths), maintained by the triggers of migration 0012 on every
 * insert into and delete from `point_events`, in the same statement, so it never drifts and is
 * never recomputed per request. A student without a row has 0 points.
 */
export const ratingTotals = sqliteTable(
  "rating_totals",
  {
    tenantId: tenantRef(),
    studentId: text("student_id").notNull(),
    pointsHundredths: integer("points_hundredths").notNull().default(0),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.studentId] }), index("rating_totals_points").on(t.tenantId, t.pointsHundredths)],
);
