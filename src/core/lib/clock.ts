/** The source of "now" for every service, so tests can move time. */
export interface Clock {
  now(): number;
}

const systemClock: Clock = { now: () => Date.now() };

let current: Clock = systemClock;

/** The clock services use. Only tests replace it (tests, DOs and the Worker share one isolate). */
export function currentClock(): Clock {
  return current;
}

export function setClockForTests(clock: Clock | null): void {
  current = clock ?? systemClock;
}

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

export function isoOrNull(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : new Date(ms).toISOString();
}

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** The calendar date (YYYY-MM-DD) of an instant in a time zone. */
export function localDate(ms: number, timeZone: string): string {
  return new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).format(ms);
}

/** Whole days from today to the expiry date, both taken as calendar dates in the school's zone; never negative. */
export function daysRemaining(expiresAt: number | null, now: number, timeZone: string): number {
  if (expiresAt === null) return 0;
  if (expiresAt <= now) return 0;
  const dayNumber = (ms: number) => Math.round(Date.parse(`${localDate(ms, timeZone)}T00:00:00Z`) / DAY_MS);
  return Math.max(0, dayNumber(expiresAt) - dayNumber(now));
}
