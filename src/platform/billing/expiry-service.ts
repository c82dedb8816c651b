import { and, eq, gt, inArray, isNotNull, isNull, lte, sql } from "drizzle-orm";
import { notificationEventSettings, tenants } from "../../db/schema";
import { changedRows, runBatch, type BatchItem } from "../../core/db/batch";
import type { ServiceContext } from "../../core/http/context";
import { DAY_MS, daysRemaining, iso } from "../../core/lib/clock";
import { eventDefinition } from "../notifications/catalog";
import { dispatchQueued, enqueue } from "../notifications/enqueue";
import { loadSchoolEvents } from "../notifications/settings";

const BILLING_EXPIRY_REMINDER = "billing.expiry_reminder";

/**
 * Records the end of trial and paid periods: `suspended`, not manual. The billing gate already
 * blocked these schools at `expires_at`; this only writes the state down, and tells each school's
 * admins once (`billing.expired`, keyed by the period's expiry). Safe to repeat.
 */
export async function suspendEndedPeriods(ctx: ServiceContext): Promise<number> {
  const now = ctx.clock.now();
  const rows = await ctx.db
    .update(tenants)
    .set({ planState: "suspended", suspendedManually: false, suspendedAt: tenants.expiresAt, updatedAt: now })
    .where(and(isNull(tenants.deletedAt), inArray(tenants.planState, ["trial", "paid"]), isNotNull(tenants.expiresAt), lte(tenants.expiresAt, now)))
    .returning({ id: tenants.id, title: tenants.title, expiresAt: tenants.expiresAt });
  const notices = await Promise.all(
    rows.map((school) =>
      enqueue(
        ctx,
        "billing.expired",
        { token: "school_admins" },
        { school_title: school.title, plan_state: "suspended", expires_at: iso(school.expiresAt!) },
        { id: school.id },
        `billing.expired:${school.id}:${school.expiresAt}`,
        { tenantId: school.id },
      ),
    ),
  );
  await runInChunks(ctx, notices);
  await dispatchQueued(ctx);
  return rows.length;
}

/**
 * The threshold a school with `left` days is due for: the tightest one already crossed. A run
 * that was skipped still sends it (`<=`, not `==`), and a school that crosses several at once
 * (a short period) gets the one that matches, not a burst of stale ones.
 */
export function dueThreshold(left: number, daysBefore: readonly number[]): number | null {
  const crossed = daysBefore.filter((days) => left <= days);
  return crossed.length === 0 ? null : Math.min(...crossed);
}

/** "HH:MM" of an instant in a time zone. */
function localTime(ms: number, timeZone: string): string {
  return new Intl.DateTimeFormat("en-GB", { timeZone, hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).format(ms);
}

/**
 * Queues `billing.expiry_reminder` for the admins of every school whose period ends within one of
 * its thresholds, by the school's effective config (`days_before`, `send_at_local`): the first run
 * at or after the local send time on a due day sends it. The dedupe key names the school, the
 * expiry, the threshold and the admin, so re-runs insert nothing new and a new period (new expiry)
 * starts a new series.
 */
export async function queueExpiryReminders(ctx: ServiceContext): Promise<number> {
  const definition = eventDefinition(BILLING_EXPIRY_REMINDER)!;
  const now = ctx.clock.now();
  // The widest threshold any school uses bounds which expiries can be due; one read of the overrides.
  const overrides = await ctx.db
    .select({ config: notificationEventSettings.config })
    .from(notificationEventSettings)
    .where(and(eq(notificationEventSettings.code, BILLING_EXPIRY_REMINDER), isNotNull(notificationEventSettings.config)));
  const widest = Math.max(
    ...(definition.defaultConfig.days_before as number[]),
    ...overrides.flatMap((row) => (Array.isArray(row.config?.days_before) ? (row.config.days_before as number[]) : [])),
  );
  // Calendar days in the school's zone: a horizon one day wider than the largest threshold, plus slack for the zone offset.
  const horizon = now + (widest + 2) * DAY_MS;
  const schools = await ctx.db
    .select({ id: tenants.id, planState: tenants.planState, expiresAt: tenants.expiresAt, timezone: tenants.timezone })
    .from(tenants)
    .where(and(isNull(tenants.deletedAt), inArray(tenants.planState, ["trial", "paid"]), gt(tenants.expiresAt, now), lte(tenants.expiresAt, horizon)));
  if (schools.length === 0) return 0;

  const events = await loadSchoolEvents(
    ctx,
    schools.map((school) => school.id),
    definition,
  );
  const notices: BatchItem[] = [];
  for (const school of schools) {
    const settings = events.get(school.id);
    if (!settings || !settings.event.enabled) continue;
    const config = settings.event.config as { days_before: number[]; send_at_local: string };
    if (localTime(now, school.timezone) < config.send_at_local) continue;
    const left = daysRemaining(school.expiresAt, now, school.timezone);
    const threshold = dueThreshold(left, config.days_before);
    if (threshold === null) continue;
    notices.push(
      await enqueue(
        ctx,
        BILLING_EXPIRY_REMINDER,
        { token: "school_admins" },
        { school_title: settings.title, plan_state: school.planState, expires_at: iso(school.expiresAt!), days_left: left, days_before: threshold },
        { id: school.id },
        `${BILLING_EXPIRY_REMINDER}:${school.id}:${school.expiresAt}:${threshold}`,
        // The period the reminder is about must still be the school's when the batch runs.
        { tenantId: school.id, when: sql`EXISTS (SELECT 1 FROM tenants t WHERE t.id = ${school.id} AND t.expires_at = ${school.expiresAt})` },
      ),
    );
  }
  const results = await runInChunks(ctx, notices);
  await dispatchQueued(ctx);
  return results.reduce<number>((sum, result) => sum + changedRows(result), 0);
}

/** Statements per batch when a scan writes for many schools. */
const STATEMENTS_PER_BATCH = 50;

async function runInChunks(ctx: ServiceContext, statements: BatchItem[]): Promise<unknown[]> {
  const results: unknown[] = [];
  for (let i = 0; i < statements.length; i += STATEMENTS_PER_BATCH) results.push(...(await runBatch(ctx, statements.slice(i, i + STATEMENTS_PER_BATCH))));
  return results;
}
