import { z } from "@hono/zod-openapi";
import { decimalField, DecimalString } from "../../core/db/decimal";
import { uuidParam } from "../../core/http/pagination";
import { CALC_MODES, RATING_SOURCE_TYPES, REPEAT_BEHAVIORS, THRESHOLD_SOURCES } from "../../db/schema";

export const RULE_LIMITS = { maxPoints: 100_000, maxThreshold: 100 } as const;

const uuid = z.string().openapi({ format: "uuid" });
const timestamp = z.string().openapi({ format: "date-time" });

// The source type is checked by the service, so an unknown one answers `invalid_request_body`
// rather than the path's uuid identifier (`invalid_target_id` on the override routes).
const sourceType = z.string().openapi({ enum: [...RATING_SOURCE_TYPES], example: "quiz" });

export const DefaultRuleParams = z.object({ source_type: sourceType });

export const OverrideRuleParams = z.object({ source_type: sourceType, target_id: uuidParam });

/** Every field optional; absent or null leaves the stored value as it is. */
export const RuleBody = z
  .object({
    enabled: z.boolean().nullable().optional(),
    points: decimalField({ min: 0, max: RULE_LIMITS.maxPoints })
      .nullable()
      .optional()
      .openapi({ type: "string", example: "10.00", description: "A decimal from 0 to 100000.00 with at most two decimals." }),
    // Any string: a value other than the three modes answers `invalid_calc_mode` (the service's check).
    calc_mode: z.string().nullable().optional().openapi({ enum: [...CALC_MODES] }),
    threshold_source: z.enum(THRESHOLD_SOURCES).nullable().optional(),
    threshold_value: decimalField({ min: 0, max: RULE_LIMITS.maxThreshold })
      .nullable()
      .optional()
      .openapi({ type: "string", example: "60.00", description: "A percentage from 0 to 100 with at most two decimals." }),
    award_only_if_passed: z.boolean().nullable().optional(),
    repeat_behavior: z.enum(REPEAT_BEHAVIORS).nullable().optional(),
  })
  .openapi("RatingRuleRequest");

export type RuleBody = z.infer<typeof RuleBody>;

export const RULE_FIELDS = ["enabled", "points", "calc_mode", "threshold_source", "threshold_value", "award_only_if_passed", "repeat_behavior"] as const;
export type RuleField = (typeof RULE_FIELDS)[number];

export const RatingRuleObject = z
  .object({
    id: uuid.nullable().openapi({ description: "The stored rule's id; null for a default the school never changed (the built-in one)." }),
    kind: z.enum(["default", "override"]),
    default_id: uuid.nullable().openapi({ description: "The id of the school's default row of this source type; null while the built-in default applies." }),
    tenant_id: uuid,
    source_type: z.enum(RATING_SOURCE_TYPES),
    target_id: uuid.nullable().openapi({ description: "The object an override is for; null for a default." }),
    target_title: z.string().nullable().openapi({ description: "The overridden object's title (deleted objects included); null for a default." }),
    enabled: z.boolean(),
    points: DecimalString,
    calc_mode: z.enum(CALC_MODES),
    threshold_source: z.enum(THRESHOLD_SOURCES).nullable(),
    threshold_value: DecimalString.nullable(),
    award_only_if_passed: z.boolean(),
    repeat_behavior: z.enum(REPEAT_BEHAVIORS),
    overridden_fields: z.array(z.enum(RULE_FIELDS)).openapi({
      description: "The fields this rule sets itself: an override's over its default, a default's over the built-in rule. The others are inherited.",
    }),
    created_at: timestamp.nullable(),
    updated_at: timestamp.nullable(),
  })
  .openapi("RatingRule", { description: "Values are the effective ones, inherited fields filled in." });

export type RatingRuleView = z.infer<typeof RatingRuleObject>;

export const RuleList = z.object({ rules: z.array(RatingRuleObject) });

export const UpdatedResult = z.object({ updated: z.literal(true) });
