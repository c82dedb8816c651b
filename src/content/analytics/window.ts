import { z } from "@hono/zod-openapi";
import { ApiError } from "../../core/http/errors";
import { analyticsErrors as e } from "./errors";

/** The period of GET /analytics/curators: both bounds inclusive, epoch milliseconds. */
export interface Period {
  from: number;
  to: number;
}

const rfc3339 = z.iso.datetime({ offset: true });

function instant(value: string | undefined, invalid: typeof e.INVALID_FROM | typeof e.INVALID_TO): number | undefined {
  if (value === undefined) return undefined;
  if (!rfc3339.safeParse(value).success) throw new ApiError(invalid);
  return Date.parse(value);
}

/**
 * `from` defaults to the start of the current month where the school is: a school's month is its
 * calendar month (the school's `timezone`), not UTC's, so a Tashkent report does not begin at 05:00.
 */
export function periodOf(input: { from?: string; to?: string }, now: number, timeZone: string): Period {
  const from = instant(input.from, e.INVALID_FROM);
  const to = instant(input.to, e.INVALID_TO);
  const period = { from: from ?? startOfMonth(now, timeZone), to: to ?? now };
  if (period.from > period.to) throw new ApiError(e.INVALID_DATE_RANGE);
  return period;
}

/** How far the zone's wall clock is ahead of UTC at `at` (ms); an unknown zone counts as UTC. */
function zoneOffset(at: number, timeZone: string): number {
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    }).formatToParts(at);
  } catch {
    return 0;
  }
  const part = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const wall = Date.UTC(part("year"), part("month") - 1, part("day"), part("hour"), part("minute"), part("second"));
  return wall - (at - (((at % 1000) + 1000) % 1000));
}

/** The instant the zone's current calendar month began. */
export function startOfMonth(now: number, timeZone: string): number {
  const local = new Date(now + zoneOffset(now, timeZone));
  const wallStart = Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), 1);
  // The offset at the month's start may differ from today's (daylight saving): correct once more.
  const first = wallStart - zoneOffset(wallStart, timeZone);
  return wallStart - zoneOffset(first, timeZone);
}
