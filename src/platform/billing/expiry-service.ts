import { and, gt, inArray, isNotNull, isNull, lte, eq } from "drizzle-orm";
import { notificationOutbox, tenants, users } from "../../db/schema";
import type { Locale } from "../../core/env";
import type { ServiceContext } from "../../core/http/context";
import { DAY_MS, daysRemaining, iso } from "../../core/lib/clock";
import { uuidv7 } from "../../core/lib/ids";
import { idIn } from "../../core/db/conditions";

const BILLING_EXPIRY_REMINDER = "billing.expiry_reminder";

/**
 * Platform default of the event's config (spec, Events 1). The per-school override belongs to the
 * notifications area; until it exists every school gets these.
 */
const BILLING_EXPIRY_REMINDER_DEFAULTS = { days_before: [7, 3, 1] } as const;

/** D1 binds at most 100 parameters per statement. */
const OUTBOX_ROWS_PER_INSERT = 5;

/**
 * Records the end of trial and paid periods: `suspended`, not manual. The billing gate already
 * blocked these schools at `expires_at`; this only writes the state down. Safe to repeat.
 */
export async function suspendEndedPeriods(ctx: ServiceContext): Promise<number> {
  const now = ctx.clock.now();
  const rows = await ctx.db
    .update(tenants)
    .set({ planState: "suspended", suspendedManually: false, suspendedAt: tenants.expiresAt, updatedAt: now })
    .where(and(isNull(tenants.deletedAt), inArray(tenants.planState, ["trial", "paid"]), isNotNull(tenants.expiresAt), lte(tenants.expiresAt, now)))
    .returning({ id: tenants.id });
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

/**
 * Queues `billing.expiry_reminder` for the admins of every school whose period ends within a
 * threshold. The dedupe key names the school, the expiry, the threshold and the admin, so re-runs
 * insert nothing new and a new period (new expiry) starts a new series. Delivery is left to the
 * notifications area.
 */
export async function queueExpiryReminders(
  ctx: ServiceContext,
  daysBefore: readonly number[] = BILLING_EXPIRY_REMINDER_DEFAULTS.days_before,
): Promise<number> {
  if (daysBefore.length === 0) return 0;
  const now = ctx.clock.now();
  // Calendar days in the school's zone: a horizon one day wider than the largest threshold, plus slack for the zone offset.
  const horizon = now + (Math.max(...daysBefore) + 2) * DAY_MS;
  const schools = await ctx.db
    .select({ id: tenants.id, title: tenants.title, planState: tenants.planState, expiresAt: tenants.expiresAt, timezone: tenants.timezone })
    .from(tenants)
    .where(and(isNull(tenants.deletedAt), inArray(tenants.planState, ["trial", "paid"]), gt(tenants.expiresAt, now), lte(tenants.expiresAt, horizon)));

  const due = schools.flatMap((school) => {
    const left = daysRemaining(school.expiresAt, now, school.timezone);
    const threshold = dueThreshold(left, daysBefore);
    return threshold === null ? [] : [{ ...school, expiresAt: school.expiresAt!, left, threshold }];
  });
  if (due.length === 0) return 0;

  const admins = await ctx.db
    .select({ id: users.id, tenantId: users.tenantId })
    .from(users)
    .where(
      and(
        idIn(
          users.tenantId,
          due.map((school) => school.id),
        ),
        eq(users.role, "admin"),
        eq(users.isActive, true),
        isNull(users.deletedAt),
      ),
    );

  const locale = ctx.config.defaultEmailLocale;
  const rows = due.flatMap((school) =>
    admins
      .filter((admin) => admin.tenantId === school.id)
      .map((admin) => {
        const text = reminderText(locale, school.title, school.left, localDate(school.expiresAt, school.timezone));
        return {
          id: uuidv7(now),
          tenantId: school.id,
          userId: admin.id,
          eventCode: BILLING_EXPIRY_REMINDER,
          category: "billing",
          title: text.title,
          body: text.body,
          deepLink: null,
          data: {
            tenant_id: school.id,
            plan_state: school.planState,
            expires_at: iso(school.expiresAt),
            days_left: school.left,
            days_before: school.threshold,
          },
          aggregateType: "tenant",
          aggregateId: school.id,
          dedupeKey: `${BILLING_EXPIRY_REMINDER}:${school.id}:${school.expiresAt}:${school.threshold}:${admin.id}`,
          status: "pending" as const,
          createdAt: now,
        };
      }),
  );
  if (rows.length === 0) return 0;

  const statements = chunks(rows, OUTBOX_ROWS_PER_INSERT).map((part) =>
    ctx.db.insert(notificationOutbox).values(part).onConflictDoNothing({ target: notificationOutbox.dedupeKey }).returning({ id: notificationOutbox.id }),
  );
  const results = await ctx.db.batch(statements as [(typeof statements)[number], ...(typeof statements)[number][]]);
  return results.reduce((sum, inserted) => sum + inserted.length, 0);
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

function localDate(ms: number, timeZone: string): string {
  return new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).format(ms);
}

/** Default wording; the notifications area's templates may re-render from `data`. */
function reminderText(locale: Locale, school: string, left: number, date: string): { title: string; body: string } {
  if (locale === "en") {
    const when = left === 0 ? "today" : left === 1 ? "tomorrow" : `in ${left} days`;
    return { title: "Subscription ends soon", body: `Access for “${school}” ends ${when} (${date}). Renew to keep classes running.` };
  }
  const when = left === 0 ? "сегодня" : left === 1 ? "завтра" : `через ${left} дн.`;
  return { title: "Подписка скоро закончится", body: `Доступ школы «${school}» закончится ${when} (${date}). Продлите подписку, чтобы обучение не прервалось.` };
}
