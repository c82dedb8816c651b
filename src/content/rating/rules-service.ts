import { and, eq, isNull, sql, type SQL } from "drizzle-orm";
import { batchable, changedRows, rowsOf, runBatch, type BatchItem } from "../../core/db/batch";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError, coreErrors } from "../../core/http/errors";
import { uuidv7 } from "../../core/lib/ids";
import { CALC_MODES, RATING_SOURCE_TYPES, ratingRules, type CalcMode, type RatingSourceType } from "../../db/schema";
import { ratingErrors } from "./errors";
import { OBJECT_TABLES, type RatedObjectType } from "./labels";
import { mergeRule, ruleRowsQuery, type RuleRowWithTitle } from "./rules-read";
import { BUILT_IN_RULES, type RuleValues } from "./rules";
import type { RuleBody } from "./rules-schemas";
import { inSchool } from "../../core/db/conditions";

/**
 * The admin's writes of point rules (docs/decisions/rating.md, "Rules and adjustments"). A default is one row per school
 * and source type, created by its first PUT and never deleted; an override is one live row per
 * object, soft-deleted. A write stores only the fields the body gives (absent or null: the stored
 * value stays, so a field once set is changed, never cleared); a NULL column inherits.
 *
 * The assignment checks look at the rule as it will be after the write. They cannot be broken by
 * a concurrent write to another row: a threshold_value, once set, is never cleared, and
 * passing_score is refused on every assignment rule, so a rule that passes stays valid whatever
 * its default does later.
 */

type TargetType = RatedObjectType;

interface Stored {
  enabled: boolean | null;
  pointsHundredths: number | null;
  calcMode: CalcMode | null;
  thresholdSource: RuleValues["thresholdSource"];
  thresholdValueHundredths: number | null;
  awardOnlyIfPassed: boolean | null;
  repeatBehavior: RuleValues["repeatBehavior"] | null;
}

function invalidBody(message: string): ApiError {
  return new ApiError(coreErrors.INVALID_REQUEST_BODY, { message });
}

function sourceTypeOf(raw: string): RatingSourceType {
  const found = RATING_SOURCE_TYPES.find((type) => type === raw);
  if (!found) throw invalidBody(`source_type must be one of ${RATING_SOURCE_TYPES.join(", ")}.`);
  return found;
}

/** The body as the columns it writes (NULL: unchanged), after the checks that need no stored row. */
function storedOf(sourceType: RatingSourceType, body: RuleBody): Stored {
  const stored: Stored = {
    enabled: body.enabled ?? null,
    pointsHundredths: body.points ?? null,
    calcMode: null,
    thresholdSource: body.threshold_source ?? null,
    thresholdValueHundredths: body.threshold_value ?? null,
    awardOnlyIfPassed: body.award_only_if_passed ?? null,
    repeatBehavior: body.repeat_behavior ?? null,
  };
  if (sourceType === "manual") {
    const others = Object.entries(body).filter(([field, value]) => field !== "enabled" && value !== null && value !== undefined);
    if (others.length > 0) {
      throw invalidBody(`The manual rule governs adjustments and takes only enabled (got ${others.map(([field]) => field).join(", ")}).`);
    }
  }
  if (body.calc_mode !== null && body.calc_mode !== undefined) {
    const mode = CALC_MODES.find((candidate) => candidate === body.calc_mode);
    if (!mode) throw new ApiError(ratingErrors.INVALID_CALC_MODE);
    stored.calcMode = mode;
  }
  return stored;
}

/** The assignment rules' invariants, on the rule as it will be after the write. */
function checkAssignment(values: RuleValues): void {
  if (values.thresholdSource === "passing_score") throw new ApiError(ratingErrors.ASSIGNMENT_NO_PASSING_SCORE);
  if ((values.calcMode === "above_threshold" || values.awardOnlyIfPassed) && values.thresholdValue === null) {
    throw new ApiError(ratingErrors.ASSIGNMENT_PASSED_REQUIRES_THRESHOLD);
  }
}

const flag = (value: boolean | null) => (value === null ? null : value ? 1 : 0);

/** The INSERT's values and the upsert's SET: each given field replaces, each NULL keeps the stored one. */
function upsertParts(stored: Stored) {
  const values = sql`${flag(stored.enabled)}, ${stored.pointsHundredths}, ${stored.calcMode}, ${stored.thresholdSource},
    ${stored.thresholdValueHundredths}, ${flag(stored.awardOnlyIfPassed)}, ${stored.repeatBehavior}`;
  const keep = (column: string) => sql.raw(`${column} = COALESCE(excluded.${column}, rating_rules.${column})`);
  const set = sql.join(
    ["enabled", "points_hundredths", "calc_mode", "threshold_source", "threshold_value_hundredths", "award_only_if_passed", "repeat_behavior"].map(keep),
    sql`, `,
  );
  return { values, set: sql`${set}, updated_at = excluded.updated_at` };
}

const COLUMNS = sql.raw(
  "id, tenant_id, source_type, target_id, enabled, points_hundredths, calc_mode, threshold_source, threshold_value_hundredths, award_only_if_passed, repeat_behavior, created_at, updated_at, deleted_at",
);

/** PUT /admin/gamification/rules/defaults/:source_type: creates or changes the school's default row. */
export async function putDefaultRule(ctx: SchoolCtx, input: { sourceType: string; body: RuleBody }): Promise<{ updated: true }> {
  const sourceType = sourceTypeOf(input.sourceType);
  const stored = storedOf(sourceType, input.body);
  if (sourceType === "assignment") {
    const [current] = await ruleRowsQuery(ctx, ctx.tenantId, and(eq(ratingRules.sourceType, sourceType), isNull(ratingRules.targetId)));
    checkAssignment(mergeRule(mergeRule(BUILT_IN_RULES[sourceType], current), stored));
  }
  const now = ctx.clock.now();
  const { values, set } = upsertParts(stored);
  await ctx.db.run(sql`INSERT INTO rating_rules (${COLUMNS}) VALUES (${uuidv7()}, ${ctx.tenantId}, ${sourceType}, NULL, ${values}, ${now}, ${now}, NULL)
    ON CONFLICT (tenant_id, source_type) WHERE target_id IS NULL DO UPDATE SET ${set}`);
  return { updated: true };
}

function liveTargetSql(ctx: SchoolCtx, sourceType: TargetType, targetId: string): SQL {
  return sql`EXISTS (SELECT 1 FROM ${sql.raw(OBJECT_TABLES[sourceType])} tg WHERE ${inSchool("tg", ctx.tenantId)} AND tg.id = ${targetId} AND tg.deleted_at IS NULL)`;
}

function invalidTarget(sourceType: RatingSourceType, targetId: string): ApiError {
  return new ApiError(ratingErrors.INVALID_TARGET_ID, { message: `target_id ${targetId} is not a ${sourceType} of this school (missing, deleted or another school's).` });
}

/**
 * PUT /admin/gamification/rules/overrides/:source_type/:target_id: creates or changes the live
 * override of one object of the school. One read (the object, the default, the override), then
 * one upsert that writes only while the object is still live.
 */
export async function putOverrideRule(ctx: SchoolCtx, input: { sourceType: string; targetId: string; body: RuleBody }): Promise<{ updated: true }> {
  const sourceType = sourceTypeOf(input.sourceType);
  if (sourceType === "manual") throw invalidBody("The manual rule has no overrides: adjustments are not about an object.");
  const stored = storedOf(sourceType, input.body);
  const { targetId } = input;
  const live = liveTargetSql(ctx, sourceType, targetId);
  const reads = await runBatch(ctx, [
    batchable(ctx, sql`SELECT ${live} AS live`),
    ruleRowsQuery(ctx, ctx.tenantId, and(eq(ratingRules.sourceType, sourceType), isNull(ratingRules.targetId))) as unknown as BatchItem,
    ruleRowsQuery(ctx, ctx.tenantId, and(eq(ratingRules.sourceType, sourceType), eq(ratingRules.targetId, targetId), isNull(ratingRules.deletedAt))) as unknown as BatchItem,
  ]);
  if (rowsOf<{ live: number }>(reads[0])[0]?.live !== 1) throw invalidTarget(sourceType, targetId);
  if (sourceType === "assignment") {
    const [defaultRow] = reads[1] as RuleRowWithTitle[];
    const [override] = reads[2] as RuleRowWithTitle[];
    const defaults = mergeRule(BUILT_IN_RULES[sourceType], defaultRow);
    checkAssignment(mergeRule(mergeRule(defaults, override), stored));
  }
  const now = ctx.clock.now();
  const { values, set } = upsertParts(stored);
  const result = await ctx.db.run(sql`INSERT INTO rating_rules (${COLUMNS})
      SELECT ${uuidv7()}, ${ctx.tenantId}, ${sourceType}, ${targetId}, ${values}, ${now}, ${now}, NULL WHERE ${live}
    ON CONFLICT (tenant_id, source_type, target_id) WHERE target_id IS NOT NULL AND deleted_at IS NULL DO UPDATE SET ${set}`);
  if (changedRows(result) === 0) throw invalidTarget(sourceType, targetId);
  return { updated: true };
}

/**
 * DELETE /admin/gamification/rules/overrides/:source_type/:target_id: soft-deletes the live
 * override; the object then follows the default. The object itself may be gone (its override is
 * inert but still listed, so it can be cleaned up). No live override: 404 `rule_not_found`.
 */
export async function deleteOverrideRule(ctx: SchoolCtx, input: { sourceType: string; targetId: string }): Promise<{ deleted: true }> {
  const now = ctx.clock.now();
  const result = await ctx.db.run(sql`UPDATE rating_rules SET deleted_at = ${now}, updated_at = ${now}
    WHERE ${inSchool(ctx.tenantId)} AND source_type = ${input.sourceType} AND target_id = ${input.targetId} AND deleted_at IS NULL`);
  if (changedRows(result) === 0) throw new ApiError(ratingErrors.RULE_NOT_FOUND);
  return { deleted: true };
}
