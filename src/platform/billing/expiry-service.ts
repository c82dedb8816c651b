import { and, eq, gt, inArray, isNotNull, isNull, lte } from "drizzle-orm";
import { notificationEventSettings, tenants } from "../../db/schema";
import { changedRows, runBatch, type BatchItem } from "../../core/db/batch";
import type { SchoolActor, SchoolCtx, ServiceContext } from "../../core/http/context";
import { shardDb, shardNames } from "../../core/db/client";
import { forSchool, systemActor } from "../../core/school";
import { schoolSummary, schoolSummaryColumns } from "../tenants/lookup";
import { DAY_MS, daysRemaining, iso } from "../../core/lib/clock";
import { eventDefinition } from "../notifications/catalog";
import { dispatchQueued, enqueue } from "../notifications/enqueue";
import { loadSchoolEvents } from "../notifications/settings";

const BILLING_EXPIRY_REMINDER = "billing.expiry_reminder";
const JOB = "billing_expiry";

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
    .returning(schoolSummaryColumns);
  // The state is written in the control database; each school's push goes to its shard after it.
  const notices = await Promise.all(
    rows.map(schoolSummary).map(async (school) => {
      const schoolCtx = forSchool(ctx, school, systemActor(JOB));
      const notice = await enqueue(
        schoolCtx,
        "billing.expired",
        { token: "school_admins" },
        { school_title: school.title, plan_state: "suspended", expires_at: iso(school.expiresAt!) },
        { id: school.id },
        `billing.expired:${school.id}:${school.expiresAt}`,
      );
      return { schoolCtx, notice };
    }),
  );
  await runPerShard(notices);
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
  // The widest threshold any school uses bounds which expiries can be due; one read of the overrides per shard.
  const overrides = (
    await Promise.all(
      shardNames(ctx.env).map((shard) =>
        shardDb(ctx.env, shard)
          .select({ config: notificationEventSettings.config })
          .from(notificationEventSettings)
          .where(and(eq(notificationEventSettings.code, BILLING_EXPIRY_REMINDER), isNotNull(notificationEventSettings.config))),
      ),
    )
  ).flat();
  const widest = Math.max(
    ...(definition.defaultConfig.days_before as number[]),
    ...overrides.flatMap((row) => (Array.isArray(row.config?.days_before) ? (row.config.days_before as number[]) : [])),
  );
  // Calendar days in the school's zone: a horizon one day wider than the largest threshold, plus slack for the zone offset.
  const horizon = now + (widest + 2) * DAY_MS;
  const rows = await ctx.db
    .select(schoolSummaryColumns)
    .from(tenants)
    .where(and(isNull(tenants.deletedAt), inArray(tenants.planState, ["trial", "paid"]), gt(tenants.expiresAt, now), lte(tenants.expiresAt, horizon)));
  if (rows.length === 0) return 0;

  const schools = rows.map((row) => forSchool(ctx, schoolSummary(row), systemActor(JOB)));
  const events = await loadSchoolEvents(schools, definition);
  const notices: { schoolCtx: SchoolCtx<SchoolActor>; notice: BatchItem }[] = [];
  for (const schoolCtx of schools) {
    const school = schoolCtx.tenant;
    const settings = events.get(school.id);
    if (!settings || !settings.event.enabled) continue;
    const config = settings.event.config as { days_before: number[]; send_at_local: string };
    if (localTime(now, school.timezone) < config.send_at_local) continue;
    const left = daysRemaining(school.expiresAt, now, school.timezone);
    const threshold = dueThreshold(left, config.days_before);
    if (threshold === null) continue;
    // The period is the one just read from the control database; the dedupe key names its expiry,
    // so a period extended meanwhile starts its own series.
    const notice = await enqueue(
      schoolCtx,
      BILLING_EXPIRY_REMINDER,
      { token: "school_admins" },
      { school_title: settings.title, plan_state: school.planState, expires_at: iso(school.expiresAt!), days_left: left, days_before: threshold },
      { id: school.id },
      `${BILLING_EXPIRY_REMINDER}:${school.id}:${school.expiresAt}:${threshold}`,
    );
    notices.push({ schoolCtx, notice });
  }
  const results = await runPerShard(notices);
  return results.reduce<number>((sum, result) => sum + changedRows(result), 0);
}

/** Statements per batch when a scan writes for many schools. */
const STATEMENTS_PER_BATCH = 50;

/**
 * Each school's push statement in its own shard: the shards in parallel, each in chunks; then one
 * "rows are due" message per school that queued something.
 */
async function runPerShard(notices: readonly { schoolCtx: SchoolCtx<SchoolActor>; notice: BatchItem }[]): Promise<unknown[]> {
  const byShard = new Map<string, typeof notices>();
  for (const item of notices) byShard.set(item.schoolCtx.tenant.shard, [...(byShard.get(item.schoolCtx.tenant.shard) ?? []), item]);
  const results = await Promise.all(
    [...byShard.values()].map(async (items) => {
      const out: unknown[] = [];
      for (let i = 0; i < items.length; i += STATEMENTS_PER_BATCH) {
        const chunk = items.slice(i, i + STATEMENTS_PER_BATCH);
        out.push(...(await runBatch(chunk[0]!.schoolCtx, chunk.map((item) => item.notice))));
      }
      return out;
    }),
  );
  await Promise.all(notices.map((item) => dispatchQueued(item.schoolCtx)));
  return results.flat();
}
