import { and, asc, getTableColumns, isNull, or, sql, type SQL } from "drizzle-orm";
import { formatHundredths, formatHundredthsOrNull } from "../../core/db/decimal";
import type { ServiceContext, SchoolCtx } from "../../core/http/context";
import { isoOrNull } from "../../core/lib/clock";
import { RATING_SOURCE_TYPES, ratingRules, type RatingSourceType } from "../../db/schema";
import { targetLabelSql } from "./labels";
import { BUILT_IN_RULES, type RuleValues } from "./rules";
import type { RatingRuleView, RuleField } from "./rules-schemas";
import { inSchool } from "../../core/db/conditions";

/**
 * The rules as the admin screen shows them (docs/decisions/rating.md, "Rules and adjustments"): per source type, in the
 * order of RATING_SOURCE_TYPES, the effective default (the built-in one while the school has no
 * row) and then its live overrides by creation, each with the values that apply, inherited ones
 * filled in, and the fields the rule sets itself.
 */

export type RuleRow = typeof ratingRules.$inferSelect;

/** The school's rule rows matching `where`, with the overridden object's title. */
export function ruleRowsQuery(ctx: ServiceContext, tenantId: string, where: SQL | undefined) {
  return ctx.db
    .select({
      ...getTableColumns(ratingRules),
      targetTitle: sql<string | null>`${targetLabelSql(tenantId, sql`${ratingRules.sourceType}`, sql`${ratingRules.targetId}`)}`,
    })
    .from(ratingRules)
    .where(and(inSchool(ratingRules, tenantId), where))
    .orderBy(asc(ratingRules.createdAt), asc(ratingRules.id));
}

export type RuleRowWithTitle = Awaited<ReturnType<typeof ruleRowsQuery>>[number];

const COLUMN_OF: Record<RuleField, keyof RuleRow> = {
  enabled: "enabled",
  points: "pointsHundredths",
  calc_mode: "calcMode",
  threshold_source: "thresholdSource",
  threshold_value: "thresholdValueHundredths",
  award_only_if_passed: "awardOnlyIfPassed",
  repeat_behavior: "repeatBehavior",
};

/** The fields a stored rule sets (its non-NULL columns), in the API's field order. */
export function ownFields(row: Pick<RuleRow, (typeof COLUMN_OF)[RuleField]> | null | undefined): RuleField[] {
  if (!row) return [];
  return (Object.keys(COLUMN_OF) as RuleField[]).filter((field) => row[COLUMN_OF[field]] !== null && row[COLUMN_OF[field]] !== undefined);
}

type StoredValues = Partial<Pick<RuleRow, "enabled" | "pointsHundredths" | "calcMode" | "thresholdSource" | "thresholdValueHundredths" | "awardOnlyIfPassed" | "repeatBehavior">>;

/** `row`'s set fields over `base` (a NULL or missing field inherits). */
export function mergeRule(base: RuleValues, row: StoredValues | null | undefined): RuleValues {
  if (!row) return base;
  return {
    enabled: row.enabled ?? base.enabled,
    points: row.pointsHundredths ?? base.points,
    calcMode: row.calcMode ?? base.calcMode,
    thresholdSource: row.thresholdSource ?? base.thresholdSource,
    thresholdValue: row.thresholdValueHundredths ?? base.thresholdValue,
    awardOnlyIfPassed: row.awardOnlyIfPassed ?? base.awardOnlyIfPassed,
    repeatBehavior: row.repeatBehavior ?? base.repeatBehavior,
  };
}

function present(
  ctx: SchoolCtx,
  sourceType: RatingSourceType,
  values: RuleValues,
  row: RuleRowWithTitle | null,
  defaultRow: RuleRowWithTitle | null,
): RatingRuleView {
  const override = row !== null && row.targetId !== null;
  return {
    id: row?.id ?? null,
    kind: override ? "override" : "default",
    default_id: defaultRow?.id ?? null,
    tenant_id: ctx.tenantId,
    source_type: sourceType,
    target_id: override ? row.targetId : null,
    target_title: override ? (row.targetTitle ?? null) : null,
    enabled: values.enabled,
    points: formatHundredths(values.points),
    calc_mode: values.calcMode,
    threshold_source: values.thresholdSource,
    threshold_value: formatHundredthsOrNull(values.thresholdValue),
    award_only_if_passed: values.awardOnlyIfPassed,
    repeat_behavior: values.repeatBehavior,
    overridden_fields: ownFields(row),
    created_at: isoOrNull(row?.createdAt),
    updated_at: isoOrNull(row?.updatedAt),
  };
}

/** GET /admin/gamification/rules: every source type's default and every live override, one query. */
export async function listRules(ctx: SchoolCtx): Promise<{ rules: RatingRuleView[] }> {
  const rows = await ruleRowsQuery(ctx, ctx.tenantId, or(isNull(ratingRules.targetId), isNull(ratingRules.deletedAt)));
  const rules: RatingRuleView[] = [];
  for (const sourceType of RATING_SOURCE_TYPES) {
    const ofType = rows.filter((row) => row.sourceType === sourceType);
    const defaultRow = ofType.find((row) => row.targetId === null) ?? null;
    const defaults = mergeRule(BUILT_IN_RULES[sourceType], defaultRow);
    rules.push(present(ctx, sourceType, defaults, defaultRow, defaultRow));
    for (const row of ofType) {
      if (row.targetId !== null) rules.push(present(ctx, sourceType, mergeRule(defaults, row), row, defaultRow));
    }
  }
  return { rules };
}
