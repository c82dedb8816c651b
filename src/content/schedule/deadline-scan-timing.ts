import { DAY_MS, HOUR_MS, daysRemaining } from "../../core/lib/clock";
import type { SchoolEvent } from "../../platform/notifications/settings";

/**
 * When the deadline scan produces what (the contract's timing rules), shared by the lesson and the
 * assignment deadlines so both follow the same clock: reminders from `send_at_local` on the first
 * local day within `days_before` (once, or once per local day with `repeat_daily`), openings and
 * digests at once unless the boundary falls in the quiet hours.
 */

/** How far back a boundary is still produced: a day of catch-up after the boundary came due. */
export const HORIZON = DAY_MS;
/** A boundary held by the quiet hours comes due up to 11 hours later. */
export const HELD = 11 * HOUR_MS;

const QUIET_FROM = 21 * 60;
const QUIET_UNTIL = 8 * 60;

/** Minutes since local midnight (with fractions) and the local date of an instant. */
export function localClock(ms: number, timeZone: string): { minutes: number; date: string } {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-CA", { timeZone, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit" })
      .formatToParts(ms)
      .map((part) => [part.type, part.value]),
  );
  const minutes = Number(parts.hour) * 60 + Number(parts.minute) + (Number(parts.second) + (ms % 1000) / 1000) / 60;
  return { minutes, date: `${parts.year}-${parts.month}-${parts.day}` };
}

/**
 * When a boundary without `send_at_local` is produced: at once, or at 08:00 local when it falls
 * between 21:00 and 08:00 (a daylight-saving change during the night shifts that by its hour).
 */
export function releaseAt(boundary: number, timeZone: string): number {
  const { minutes } = localClock(boundary, timeZone);
  if (minutes >= QUIET_FROM) return boundary + (24 * 60 - minutes + QUIET_UNTIL) * 60_000;
  if (minutes < QUIET_UNTIL) return boundary + (QUIET_UNTIL - minutes) * 60_000;
  return boundary;
}

/** The first instant of the next local day. */
export function nextLocalMidnight(now: number, timeZone: string): number {
  const { minutes } = localClock(now, timeZone);
  return now + Math.ceil((24 * 60 - minutes) * 60_000);
}

export interface ReminderConfig {
  days_before: number;
  repeat_daily: boolean;
  send_at_local: string;
}

/**
 * A reminder of a deadline still to come is due at `now`: from `send_at_local` on a local day
 * `days_before` days or fewer before it. One threshold: once crossed it stays crossed, so a
 * skipped day still gets its single reminder. Null when not due; else the days left and the local
 * date (the daily series' key).
 */
export function reminderDue(config: ReminderConfig, deadline: number, now: number, timeZone: string): { daysLeft: number; localDate: string } | null {
  if (deadline <= now) return null;
  const local = localClock(now, timeZone);
  const [hours, minutes] = config.send_at_local.split(":").map(Number);
  if (local.minutes < hours! * 60 + minutes!) return null;
  const daysLeft = daysRemaining(deadline, now, timeZone);
  if (daysLeft > config.days_before) return null;
  return { daysLeft, localDate: local.date };
}

/** A passed boundary's digest (or opening) is due: released from the quiet hours, within the horizon. */
export function passedDue(boundary: number, now: number, timeZone: string): boolean {
  if (boundary > now) return false;
  const due = releaseAt(boundary, timeZone);
  return due <= now && due > now - HORIZON;
}

/** The school's reminder settings when the event is on for it. */
export function reminderConfig(school: SchoolEvent | undefined): ReminderConfig | null {
  return school?.event.enabled ? (school.event.config as unknown as ReminderConfig) : null;
}

/**
 * When a handled deadline may be looked at again, or null while it is not handled (not due yet):
 * a passed one for good once its digest is due (or its digest is off), one to come until the
 * deadline once its reminder went out (or the reminder is off), a daily one until the next local
 * midnight.
 */
export function deadlineHandledUntil(deadline: number, timeZone: string, reminder: SchoolEvent | undefined, digestEnabled: boolean, now: number): number | null {
  if (deadline <= now) {
    const forGood = deadline + HORIZON + HELD + 1;
    if (!digestEnabled) return forGood;
    return releaseAt(deadline, timeZone) <= now ? forGood : null;
  }
  const config = reminderConfig(reminder);
  if (!config) return deadline;
  if (!reminderDue(config, deadline, now, timeZone)) return null;
  return config.repeat_daily ? Math.min(deadline, nextLocalMidnight(now, timeZone)) : deadline;
}
