import { sql, type SQL } from "drizzle-orm";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { UUID_PATTERN } from "../../core/lib/ids";
import { restrictedScope, scopeCondition } from "../schools/curator-scope";
import { notificationsErrors as e } from "./errors";
import { inSchool, liveInSchool } from "../../core/db/conditions";

/**
 * The audience filter: `{match: 'all'|'any', rules: [{field, operator, values | value}]}`, compiled
 * to one SQL condition over the school's students (alias `u`), so an audience of any size is
 * counted, sampled or snapshotted by one statement, never student by student.
 *
 * Each field is one entry of `AUDIENCE_FIELDS`: its operators and how each compiles. The fields of
 * the learning-content areas (course enrollment, lessons, quizzes, scores, paths, points and rank)
 * are known names that answer "not available yet" until their area registers its entry with
 * `registerAudienceField` (the platform never imports those areas; they call in).
 */
export interface AudienceFilter {
  match: "all" | "any";
  rules: AudienceRule[];
}

export interface AudienceRule {
  field: string;
  operator: string;
  values?: string[];
  value?: string | number | boolean;
}

const MAX_RULES = 50;
const MAX_VALUES = 500;

/** What compiling a rule can see: the school (every subquery filters by it) and the clock. */
export interface CompileContext {
  tenantId: string;
  now: number;
}

export interface FieldSpec {
  /** Compiles one rule (already checked to name one of the operators) to a condition on `u`. */
  operators: Record<string, (rule: AudienceRule, at: CompileContext) => SQL>;
}

function invalid(message: string): ApiError {
  return new ApiError(e.INVALID_AUDIENCE, { message });
}

/** `values`: 1..MAX_VALUES uuids, lower-cased, duplicates dropped. */
export function uuidValues(rule: AudienceRule): string[] {
  const values = rule.values;
  if (!Array.isArray(values) || values.length === 0 || values.length > MAX_VALUES) {
    throw invalid(`${rule.field} ${rule.operator} takes "values": 1 to ${MAX_VALUES} ids.`);
  }
  if (!values.every((value) => typeof value === "string" && UUID_PATTERN.test(value))) throw invalid(`${rule.field} values must be UUIDs.`);
  return [...new Set(values.map((value) => value.toLowerCase()))];
}

/** `value`: the string `true` or `false` (a JSON boolean is taken too). */
function booleanValue(rule: AudienceRule): boolean {
  const value = rule.value;
  if (value === true || value === "true") return true;
  if (value === false || value === "false") return false;
  throw invalid(`${rule.field} eq takes "value": "true" or "false".`);
}

/** `value`: an RFC 3339 timestamp with a time zone. */
function timeValue(rule: AudienceRule): number {
  const value = rule.value;
  const ms = typeof value === "string" && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i.test(value) ? Date.parse(value) : NaN;
  if (!Number.isFinite(ms)) throw invalid(`${rule.field} ${rule.operator} takes "value": an RFC 3339 time such as 2030-01-31T09:00:00Z.`);
  return ms;
}

const inGroups = (rule: AudienceRule, at: CompileContext) => sql`EXISTS (SELECT 1 FROM group_members gm
    JOIN groups g ON g.id = gm.group_id AND ${liveInSchool("g", at.tenantId)}
    WHERE gm.user_id = u.id AND ${inSchool("gm", at.tenantId)} AND gm.group_id IN (SELECT value FROM json_each(${JSON.stringify(uuidValues(rule))})))`;

const hasDevice = (at: CompileContext) => sql`EXISTS (SELECT 1 FROM push_devices d
    WHERE ${inSchool("d", at.tenantId)} AND d.user_id = u.id AND d.deleted_at IS NULL AND d.enabled = 1 AND d.token_hash IS NOT NULL)`;

const pushOn = (at: CompileContext) => sql`COALESCE((SELECT p.push_enabled FROM push_preferences p WHERE ${inSchool("p", at.tenantId)} AND p.user_id = u.id), 1) = 1`;

export const AUDIENCE_FIELDS: Record<string, FieldSpec> = {
  group_id: {
    operators: {
      in: (rule, at) => inGroups(rule, at),
      not_in: (rule, at) => sql`NOT ${inGroups(rule, at)}`,
    },
  },
  has_device: { operators: { eq: (rule, at) => (booleanValue(rule) ? hasDevice(at) : sql`NOT ${hasDevice(at)}`) } },
  push_enabled: { operators: { eq: (rule, at) => (booleanValue(rule) ? pushOn(at) : sql`NOT (${pushOn(at)})`) } },
  // A student who was never active counts as active "before" any time and never "after".
  last_active_at: {
    operators: {
      before: (rule) => sql`(u.last_active_at IS NULL OR u.last_active_at < ${timeValue(rule)})`,
      after: (rule) => sql`u.last_active_at > ${timeValue(rule)}`,
    },
  },
};

/** Named fields whose data belongs to areas not built yet. */
const LATER_FIELDS = new Set([
  "course_enrollment",
  "points_total",
  "rank",
  "lesson_completed",
  "quiz_attempted",
  "assignment_submitted",
  "exam_attempted",
  "path_enrolled",
  "quiz_score_pct",
  "exam_score_pct",
]);

/**
 * A learning-content area adds its field when its data exists; the name stops answering "not
 * available yet".
 */
export function registerAudienceField(name: string, spec: FieldSpec): void {
  AUDIENCE_FIELDS[name] = spec;
  LATER_FIELDS.delete(name);
}

/** Checks the shape of a filter a client sent (any JSON) and returns it typed. */
export function parseFilter(raw: unknown): AudienceFilter {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw invalid('filter must be an object {"match": "all" | "any", "rules": [...]}.');
  const { match, rules, ...rest } = raw as Record<string, unknown>;
  if (Object.keys(rest).length > 0) throw invalid(`filter has unknown keys: ${Object.keys(rest).join(", ")}.`);
  if (match !== "all" && match !== "any") throw invalid('filter.match must be "all" or "any".');
  if (!Array.isArray(rules)) throw invalid("filter.rules must be an array (empty means every active student).");
  if (rules.length > MAX_RULES) throw invalid(`filter.rules takes at most ${MAX_RULES} rules.`);
  return {
    match,
    rules: rules.map((rule, index) => {
      if (typeof rule !== "object" || rule === null || Array.isArray(rule)) throw invalid(`filter.rules[${index}] must be an object.`);
      const { field, operator, values, value, ...extra } = rule as Record<string, unknown>;
      if (Object.keys(extra).length > 0) throw invalid(`filter.rules[${index}] has unknown keys: ${Object.keys(extra).join(", ")}.`);
      if (typeof field !== "string") throw invalid(`filter.rules[${index}].field is required.`);
      const spec = AUDIENCE_FIELDS[field];
      if (!spec) {
        throw invalid(
          LATER_FIELDS.has(field)
            ? `filter field ${field} is not available yet: its data comes with a later part of the platform.`
            : `filter field ${field} is unknown; fields: ${Object.keys(AUDIENCE_FIELDS).join(", ")}.`,
        );
      }
      if (typeof operator !== "string" || !spec.operators[operator]) {
        throw invalid(`filter field ${field} takes the operators ${Object.keys(spec.operators).join(", ")}.`);
      }
      const parsed: AudienceRule = { field, operator };
      if (values !== undefined) parsed.values = values as string[];
      if (value !== undefined) parsed.value = value as string;
      return parsed;
    }),
  };
}

/**
 * The live, active students of the school the filter selects, as a condition on `users u`; a
 * restricted curator's audience is cut to their own students. Values are checked while compiling.
 */
export function audienceCondition(ctx: SchoolCtx, filter: AudienceFilter): SQL {
  const at: CompileContext = { tenantId: ctx.tenantId, now: ctx.clock.now() };
  const conditions = filter.rules.map((rule) => AUDIENCE_FIELDS[rule.field]!.operators[rule.operator]!(rule, at));
  const combined = conditions.length === 0 ? sql`1` : sql.join(conditions.map((c) => sql`(${c})`), filter.match === "all" ? sql` AND ` : sql` OR `);
  const scope = scopeCondition(sql`u.id`, restrictedScope(ctx));
  return sql`${inSchool("u", ctx.tenantId)} AND u.role = 'student' AND u.deleted_at IS NULL AND u.is_active = 1
    ${scope ? sql`AND ${scope}` : sql``}
    AND (${combined})`;
}
