import { and, eq, sql } from "drizzle-orm";
import { auditFromRows, jsonBool, jsonValue, rowJson, type RowChange } from "../audit/from-row";
import { notificationEventSettings } from "../../db/schema";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { EVENT_CATALOG, eventDefinition, type EventDefinition } from "./catalog";
import { notificationsErrors as e } from "./errors";
import { BODY_MAX_BYTES, PLACEHOLDER, TITLE_MAX_BYTES, utf8Bytes } from "./render";
import { effectiveEvent, type EffectiveEvent } from "./settings";
import { inSchool } from "../../core/db/conditions";

function present(event: EffectiveEvent) {
  const d = event.definition;
  return {
    code: d.code,
    category: d.category,
    name: d.name,
    description: d.description,
    default_enabled: d.defaultEnabled,
    default_config: { ...d.defaultConfig },
    implemented: d.implemented,
    source: d.source,
    recipients: d.recipients,
    variables: [...d.variables],
    enabled: event.enabled,
    config: event.config,
    title_template: event.template.title,
    body_template: event.template.body,
    overridden: event.overridden,
  };
}

/** Every catalog event with the school's effective settings, in one read of its overrides. */
export async function listEvents(ctx: SchoolCtx) {
  const rows = await ctx.db.select().from(notificationEventSettings).where(inSchool(notificationEventSettings, ctx.tenantId));
  const byCode = new Map(rows.map((row) => [row.code, row]));
  return { events: EVENT_CATALOG.map((definition) => present(effectiveEvent(definition, byCode.get(definition.code), ctx.config.defaultEmailLocale))) };
}

export interface EventPatch {
  enabled?: boolean;
  config?: Record<string, unknown>;
  title_template?: string | null;
  body_template?: string | null;
}

/**
 * Upserts the school's override of a known, implemented event. Omitted fields keep their current
 * override; a null template goes back to the default wording; `config` replaces the override's
 * config as a whole (keys left out keep the defaults).
 */
export async function updateEvent(ctx: SchoolCtx, input: { code: string; patch: EventPatch }) {
  const definition = eventDefinition(input.code);
  if (!definition) throw new ApiError(e.EVENT_NOT_FOUND, { message: `No built-in push event is called ${input.code}.` });
  if (!definition.implemented) throw new ApiError(e.EVENT_NOT_IMPLEMENTED);
  const { patch } = input;
  const config = patch.config === undefined ? undefined : checkConfig(definition, patch.config);
  const title = patch.title_template === undefined ? undefined : checkTemplate(definition, "title_template", patch.title_template, TITLE_MAX_BYTES);
  const body = patch.body_template === undefined ? undefined : checkTemplate(definition, "body_template", patch.body_template, BODY_MAX_BYTES);

  const now = ctx.clock.now();
  const changes = {
    ...(patch.enabled !== undefined ? { enabled: patch.enabled } : {}),
    ...(config !== undefined ? { config } : {}),
    ...(title !== undefined ? { titleTemplate: title } : {}),
    ...(body !== undefined ? { bodyTemplate: body } : {}),
  };
  const key = and(inSchool(notificationEventSettings, ctx.tenantId), eq(notificationEventSettings.code, definition.code));
  let row: typeof notificationEventSettings.$inferSelect | undefined;
  if (Object.keys(changes).length === 0) {
    [row] = await ctx.db.select().from(notificationEventSettings).where(key);
  } else {
    // The entry ahead of the upsert reads the school's override before it (null: the default applies).
    const fields: Record<string, RowChange> = {};
    if (changes.enabled !== undefined) fields.enabled = [jsonBool(sql`s.enabled`), changes.enabled];
    if (changes.config !== undefined) fields.config = [rowJson(sql`coalesce(s.config, 'null')`), changes.config];
    if (changes.titleTemplate !== undefined) fields.title_template = [jsonValue(sql`s.title_template`), changes.titleTemplate];
    if (changes.bodyTemplate !== undefined) fields.body_template = [jsonValue(sql`s.body_template`), changes.bodyTemplate];
    const [, rows] = await ctx.db.batch([
      auditFromRows(ctx, {
        action: "notification_event.updated",
        targetType: "notification_event",
        rows: sql`(SELECT 1) LEFT JOIN notification_event_settings s ON ${inSchool("s", ctx.tenantId)} AND s.code = ${definition.code}`,
        targetId: sql`${definition.code}`,
        summary: "Push event settings updated",
        changes: fields,
      }),
      ctx.db
        .insert(notificationEventSettings)
        .values({ tenantId: ctx.tenantId, code: definition.code, ...changes, updatedByUserId: ctx.actor.userId, createdAt: now, updatedAt: now })
        .onConflictDoUpdate({
          target: [notificationEventSettings.tenantId, notificationEventSettings.code],
          set: { ...changes, updatedByUserId: ctx.actor.userId, updatedAt: now },
        })
        .returning(),
    ]);
    row = rows[0];
  }
  return { event: present(effectiveEvent(definition, row, ctx.config.defaultEmailLocale)) };
}

function invalid(message: string): ApiError {
  return new ApiError(e.VALIDATION_FAILED, { message });
}

const HH_MM = /^([01]\d|2[0-3]):[0-5]\d$/;

/** The config each configurable event accepts, key by key; the other 59 events take none. */
const CONFIG_RULES: Record<string, Record<string, (value: unknown) => string | null>> = {
  "lesson.deadline_reminder": { days_before: intIn(1, 90), repeat_daily: isBoolean, send_at_local: isLocalTime },
  "assignment.deadline_reminder": { days_before: intIn(1, 90), repeat_daily: isBoolean, send_at_local: isLocalTime },
  "progress.stalled": { inactive_days: intIn(1, 365), send_at_local: isLocalTime },
  "billing.expiry_reminder": {
    days_before: (value) =>
      Array.isArray(value) && value.length >= 1 && value.length <= 30 && value.every((item) => intIn(1, 365)(item) === null)
        ? null
        : "must be a non-empty array of at most 30 integers from 1 to 365",
    send_at_local: isLocalTime,
  },
};

function intIn(min: number, max: number) {
  return (value: unknown) => (Number.isInteger(value) && (value as number) >= min && (value as number) <= max ? null : `must be an integer from ${min} to ${max}`);
}
function isBoolean(value: unknown) {
  return typeof value === "boolean" ? null : "must be true or false";
}
function isLocalTime(value: unknown) {
  return typeof value === "string" && HH_MM.test(value) ? null : "must be a local time HH:MM";
}

function checkConfig(definition: EventDefinition, config: Record<string, unknown>): Record<string, unknown> {
  const rules = CONFIG_RULES[definition.code];
  const keys = Object.keys(config);
  if (!rules) {
    if (keys.length > 0) throw invalid(`${definition.code} takes no config.`);
    return {};
  }
  for (const key of keys) {
    const rule = rules[key];
    if (!rule) throw invalid(`config.${key} is not a setting of ${definition.code}; it takes ${Object.keys(rules).join(", ")}.`);
    const problem = rule(config[key]);
    if (problem) throw invalid(`config.${key} ${problem}.`);
  }
  if (Array.isArray(config.days_before)) return { ...config, days_before: [...new Set(config.days_before as number[])].sort((a, b) => b - a) };
  return config;
}

/**
 * A template is trimmed, non-empty, within its byte limit and uses only the event's variables,
 * each written `{{name}}` (spaces inside the braces are dropped). A stray `{{` or `}}` is refused
 * rather than sent to a phone as it is. Null restores the default.
 */
function checkTemplate(definition: EventDefinition, field: string, value: string | null, maxBytes: number): string | null {
  if (value === null) return null;
  const declared = new Set(definition.variables);
  const normalized = value.trim().replace(PLACEHOLDER, (_match, name: string) => {
    if (!declared.has(name)) {
      throw invalid(`${field} uses {{${name}}}, which ${definition.code} does not have; it has ${definition.variables.map((v) => `{{${v}}}`).join(", ")}.`);
    }
    return `{{${name}}}`;
  });
  if (normalized === "") throw invalid(`${field} must not be empty.`);
  if (normalized.replace(PLACEHOLDER, "").includes("{{") || normalized.replace(PLACEHOLDER, "").includes("}}")) {
    throw invalid(`${field} has a {{ or }} that is not a {{variable}}.`);
  }
  if (utf8Bytes(normalized) > maxBytes) throw invalid(`${field} must be at most ${maxBytes} UTF-8 bytes.`);
  return normalized;
}
