import { actingUserId } from "../../core/school";
import { is, SQL, sql } from "drizzle-orm";
import { batchable, type BatchItem } from "../../core/db/batch";
import { sqlUuidv7 } from "../../core/db/sql-ids";
import type { SchoolActor, SchoolCtx, ServiceContext, TenantSummary } from "../../core/http/context";
import { iso } from "../../core/lib/clock";
import { log } from "../../core/lib/log";
import { eventDefinition, TIMESTAMP_VARIABLES, type EventCode, type EventDefinition } from "./catalog";
import { recipientIds, type Recipients } from "./recipients";
import { renderPush } from "./render";
import { effectiveEvent, schoolEvent } from "./settings";
import { inSchool, liveInSchool } from "../../core/db/conditions";

/** What the event is about: `data` carries `<type>_id`; the type defaults to the catalog's. */
export interface Aggregate {
  /** SQL when the id is only known inside the batch (the device a login lands on). */
  id: string | SQL;
  type?: string;
}

/**
 * The dedupe key: a prefix the recipient's id is appended to (`{code}:{aggregate}:{v}` →
 * `…:{recipient}`), or an exact key for a single-recipient event whose key names no recipient.
 */
export type Dedupe = string | SQL | { exact: string | SQL };

export interface EnqueueOptions {
  /** SQL (over the school's shard) that must hold when the batch runs: the caller's state change took effect. */
  when?: SQL;
  deepLink?: string | null;
  /**
   * The statement runs ahead of the write that (re)activates its recipients (it must read the
   * state before that write), so they may still be inactive then; delivery checks again.
   */
  activatesRecipients?: boolean;
  /**
   * The push announces a result the actor is waiting for (05: `certificate.issued`), so the actor
   * is not left out as rule 3 of 04 otherwise does.
   */
  alsoToActor?: boolean;
}

const SINGLE_RECIPIENT = ["user", "user_other_devices", "student", "curator"];

/**
 * A timestamp only the batch knows (the expiry a purchase computes): `expr` is epoch milliseconds
 * or NULL. It is formatted by SQLite at the school's UTC offset at `estimate`, a nearby instant the
 * caller can tell; the two differ only if a daylight-saving change falls between them.
 */
export interface ComputedTimestamp {
  computedTimestamp: SQL;
  estimate: number;
}

export function computedTimestamp(expr: SQL, estimate: number): ComputedTimestamp {
  return { computedTimestamp: expr, estimate };
}

function isComputedTimestamp(value: unknown): value is ComputedTimestamp {
  return typeof value === "object" && value !== null && "computedTimestamp" in value;
}

/**
 * The one producer helper: a statement for the caller's own batch that writes one
 * `notification_outbox` row per recipient of the event, rendered from the school's effective
 * templates. The school's own state is the context's (`ctx.tenant`, read live from the control
 * database when the context was built): a school whose billing is closed gets nothing but security
 * and billing events, decided before the statement. Everything else is decided in the statement:
 * the event is on for the school, each recipient is a live active member with push on and an enabled device, the actor of the
 * request is left out (security events go to the actor's other devices instead), and the dedupe
 * key makes a repeated or retried call write nothing. After the batch commits, call
 * `dispatchQueued(ctx)` so delivery starts at once (the cron sweep is the safety net).
 *
 * A variable may be SQL when its value is only known inside the batch (a count the batch makes);
 * such values must be plain numbers or text, never timestamps.
 */
export async function enqueue(
  ctx: SchoolCtx<SchoolActor>,
  event: EventCode | EventDefinition,
  recipients: Recipients,
  variables: Record<string, unknown>,
  aggregate: Aggregate,
  dedupe: Dedupe,
  options: EnqueueOptions = {},
): Promise<BatchItem> {
  // An event outside the 63 (05: its own code, fixed templates, always on) comes as its definition.
  const definition = typeof event === "string" ? eventDefinition(event) : event;
  if (!definition) throw new Error(`unknown push event ${String(event)}`);
  const code = definition.code;
  if (definition.recipients !== recipients.token) throw new Error(`${code} goes to ${definition.recipients}, not ${recipients.token}`);
  const undeclared = Object.keys(variables).filter((name) => !definition.variables.includes(name));
  if (undeclared.length > 0) throw new Error(`${code} has no variables ${undeclared.join(", ")}`);
  const exact = typeof dedupe === "object" && !is(dedupe, SQL);
  // An SQL exact key is evaluated per row and may name the recipient (`r.id`) wherever the key puts it.
  if (exact && !is((dedupe as { exact: string | SQL }).exact, SQL) && !SINGLE_RECIPIENT.includes(recipients.token)) throw new Error(`${code}: an exact dedupe key needs a single recipient`);
  const tenantId = ctx.tenantId;
  const now = ctx.clock.now();
  const billingExempt = definition.category === "security" || definition.category === "billing";
  if (!billingExempt && !billingOpen(ctx.tenant, now)) return nothing(ctx);

  const school =
    typeof event === "string"
      ? await schoolEvent(ctx, tenantId, definition)
      : { tenantId, title: ctx.tenant.title, timezone: ctx.tenant.timezone, event: effectiveEvent(definition, null, ctx.config.defaultEmailLocale) };
  if (!school || !school.event.enabled) return nothing(ctx);

  // SQL values render as markers that the INSERT replaces with the value the batch computes.
  const locale = ctx.config.defaultEmailLocale;
  const computed: [name: string, text: SQL, raw: SQL][] = [];
  for (const [name, value] of Object.entries(variables)) {
    if (isComputedTimestamp(value)) {
      if (!TIMESTAMP_VARIABLES.has(name)) throw new Error(`${code}: ${name} is not a timestamp`);
      computed.push([name, timestampTextSql(value, locale, school.timezone), sql`strftime('%Y-%m-%dT%H:%M:%fZ', (${value.computedTimestamp}) / 1000.0, 'unixepoch')`]);
    } else if (is(value, SQL)) {
      if (TIMESTAMP_VARIABLES.has(name)) throw new Error(`${code}: ${name} is a timestamp; pass computedTimestamp()`);
      computed.push([name, sql`COALESCE(CAST((${value}) AS TEXT), '—')`, value]);
    }
  }
  const marker = (name: string) => `\u001f${name}\u001f`;
  const plain = Object.fromEntries(Object.entries(variables).map(([name, value]) => [name, is(value, SQL) || isComputedTimestamp(value) ? marker(name) : value]));

  const rendered = renderPush(school.event.template, plain, {
    locale,
    timeZone: school.timezone,
    declared: definition.variables,
    verbatim: new Set(computed.map(([name]) => name)),
  });
  const fill = (text: string): SQL => computed.reduce<SQL>((acc, [name, value]) => sql`replace(${acc}, ${marker(name)}, ${value})`, sql`${text}`);

  const aggregateType = aggregate.type ?? definition.aggregateType;
  const aggregateKey = `${aggregateType}_id`;
  const data: Record<string, unknown> = { event_code: code, ...plain };
  const late: [string, SQL][] = computed.map(([name, , raw]) => [name, raw]);
  if (is(aggregate.id, SQL)) late.push([aggregateKey, aggregate.id]);
  else data[aggregateKey] = aggregate.id;
  const exclude = recipients.token === "user_other_devices" ? recipients.excludeInstallationId : null;
  if (typeof exclude === "string") data.exclude_installation_id = exclude;
  else if (exclude !== null) late.push(["exclude_installation_id", exclude]);
  const dataSql = late.reduce<SQL>((acc, [key, value]) => sql`json_set(${acc}, ${`$.${key}`}, (${value}))`, sql`${JSON.stringify(data)}`);
  const dedupeSql = exact ? sql`${(dedupe as { exact: string | SQL }).exact}` : sql`${dedupe as string | SQL} || ':' || r.id`;

  const actorId = definition.category !== "security" && !options.alsoToActor ? actingUserId(ctx.actor) : null;

  const statement = batchable(ctx, sql`
    INSERT INTO notification_outbox (id, tenant_id, user_id, event_code, category, title, body, deep_link, data, aggregate_type, aggregate_id, dedupe_key, status, attempts, created_at)
    SELECT ${sqlUuidv7(now)}, r.tenant_id, r.id, ${code}, ${definition.category}, ${fill(rendered.title)}, ${fill(rendered.body)}, ${options.deepLink ?? null},
           ${dataSql}, ${aggregateType}, ${aggregate.id}, ${dedupeSql}, 'pending', 0, ${now}
    FROM users r
    WHERE ${liveInSchool("r", tenantId)} ${options.activatesRecipients ? sql`` : sql`AND r.is_active = 1`}
      AND r.id IN (${recipientIds(recipients, tenantId)})
      ${actorId ? sql`AND r.id <> ${actorId}` : sql``}
      AND ${reachableSql(sql`r`, tenantId, exclude)}
      ${options.when ? sql`AND (${options.when})` : sql``}
    ON CONFLICT (dedupe_key) DO NOTHING`);
  markQueued(ctx, tenantId);
  return inert(statement);
}

/**
 * Drizzle's queries are thenables, so an async function that returns one would run it on its own
 * instead of handing it over; this one is only ever run by the caller's batch.
 */
function inert(statement: BatchItem): BatchItem {
  Object.defineProperty(statement, "then", { value: undefined });
  return statement;
}

/** A computed timestamp as the renderer writes one (`DD.MM.YYYY HH:MM` / `YYYY-MM-DD HH:MM`), `—` for NULL. */
function timestampTextSql(value: ComputedTimestamp, locale: "ru" | "en", timeZone: string): SQL {
  const offsetMinutes = utcOffsetMinutes(value.estimate, timeZone);
  const format = locale === "ru" ? "%d.%m.%Y %H:%M" : "%Y-%m-%d %H:%M";
  return sql`CASE WHEN (${value.computedTimestamp}) IS NULL THEN '—' ELSE strftime(${format}, (${value.computedTimestamp}) / 1000, 'unixepoch', ${`${offsetMinutes} minutes`}) END`;
}

/** The zone's offset from UTC at an instant, in minutes. */
function utcOffsetMinutes(at: number, timeZone: string): number {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-US", { timeZone, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit" })
      .formatToParts(at)
      .map((part) => [part.type, part.value]),
  );
  const wall = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
  return Math.round((wall - Math.floor(at / 1000) * 1000) / 60_000);
}

/**
 * A user push can reach: push switched on (no preference row means on) and at least one enabled
 * device with a token, other than the excluded installation.
 */
export function reachableSql(user: SQL, tenantId: string, excludeInstallationId: string | SQL | null = null): SQL {
  return sql`COALESCE((SELECT p.push_enabled FROM push_preferences p WHERE ${inSchool("p", tenantId)} AND p.user_id = ${user}.id), 1) = 1
    AND EXISTS (SELECT 1 FROM push_devices d WHERE ${inSchool("d", tenantId)} AND d.user_id = ${user}.id AND d.deleted_at IS NULL
                AND d.enabled = 1 AND d.token_hash IS NOT NULL
                ${excludeInstallationId === null ? sql`` : sql`AND d.installation_id IS NOT ${excludeInstallationId}`})`;
}

/**
 * The push installation of the device a session runs on (a device without an installation id is
 * registered as `auth-device:<id>`): the one a security push to "the user's other devices"
 * leaves out. Null without a session (a legacy token), which leaves out nothing.
 */
export function sessionInstallationSql(sessionId: string | null): SQL {
  return sql`(SELECT COALESCE(ad.installation_id, 'auth-device:' || ad.id) FROM sessions s JOIN auth_devices ad ON ad.id = s.auth_device_id WHERE s.id = ${sessionId})`;
}

/** The billing gate of a school context's school: open unless suspended or past the expiry. */
export function billingOpen(tenant: Pick<TenantSummary, "planState" | "expiresAt">, now: number): boolean {
  return tenant.planState !== "suspended" && (tenant.expiresAt === null || tenant.expiresAt > now);
}

/** The billing gate as SQL over a `tenants` alias (control database only): open unless suspended or past the expiry. */
export function billingOpenSql(tenant: SQL, now: number): SQL {
  return sql`${tenant}.plan_state <> 'suspended' AND (${tenant}.expires_at IS NULL OR ${tenant}.expires_at > ${now})`;
}

function nothing(ctx: ServiceContext): BatchItem {
  return inert(batchable(ctx, sql`SELECT 1 WHERE 0`));
}

const queuedSchools = new WeakMap<object, Set<string>>();

function markQueued(ctx: ServiceContext, tenantId: string): void {
  const schools = queuedSchools.get(ctx) ?? new Set<string>();
  schools.add(tenantId);
  queuedSchools.set(ctx, schools);
}

/**
 * After the producer's batch committed: one "rows are due" message per school it enqueued for.
 * A refused or repeated request wrote no row, and the consumer then finds nothing to do. A failed
 * send loses nothing: the cron sweep picks up pending rows.
 */
export async function dispatchQueued(ctx: ServiceContext): Promise<void> {
  const hooks = webhookSchools.get(ctx);
  if (hooks && hooks.size > 0) {
    webhookSchools.delete(ctx);
    await sendWebhooksDue(ctx, [...hooks]);
  }
  const schools = queuedSchools.get(ctx);
  if (!schools || schools.size === 0) return;
  queuedSchools.delete(ctx);
  await sendDispatch(ctx, [...schools]);
}

const webhookSchools = new WeakMap<object, Set<string>>();

/**
 * The webhooks outbox (src/platform/webhooks/outbox.ts) marks a school whose batch may write
 * deliveries; `dispatchQueued`, which every source calls after its commit, then sends the
 * "deliveries due" message too (the webhooks area imports this one, so the message is sent here).
 */
export function markWebhooksDue(ctx: ServiceContext, tenantId: string): void {
  const schools = webhookSchools.get(ctx) ?? new Set<string>();
  schools.add(tenantId);
  webhookSchools.set(ctx, schools);
}

async function sendWebhooksDue(ctx: ServiceContext, tenantIds: readonly string[]): Promise<void> {
  try {
    await ctx.env.WEBHOOKS.sendBatch(tenantIds.map((tenantId) => ({ body: { kind: "webhooks" as const, tenant_id: tenantId } })));
  } catch (err) {
    log.error("webhook dispatch message not sent; the sweep will deliver", { request_id: ctx.requestId, schools: tenantIds.length, error: String(err) });
  }
}

export async function sendDispatch(ctx: ServiceContext, tenantIds: readonly string[], delaySeconds?: number): Promise<void> {
  if (tenantIds.length === 0) return;
  try {
    await ctx.env.PUSH_OUTBOX.sendBatch(
      tenantIds.map((tenantId) => ({ body: { kind: "push" as const, tenant_id: tenantId }, ...(delaySeconds ? { delaySeconds } : {}) })),
    );
  } catch (err) {
    log.error("push dispatch message not sent; the sweep will deliver", { request_id: ctx.requestId, schools: tenantIds.length, error: String(err) });
  }
}

/** A timestamp variable's raw value (ISO 8601 UTC), as `data` keeps it. */
export const timestamp = (ms: number): string => iso(ms);
