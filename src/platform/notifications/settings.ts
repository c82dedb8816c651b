import { and, eq } from "drizzle-orm";
import { notificationEventSettings } from "../../db/schema";
import type { Locale } from "../../core/env";
import type { Db, SchoolActor, SchoolCtx } from "../../core/http/context";
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

type EventsCtx = SchoolCtx<SchoolActor>;

const cache = new WeakMap<object, Map<string, Promise<SchoolEvent | null>>>();

/**
 * The school's effective settings of one event, read once per context: a request or job that
 * enqueues the same event several times reads them once. The school itself (title, zone) is the
 * context's (`ctx.tenant`, read live from the control database when the context was built); its
 * shard holds only the settings. `tenantId` must be the context's school.
 */
export function schoolEvent(ctx: EventsCtx, tenantId: string, definition: EventDefinition): Promise<SchoolEvent | null> {
  sameSchool(ctx, tenantId);
  const perContext = cacheOf(ctx);
  const key = `${tenantId} ${definition.code}`;
  let found = perContext.get(key);
  if (!found) {
    found = settingsQuery(ctx.db, [tenantId], definition).then((rows) => rememberSchoolEvents(ctx, definition, rows).get(tenantId) ?? null);
    perContext.set(key, found);
  }
  return found;
}

function sameSchool(ctx: EventsCtx, tenantId: string): void {
  if (tenantId !== ctx.tenantId) throw new Error(`push settings of ${tenantId} asked through the context of ${ctx.tenantId}`);
}

/** The settings rows of one event for schools of one shard (no row: the catalog's defaults). */
function settingsQuery(db: Db, tenantIds: readonly string[], definition: EventDefinition) {
  return db
    .select({
      tenantId: notificationEventSettings.tenantId,
      enabled: notificationEventSettings.enabled,
      config: notificationEventSettings.config,
      titleTemplate: notificationEventSettings.titleTemplate,
      bodyTemplate: notificationEventSettings.bodyTemplate,
    })
    .from(notificationEventSettings)
    .where(and(idIn(notificationEventSettings.tenantId, tenantIds), eq(notificationEventSettings.code, definition.code)));
}

type SettingsQueryRow = Awaited<ReturnType<typeof settingsQuery>>[number];

/**
 * `schoolEvent` for many schools (scans): one query per shard for all its schools, the shards in
 * parallel; each school context remembers its answer for its later enqueues.
 */
export async function loadSchoolEvents(schools: readonly EventsCtx[], definition: EventDefinition): Promise<Map<string, SchoolEvent>> {
  const byShard = new Map<string, EventsCtx[]>();
  for (const school of schools) byShard.set(school.tenant.shard, [...(byShard.get(school.tenant.shard) ?? []), school]);
  const out = new Map<string, SchoolEvent>();
  await Promise.all(
    [...byShard.values()].map(async (group) => {
      const rows = await settingsQuery(group[0]!.db, group.map((school) => school.tenantId), definition);
      for (const school of group) {
        const event = rememberSchoolEvents(school, definition, rows).get(school.tenantId)!;
        out.set(school.tenantId, event);
      }
    }),
  );
  return out;
}

/**
 * The reads of `schoolEvent` for the context's school and several events, as statements for a
 * batch the caller runs anyway, and a function to hand it the batch's results: a producer that may
 * enqueue in a later batch then pays no round trip of its own for the settings.
 */
export function prefetchSchoolEvents(ctx: EventsCtx, tenantId: string, definitions: readonly EventDefinition[]) {
  sameSchool(ctx, tenantId);
  return {
    statements: definitions.map((definition) => settingsQuery(ctx.db, [tenantId], definition)),
    remember(results: readonly unknown[]): void {
      definitions.forEach((definition, index) => rememberSchoolEvents(ctx, definition, results[index] as SettingsQueryRow[]));
    },
  };
}

function cacheOf(ctx: EventsCtx): Map<string, Promise<SchoolEvent | null>> {
  const perContext = cache.get(ctx) ?? new Map<string, Promise<SchoolEvent | null>>();
  cache.set(ctx, perContext);
  return perContext;
}

/** The context's school under its settings row of the event (if any), remembered for the context. */
function rememberSchoolEvents(ctx: EventsCtx, definition: EventDefinition, rows: readonly SettingsQueryRow[]): Map<string, SchoolEvent> {
  const row = rows.find((candidate) => candidate.tenantId === ctx.tenantId);
  const event: SchoolEvent = {
    tenantId: ctx.tenantId,
    title: ctx.tenant.title,
    timezone: ctx.tenant.timezone,
    event: effectiveEvent(definition, row, ctx.config.defaultEmailLocale),
  };
  cacheOf(ctx).set(`${ctx.tenantId} ${definition.code}`, Promise.resolve(event));
  return new Map([[ctx.tenantId, event]]);
}
