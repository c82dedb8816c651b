import { and, asc, eq, sql, type SQL } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import { batchable, changedRows, type BatchItem } from "../../core/db/batch";
import { notDeleted } from "../../core/db/live-row";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { checkReorder, orderingErrors } from "../../core/http/reorder";

/**
 * Positions are 0-based and dense after a reorder (0..n-1); an append takes the live siblings'
 * highest position + 1, so deleted rows leave gaps that the next reorder closes. Lists read
 * `ORDER BY position`, then the key, so equal positions still read in a stable order. Position
 * columns carry no UNIQUE index: SQLite checks one row at a time during an UPDATE, so even a
 * swap would trip it.
 */

/** A school table whose rows are ordered among their siblings. */
export type OrderedTable = SQLiteTable & {
  id?: SQLiteColumn;
  tenantId: SQLiteColumn;
  position: SQLiteColumn;
  deletedAt?: SQLiteColumn;
  updatedAt?: SQLiteColumn;
};

/**
 * One ordered list: the live rows of `table` under one parent (`parent`: the parent column and
 * its value), or all the school's live rows when there is no parent. `key` is the column the
 * reorder ids name, `id` unless set (a link table orders by the linked id, e.g. `course_id`).
 */
export interface OrderedList {
  table: OrderedTable;
  parent?: { column: SQLiteColumn; id: string };
  key?: SQLiteColumn;
  /** A further condition on which rows are siblings (a link table whose linked row may be gone). */
  where?: SQL;
}

function keyOf(list: OrderedList): SQLiteColumn {
  const key = list.key ?? list.table.id;
  if (!key) throw new Error("an ordered list of a table without an id column needs a key");
  return key;
}

/** The school's live siblings of the list, plus any extra condition. */
export function siblingsWhere(tenantId: string, list: OrderedList, extra?: SQL): SQL {
  const { table, parent } = list;
  return and(eq(table.tenantId, tenantId), parent ? eq(parent.column, parent.id) : undefined, notDeleted(table), list.where, extra)!;
}

/**
 * The position that puts a new row after the live siblings, as a value for the row's INSERT
 * (`db.insert(t).values({ …, position: appendPosition(ctx.tenantId, list) })`, or `insertWhere`).
 * It is computed by the INSERT itself, so concurrent appends cannot both read the same maximum.
 */
export function appendPosition(tenantId: string, list: OrderedList): SQL {
  const { table } = list;
  return sql`(SELECT COALESCE(MAX(${table.position}), -1) + 1 FROM ${table} WHERE ${siblingsWhere(tenantId, list)})`;
}

/** The keys of the live siblings, in their order. */
export async function siblingKeys(ctx: SchoolCtx, list: OrderedList): Promise<string[]> {
  const key = keyOf(list);
  const rows = await ctx.db
    .select({ key })
    .from(list.table)
    .where(siblingsWhere(ctx.tenantId, list))
    .orderBy(asc(list.table.position), asc(key));
  return rows.map((row) => row.key as string);
}

/**
 * One UPDATE giving each listed row its index in `ids` as position (and `updated_at` now, where
 * the table has one). It writes all rows or none: it applies only while `ids` are exactly the
 * live siblings (as many siblings as ids, every id one of them), so a sibling added or deleted
 * since the caller's check makes it change nothing. `ids` must be free of duplicates
 * (`checkReorder`). The ids travel as one JSON parameter, whatever their number.
 */
export function reorderStatement(ctx: SchoolCtx, list: OrderedList, ids: readonly string[]): BatchItem {
  const { table } = list;
  const key = keyOf(list);
  const json = JSON.stringify(ids);
  const siblings = siblingsWhere(ctx.tenantId, list);
  const stamp = table.updatedAt ? sql`, ${sql.identifier(table.updatedAt.name)} = ${ctx.clock.now()}` : sql``;
  return batchable(
    ctx,
    sql`UPDATE ${table}
      SET ${sql.identifier(table.position.name)} = (SELECT ordered.key FROM json_each(${json}) AS ordered WHERE ordered.value = ${key})${stamp}
      WHERE ${siblings}
        AND ${key} IN (SELECT value FROM json_each(${json}))
        AND (SELECT COUNT(*) FROM ${table} WHERE ${siblings}) = ${ids.length}
        AND (SELECT COUNT(*) FROM ${table} WHERE ${siblings} AND ${key} IN (SELECT value FROM json_each(${json}))) = ${ids.length}`,
  );
}

/**
 * A reorder endpoint's work once the parent is known to be live: the exact-set check against
 * the live siblings (409 `reorder_duplicate` / `reorder_incomplete`), then the one UPDATE. A
 * change of the set between the two answers `reorder_incomplete` and writes nothing.
 */
export async function reorderSiblings(ctx: SchoolCtx, list: OrderedList, ids: readonly string[]): Promise<{ reordered: number }> {
  checkReorder(ids, await siblingKeys(ctx, list));
  const reordered = changedRows(await reorderStatement(ctx, list, ids));
  if (reordered !== ids.length) throw new ApiError(orderingErrors.REORDER_INCOMPLETE);
  return { reordered };
}
