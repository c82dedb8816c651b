import { inArray, sql, type AnyColumn, type Placeholder, type SQL, type SQLWrapper } from "drizzle-orm";

/**
 * The tenant condition of a school table's row under `alias`: `alias.tenant_id = tenantId`. Written
 * by this helper, not by hand, so every school condition has one spelling the shard move and a
 * guard test can find.
 */
export function inSchool(alias: SQL, tenantId: string | SQL): SQL {
  return sql`${alias}.tenant_id = ${tenantId}`;
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
