import { and, eq, isNull } from "drizzle-orm";
import { notificationEventSettings, tenants } from "../../db/schema";
import type { Locale } from "../../core/env";
import type { ServiceContext } from "../../core/http/context";
import { idIn } from "../../core/db/conditions";
import type { EventDefinition, Template } from "./catalog";

export type SettingsRow = typeof notificationEventSettings.$inferSelect;

/** An event as one school has it: the catalog's definition under the school's override. */
export interface EffectiveEvent {
  definition: EventDefinition;
  enabled: boolean;
  config: Record<string, unknown>;
  template: Template;
  overridden: boolean;
}

/**
 * The default templates follow the platform locale (DEFAULT_EMAIL_LOCALE); a school's template
 * replaces them whatever language it is written in. Config keys the school left out keep their
 * defaults.
 */
export function effectiveEvent(definition: EventDefinition, row: Pick<SettingsRow, "enabled" | "config" | "titleTemplate" | "bodyTemplate"> | null | undefined, locale: Locale): EffectiveEvent {
  const defaults = definition.templates[locale];
  return {
    definition,
    enabled: row?.enabled ?? definition.defaultEnabled,
    config: { ...definition.defaultConfig, ...(row?.config ?? {}) },
    template: { title: row?.titleTemplate ?? defaults.title, body: row?.bodyTemplate ?? defaults.body },
    overridden: row != null && (row.enabled !== null || (row.config !== null && Object.keys(row.config).length > 0) || row.titleTemplate !== null || row.bodyTemplate !== null),
  };
}

/** What a producer needs to know about the school it writes for. */
export interface SchoolEvent {
  tenantId: string;
  title: string;
  timezone: string;
  event: EffectiveEvent;
}

const cache = new WeakMap<object, Map<string, Promise<SchoolEvent | null>>>();

/**
 * The school (live only) and its effective settings of one event, read once per context: a
 * request or job that enqueues the same event several times reads them once. Null for a deleted
 * or unknown school, which produces nothing.
 */
export function schoolEvent(ctx: ServiceContext, tenantId: string, definition: EventDefinition): Promise<SchoolEvent | null> {
  const perContext = cache.get(ctx) ?? new Map<string, Promise<SchoolEvent | null>>();
  cache.set(ctx, perContext);
  const key = `${tenantId} ${definition.code}`;
  let found = perContext.get(key);
  if (!found) {
    found = loadSchoolEvents(ctx, [tenantId], definition).then((events) => events.get(tenantId) ?? null);
    perContext.set(key, found);
  }
  return found;
}

function schoolEventsQuery(ctx: ServiceContext, tenantIds: readonly string[], definition: EventDefinition) {
  return ctx.db
    .select({
      tenantId: tenants.id,
      title: tenants.title,
      timezone: tenants.timezone,
      enabled: notificationEventSettings.enabled,
      config: notificationEventSettings.config,
      titleTemplate: notificationEventSettings.titleTemplate,
      bodyTemplate: notificationEventSettings.bodyTemplate,
    })
    .from(tenants)
    .leftJoin(notificationEventSettings, and(eq(notificationEventSettings.tenantId, tenants.id), eq(notificationEventSettings.code, definition.code)))
    .where(and(idIn(tenants.id, tenantIds), isNull(tenants.deletedAt)));
}

type SchoolEventRow = Awaited<ReturnType<typeof schoolEventsQuery>>[number];

/** `schoolEvent` for many schools in one query (scans), remembered for the context's later enqueues. */
export async function loadSchoolEvents(ctx: ServiceContext, tenantIds: readonly string[], definition: EventDefinition): Promise<Map<string, SchoolEvent>> {
  if (tenantIds.length === 0) return new Map();
  return rememberSchoolEvents(ctx, definition, await schoolEventsQuery(ctx, tenantIds, definition));
}

/**
 * The reads of `schoolEvent` for one school and several events, as statements for a batch the
 * caller runs anyway, and a function to hand it the batch's results: a producer that may enqueue
 * in a later batch then pays no round trip of its own for the settings.
 */
export function prefetchSchoolEvents(ctx: ServiceContext, tenantId: string, definitions: readonly EventDefinition[]) {
  return {
    statements: definitions.map((definition) => schoolEventsQuery(ctx, [tenantId], definition)),
    remember(results: readonly unknown[]): void {
      definitions.forEach((definition, index) => {
        const found = rememberSchoolEvents(ctx, definition, results[index] as SchoolEventRow[]);
        if (!found.has(tenantId)) cacheOf(ctx).set(`${tenantId} ${definition.code}`, Promise.resolve(null));
      });
    },
  };
}

function cacheOf(ctx: ServiceContext): Map<string, Promise<SchoolEvent | null>> {
  const perContext = cache.get(ctx) ?? new Map<string, Promise<SchoolEvent | null>>();
  cache.set(ctx, perContext);
  return perContext;
}

function rememberSchoolEvents(ctx: ServiceContext, definition: EventDefinition, rows: readonly SchoolEventRow[]): Map<string, SchoolEvent> {
  const out = new Map<string, SchoolEvent>();
  const perContext = cacheOf(ctx);
  for (const row of rows) {
    const event: SchoolEvent = {
      tenantId: row.tenantId,
      title: row.title,
      timezone: row.timezone,
      event: effectiveEvent(definition, row, ctx.config.defaultEmailLocale),
    };
    out.set(row.tenantId, event);
    perContext.set(`${row.tenantId} ${definition.code}`, Promise.resolve(event));
  }
  return out;
}
