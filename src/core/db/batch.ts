import { getTableColumns, is, SQL, sql } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Db } from "./client";

/** What the helpers here need of a service context: its database (src/core/db does not import src/core/http). */
type DbCtx = { db: Db };

export type BatchItem = Parameters<Db["batch"]>[0][number];

/**
 * Runs statements as one atomic D1 batch and returns each one's raw result. An empty list runs
 * nothing. Typed loosely on purpose: callers read results with `changedRows` or by position.
 */
export async function runBatch(ctx: DbCtx, statements: readonly BatchItem[]): Promise<unknown[]> {
  if (statements.length === 0) return [];
  return (await ctx.db.batch(statements as unknown as [BatchItem, ...BatchItem[]])) as unknown[];
}

/**
 * A raw statement that can go into `ctx.db.batch`. Drizzle's `db.run(sql)` is lazy but carries no
 * prepared D1 statement, which its D1 batch needs for bound parameters; this attaches one.
 */
export function batchable(ctx: DbCtx, query: SQL): BatchItem {
  const raw = ctx.db.run(query);
  return Object.assign(raw, { stmt: ctx.db.$client.prepare(raw.getQuery().sql) }) as unknown as BatchItem;
}

/**
 * `INSERT INTO table (…) SELECT <row> WHERE <condition>`: the conditional write (docs/decisions/architecture.md, "Architecture"),
 * for invariants a read-then-write could break. Values are encoded by their drizzle columns
 * (booleans, JSON); a value may also be an SQL expression computed by the INSERT (an appended
 * position). The D1 result's `meta.changes` says whether the row went in.
 */
export function insertWhere<T extends SQLiteTable>(
  ctx: DbCtx,
  table: T,
  row: { [K in keyof T["$inferInsert"]]: T["$inferInsert"][K] | SQL },
  condition: SQL,
): BatchItem {
  const columns = getTableColumns(table);
  const entries = Object.entries(row as Record<string, unknown>).filter(([, value]) => value !== undefined);
  const names = entries.map(([key]) => sql.identifier(columns[key]!.name));
  const values = entries.map(([key, value]) => (is(value, SQL) ? value : sql`${sql.param(value, columns[key]!)}`));
  return batchable(ctx, sql`INSERT INTO ${table} (${sql.join(names, sql`, `)}) SELECT ${sql.join(values, sql`, `)} WHERE ${condition}`);
}

/** Rows a raw statement changed, from its D1 result inside a batch. */
export function changedRows(result: unknown): number {
  return (result as { meta?: { changes?: number } }).meta?.changes ?? 0;
}

/** How long D1 held the database for one statement (its `meta.duration`, ms); null where D1 did not say (`raw`, `first`). */
export function statementMs(result: unknown): number | null {
  const duration = (result as { meta?: { duration?: unknown } } | null)?.meta?.duration;
  return typeof duration === "number" ? duration : null;
}

/** The rows of a SELECT that ran inside a batch (`runBatch` hands back raw D1 results). */
export function rowsOf<T>(result: unknown): T[] {
  return ((result as { results?: T[] }).results ?? []) as T[];
}

/** SQLite UNIQUE violations, whether D1 raised them directly or drizzle wrapped them. */
export function isUniqueViolation(err: unknown): boolean {
  for (let current: unknown = err; current instanceof Error; current = current.cause) {
    if (current.message.includes("UNIQUE constraint failed")) return true;
  }
  return false;
}
