import { inArray, sql, type AnyColumn, type SQL, type SQLWrapper } from "drizzle-orm";

/**
 * `expression IN (ids)`. D1 accepts at most 100 bound parameters per statement, so a longer list
 * travels as one JSON parameter, leaving room for the statement's other parameters.
 */
const MAX_INLINE_IDS = 50;

export function idIn(expression: AnyColumn | SQLWrapper, ids: readonly string[]): SQL {
  if (ids.length <= MAX_INLINE_IDS) return inArray(expression, [...ids]);
  return sql`${expression} IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`;
}

/** `expression LIKE '%text%'` with the text's own `%`, `_` and `\` taken literally. */
export function likeContains(expression: AnyColumn | SQLWrapper, text: string): SQL {
  const pattern = `%${text.replaceAll("\\", "\\\\").replaceAll("%", "\\%").replaceAll("_", "\\_")}%`;
  return sql`${expression} LIKE ${pattern} ESCAPE '\\'`;
}
