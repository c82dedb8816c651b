import { and, eq, inArray, is, isNull, sql, SQL, type AnyColumn, type Placeholder, type SQLWrapper } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";

/**
 * The tenant condition of a school table, written only by these helpers and never by hand: one
 * spelling (`inSchool(` / `liveInSchool(`) that the shard move can find and that
 * test/system/tenant-conditions.test.ts checks every FROM/JOIN of a school table against.
 *
 * The first argument names whose `tenant_id` is meant:
 * - `"u"`: an alias of raw SQL text (a plain identifier, written into the SQL as it is);
 * - `` sql`u` `` or any SQL: the same, for aliases built at run time;
 * - a drizzle table (or `alias()` of one): the builder condition `eq(table.tenantId, tenantId)`;
 * - left out (`inSchool(tenantId)`): the unqualified column of a single-table statement.
 * The SQL it writes is exactly what was written by hand before, so wrapping changes no statement.
 */
type TenantValue = string | SQLWrapper | Placeholder;
type SchoolTable = { tenantId: SQLiteColumn; deletedAt?: SQLiteColumn };
type Qualifier = string | SQL | SchoolTable;

const ALIAS = /^[a-z_][a-z0-9_]*$/;

function qualified(alias: string | SQL): SQL {
  if (typeof alias !== "string") return alias;
  // Only identifiers go in raw: the alias is part of the SQL text, never a value.
  if (!ALIAS.test(alias)) throw new Error(`inSchool: "${alias}" is not an SQL alias`);
  return sql.raw(alias);
}

const isTable = (qualifier: Qualifier): qualifier is SchoolTable => typeof qualifier !== "string" && !is(qualifier, SQL);

/** `alias.tenant_id = tenantId`: the row belongs to the school. */
export function inSchool(tenantId: TenantValue): SQL;
export function inSchool(alias: Qualifier, tenantId: TenantValue): SQL;
export function inSchool(...args: [TenantValue] | [Qualifier, TenantValue]): SQL {
  if (args.length === 1) return sql`tenant_id = ${args[0]}`;
  const [alias, tenantId] = args;
  if (isTable(alias)) return eq(alias.tenantId, tenantId);
  return sql`${qualified(alias)}.tenant_id = ${tenantId}`;
}

/** `alias.tenant_id = tenantId AND alias.deleted_at IS NULL`: a live (not soft-deleted) row of the school. */
export function liveInSchool(tenantId: TenantValue): SQL;
export function liveInSchool(alias: Qualifier, tenantId: TenantValue): SQL;
export function liveInSchool(...args: [TenantValue] | [Qualifier, TenantValue]): SQL {
  if (args.length === 1) return sql`tenant_id = ${args[0]} AND deleted_at IS NULL`;
  const [alias, tenantId] = args;
  if (isTable(alias)) {
    if (!alias.deletedAt) throw new Error("liveInSchool: the table has no deleted_at");
    return and(eq(alias.tenantId, tenantId), isNull(alias.deletedAt))!;
  }
  const q = qualified(alias);
  return sql`${q}.tenant_id = ${tenantId} AND ${q}.deleted_at IS NULL`;
}

/**
 * `expression IN (ids)`. D1 accepts at most 100 bound parameters per statement, so a longer list
 * travels as one JSON parameter, leaving room for the statement's other parameters.
 */
const MAX_INLINE_IDS = 50;

export function idIn(expression: AnyColumn | SQLWrapper, ids: readonly string[]): SQL {
  if (ids.length <= MAX_INLINE_IDS) return inArray(expression, [...ids]);
  return sql`${expression} IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`;
}

/**
 * "`expression` contains `text`", case-insensitive for ASCII letters as SQLite's LIKE was, with
 * every character of `text` taken literally (`%`, `_`, `\` are not wildcards). `instr` instead of
 * LIKE: D1 refuses LIKE patterns over 50 bytes, so a 49-letter or 26-Cyrillic-letter search would
 * fail, and there is no pattern to escape. A prepared statement passes a placeholder bound to the
 * raw text.
 */
export function containsText(expression: AnyColumn | SQLWrapper, text: string | Placeholder): SQL {
  return sql`instr(lower(${expression}), lower(${text})) > 0`;
}
