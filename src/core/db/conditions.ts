import { inArray, sql, type AnyColumn, type Placeholder, type SQL, type SQLWrapper } from "drizzle-orm";

/**
 * `expression IN (ids)`. D1 accepts at most 100 bound parameters per statement, so a longer list
 * travels as one JSON parameter, leaving room for the statement's other parameters.
 */
const MAX_INLINE_IDS = 50;

export function idIn(expression: AnyColumn | SQLWrapper, ids: readonly string[]): SQL {
  if (ids.length <= MAX_INLINE_IDS) return inArray(expression, [...ids]);
  return sql`${expression} IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`;
}

/** The LIKE pattern for "contains `text`", with the text's own `%`, `_` and `\` taken literally. */
export function containsPattern(text: string): string {
  return `%${text.replaceAll("\\", "\\\\").replaceAll("%", "\\%").replaceAll("_", "\\_")}%`;
}

/**
 * `expression LIKE '%text%'` with the text's own `%`, `_` and `\` taken literally. A prepared
 * statement passes a placeholder bound to `containsPattern(text)` instead of the text.
 */
export function likeContains(expression: AnyColumn | SQLWrapper, text: string | Placeholder): SQL {
  const pattern = typeof text === "string" ? containsPattern(text) : text;
  return sql`${expression} LIKE ${pattern} ESCAPE '\\'`;
}
