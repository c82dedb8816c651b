import { and, eq, isNull, type SQL } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import { ApiError, type ErrorEntry } from "../lib/errors";
import type { Db } from "./client";
import { inSchool } from "./conditions";

/** A school table: rows carry their school, and (for soft-deletable tables) a deletion time. */
type SchoolTable = SQLiteTable & { id: SQLiteColumn; tenantId: SQLiteColumn; deletedAt?: SQLiteColumn };

/** `deleted_at IS NULL` for tables with soft delete; nothing for the others. */
export function notDeleted(table: { deletedAt?: SQLiteColumn }): SQL | undefined {
  return table.deletedAt ? isNull(table.deletedAt) : undefined;
}

/** The row `id` of the caller's school, not soft-deleted: the one condition every lookup by id starts from. */
export function liveRowWhere(table: SchoolTable, tenantId: string, id: string): SQL {
  return and(eq(table.id, id), inSchool(table, tenantId), notDeleted(table))!;
}

/**
 * The live row `id` of the caller's school, or the entry's 404. Another school's row and a deleted
 * row answer exactly like a missing one, so ids of other schools reveal nothing.
 */
export async function liveRow<T extends SchoolTable>(ctx: { db: Db; tenantId: string }, table: T, id: string, notFound: ErrorEntry): Promise<T["$inferSelect"]> {
  const rows = await ctx.db.select().from(table as SQLiteTable).where(liveRowWhere(table, ctx.tenantId, id)).limit(1);
  const row = rows[0];
  if (!row) throw new ApiError(notFound);
  return row as T["$inferSelect"];
}
