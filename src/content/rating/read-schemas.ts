import { z } from "@hono/zod-openapi";
import { DecimalString } from "../../core/db/decimal";
import { searchTerm } from "../../core/http/fields";
import { multiValueQuery, offsetQuery } from "../../core/http/pagination";
import { RATING_SOURCE_TYPES } from "../../db/schema";

/** Shapes of the rating reads: the leaderboard, its filter options, a student's summary and events. */

const uuid = z.string().openapi({ format: "uuid" });
const timestamp = z.string().openapi({ format: "date-time" });

/** Query uuids stay strings here: each malformed one answers its own identifier (`invalid group_id`…), checked by the service. */
const queryUuid = (name: string) => z.string().optional().openapi({ format: "uuid", description: `A uuid; a malformed one answers 400 \`invalid ${name}\`` });
const queryTime = (description: string) => z.string().optional().openapi({ format: "date-time", description });

export const RATING_LIMITS = { board: { maxLimit: 100, defaultLimit: 10 }, events: { maxLimit: 100, defaultLimit: 50 } } as const;

export const LeaderboardQuery = z.object({
  group_id: queryUuid("group_id"),
  module_id: queryUuid("module_id"),
  source_id: queryUuid("source_id"),
  source_types: multiValueQuery(RATING_SOURCE_TYPES).optional(),
  from: queryTime("RFC 3339, inclusive: only points awarded from then on count"),
  to: queryTime("RFC 3339, exclusive; must be after from"),
  limit: z.coerce.number().int().min(1).max(RATING_LIMITS.board.maxLimit).default(RATING_LIMITS.board.defaultLimit),
});

export const LeaderboardEntry = z
  .object({
    rank: z.number().int().openapi({ description: "Competition ranking: 1 + the students of the population with more points (1, 1, 3)" }),
    student_id: uuid,
    display_name: z.string().openapi({ description: "Full name; to a student, other students appear as first name and surname initial (\"Lola B.\")" }),
    points: DecimalString,
  })
  .openapi("LeaderboardEntry");

export const Leaderboard = z
  .object({
    entries: z.array(LeaderboardEntry),
    total_students: z.number().int().openapi({ description: "Active students in the population the caller sees (the group's, a restricted curator's own)" }),
    caller_rank: z.number().int().optional().openapi({ description: "Students only: their rank in the population, also when outside the page" }),
    caller_points: DecimalString.optional().openapi({ description: "Students only" }),
    time_window: z.object({ from: timestamp.nullable(), to: timestamp.nullable() }).optional().openapi({ description: "Only when from or to is given" }),
  })
  .openapi("Leaderboard");

export const FilterOptionsQuery = z.object({ group_id: queryUuid("group_id"), module_id: queryUuid("module_id") });

const FilterOption = z.object({ id: uuid, title: z.string() }).openapi("RatingFilterOption");

export const FilterOptions = z
  .object({ lessons: z.array(FilterOption), quizzes: z.array(FilterOption), assignments: z.array(FilterOption), exams: z.array(FilterOption) })
  .openapi("RatingFilterOptions");

export const StudentSummary = z
  .object({
    school_rank: z.number().int().nullable().openapi({ description: "Among the school's active students; null while the student is inactive" }),
    school_total: DecimalString,
    school_total_students: z.number().int(),
    group_ranks: z.array(
      z.object({
        group_id: uuid,
        group_name: z.string(),
        rank: z.number().int().nullable().openapi({ description: "Among the group's active members by school totals; null while the student is inactive" }),
        total_points: DecimalString.openapi({ description: "The student's school total (points are not kept per group)" }),
        total_students: z.number().int(),
      }),
    ),
  })
  .openapi("RatingStudentSummary");

export const StudentEventsQuery = z.object({
  source_type: multiValueQuery(RATING_SOURCE_TYPES).optional(),
  from: queryTime("RFC 3339, inclusive (400 `invalid_time`)"),
  to: queryTime("RFC 3339, exclusive, after from (400 `invalid_time`)"),
  sign: z.string().optional().openapi({ enum: ["positive", "negative", "all"], description: "Default all (400 `invalid_sign`)" }),
  reason_search: searchTerm(200).openapi({ description: "Case-insensitive substring of the reason (ASCII letters fold); % and _ are literal" }),
  ...offsetQuery(RATING_LIMITS.events),
});

export const PointEvent = z
  .object({
    id: uuid,
    awarded_at: timestamp,
    source_type: z.enum(RATING_SOURCE_TYPES),
    target_id: uuid.nullable(),
    target_label: z.string().nullable(),
    points: DecimalString.openapi({ description: "Signed" }),
    rule_id: uuid.nullable(),
    reason: z.string().nullable(),
    actor_user_id: uuid.nullable(),
    actor_display_name: z.string().nullable(),
  })
  .openapi("PointEvent");

export const StudentEvents = z
  .object({ events: z.array(PointEvent), total: z.number().int(), limit: z.number().int(), offset: z.number().int() })
  .openapi("RatingStudentEvents");
