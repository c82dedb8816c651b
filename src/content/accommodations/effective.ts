import { sql, type SQL } from "drizzle-orm";
import { inSchool } from "../../core/db/conditions";

/**
 * A student's accommodation as an attempt start or a student view applies it (05 section 1,
 * docs/decisions/accommodations.md, "Effective limits"). The neutral profile changes nothing.
 */
export interface Profile {
  multiplierHundredths: number;
  extraTimeSeconds: number;
  extraAttempts: number;
}

export const NEUTRAL: Profile = { multiplierHundredths: 100, extraTimeSeconds: 0, extraAttempts: 0 };

/** The profile's three figures as columns of a statement the caller already runs (no round trip of its own). */
export function profileColumnsSql(tenantId: string, userId: string | SQL): SQL {
  const of = (column: string) =>
    sql`(SELECT ${sql.raw(`acp.${column}`)} FROM accommodations acp WHERE ${inSchool("acp", tenantId)} AND acp.user_id = ${userId})`;
  return sql`${of("time_multiplier_hundredths")} AS acc_multiplier, ${of("extra_time_seconds")} AS acc_extra_time, ${of("extra_attempts")} AS acc_extra_attempts`;
}

/** What `profileColumnsSql` read (nulls: no profile); staff attempts take none. */
export function profileOf(row: { acc_multiplier?: number | null; acc_extra_time?: number | null; acc_extra_attempts?: number | null }, student: boolean): Profile {
  if (!student || row.acc_multiplier == null) return NEUTRAL;
  return { multiplierHundredths: row.acc_multiplier, extraTimeSeconds: row.acc_extra_time ?? 0, extraAttempts: row.acc_extra_attempts ?? 0 };
}

/** `ceil(L × multiplier) + extra_time_seconds`, exact in integers; untimed stays untimed. */
export function effectiveTimeLimit(limitSeconds: number | null, profile: Profile): number | null {
  if (limitSeconds === null) return null;
  return Math.ceil((limitSeconds * profile.multiplierHundredths) / 100) + profile.extraTimeSeconds;
}

/** `max_attempts + extra_attempts`; unlimited stays unlimited. */
export function effectiveMaxAttempts(maxAttempts: number | null, profile: Profile): number | null {
  return maxAttempts === null ? null : maxAttempts + profile.extraAttempts;
}
