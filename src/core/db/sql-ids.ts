import { sql, type SQL } from "drizzle-orm";

/**
 * A UUIDv7 made by SQLite, for rows an INSERT … SELECT creates several of: the millisecond part
 * from the service clock, the random part from `randomblob`, evaluated once per row.
 */
export function sqlUuidv7(now: number): SQL {
  const ts = now.toString(16).padStart(12, "0");
  return sql`lower(${`${ts.slice(0, 8)}-${ts.slice(8, 12)}-7`} || substr(hex(randomblob(2)), 2, 3) || '-' || substr('89ab', 1 + (abs(random()) % 4), 1) || substr(hex(randomblob(2)), 2, 3) || '-' || hex(randomblob(6)))`;
}

/**
 * An id or instant the service itself holds (never client text), written into a statement as a
 * literal rather than bound: statements that repeat their ids (pushes render each computed value in
 * the title, the body and the data) would pass D1's 100 bound parameters per statement.
 */
export function sqlLiteral(value: string | number): SQL {
  if (typeof value === "number") return sql.raw(String(Math.trunc(value)));
  return sql.raw(`'${value.replaceAll("'", "''")}'`);
}
