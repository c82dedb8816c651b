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
    // Ends with the points so a window snapshot's build sums a run of students from the index alone
    // (docs/decisions/heavy-reads-rating.md, "Window snapshots").
    index("point_events_student").on(t.tenantId, t.studentId, t.awardedAt, t.pointsHundredths),
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

/**
 * A time window of the rating board kept summed per student (docs/decisions/heavy-reads-rating.md,
 * "Window snapshots"): `from_ms` inclusive, `to_ms` exclusive, an open end stored as the far past
 * or future. From its creation the triggers of migration `rating_windows` add every point event
 * inside it to its totals; the queue builds the totals of the events already there, a run of
 * students at a time, and sets `ready_at` after the last run. `requested_at` is the last read that
 * asked for it: a window not asked for within `WINDOW_TTL_MS` is no longer read and is removed.
 */
export const ratingWindows = sqliteTable(
  "rating_windows",
  {
    id: id(),
    tenantId: tenantRef(),
    fromMs: integer("from_ms").notNull(),
    toMs: integer("to_ms").notNull(),
    requestedAt: integer("requested_at").notNull(),
    readyAt: integer("ready_at"),
  },
  (t) => [uniqueIndex("rating_windows_bounds").on(t.tenantId, t.fromMs, t.toMs)],
);

/** A window's sum per student (hundredths), shaped like `rating_totals` so the board reads it with the same statements. */
export const ratingWindowTotals = sqliteTable(
  "rating_window_totals",
  {
    tenantId: tenantRef(),
    windowId: text("window_id").notNull(),
    studentId: text("student_id").notNull(),
    pointsHundredths: integer("points_hundredths").notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.windowId, t.studentId] }), index("rating_window_totals_points").on(t.tenantId, t.windowId, t.pointsHundredths)],
);
