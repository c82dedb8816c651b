import { sql, type SQL } from "drizzle-orm";

/**
 * A UUIDv7 made by SQLite, for rows an INSERT … SELECT creates several of: the millisecond part
 * from the service clock, the random part from `randomblob`, evaluated once per row.
 */
export function sqlUuidv7(now: number): SQL {
  const ts = now.toString(16).padStart(12, "0");
  return sql`lower(${`${ts.slice(0, 8)}-${ts.slice(8, 12)}-7`} || substr(hex(randomblob(2)), 2, 3) || '-' || substr('89ab', 1 + (abs(random()) % 4), 1) || substr(hex(randomblob(2)), 2, 3) || '-' || hex(randomblob(6)))`;
}
