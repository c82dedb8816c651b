import { sql, type SQL } from "drizzle-orm";

/**
 * A millisecond instant as the API's ISO 8601 text (`2026-11-29T06:05:00.123Z`), written in SQL so a
 * batch can build JSON from the rows it leaves. The milliseconds come from integer arithmetic, not
 * `%f`, whose float division can print .999 for .000; NULL stays NULL.
 */
export const isoTimeSql = (column: SQL) =>
  sql`(CASE WHEN ${column} IS NULL THEN NULL ELSE strftime('%Y-%m-%dT%H:%M:%S', ${column} / 1000, 'unixepoch') || printf('.%03dZ', ${column} % 1000) END)`;
