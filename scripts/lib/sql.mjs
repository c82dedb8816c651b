/** SQLite literals and idempotent upserts for the seed and bootstrap scripts. */

export function literal(value) {
  if (value === null || value === undefined) return "NULL";
  if (typeof value === "boolean") return value ? "1" : "0";
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new Error(`not a finite number: ${value}`);
    return String(value);
  }
  if (typeof value === "string") return `'${value.replaceAll("'", "''")}'`;
  throw new Error(`no SQL literal for ${typeof value}`);
}

const ident = (name) => `"${name.replaceAll('"', '""')}"`;

/**
 * `INSERT … ON CONFLICT(key) DO UPDATE` that restores only the `restore` columns, and only when one
 * of them drifted, so a second run with the same input changes no row (not even `updated_at`).
 * Columns not listed in `restore` are written on insert only. `expressions` overrides the restored
 * value of a column with SQL (the existing row is referenced by the table name, the new one by `excluded`).
 */
export function upsert(table, row, { key = ["id"], restore = [], touch = null, expressions = {} } = {}) {
  const columns = Object.keys(row);
  const insert = `INSERT INTO ${ident(table)} (${columns.map(ident).join(", ")}) VALUES (${columns.map((c) => literal(row[c])).join(", ")})`;
  const target = `ON CONFLICT (${key.map(ident).join(", ")})`;
  if (restore.length === 0) return `${insert}\n  ${target} DO NOTHING;`;
  const next = (column) => expressions[column] ?? `excluded.${ident(column)}`;
  const sets = restore.map((column) => `${ident(column)} = ${next(column)}`);
  if (touch) sets.push(`${ident(touch)} = excluded.${ident(touch)}`);
  const drifted = restore.map((column) => `${ident(table)}.${ident(column)} IS NOT ${next(column)}`).join(" OR ");
  return `${insert}\n  ${target} DO UPDATE SET ${sets.join(", ")}\n  WHERE ${drifted};`;
}

/**
 * Fixed ids of one bench group (`7001`, `7002`, ...), so bench seeds meet no other bench or seed id:
 * `fixedId(kind, n)` in JS and `idSql(kind, nSql)`, the same id computed in SQL from an integer expression.
 */
export function benchIds(group) {
  const prefix = (kind) => `01941f29-7c00-${group}-8${kind}00-`;
  return {
    fixedId: (kind, n) => `${prefix(kind)}${n.toString(16).padStart(12, "0")}`,
    idSql: (kind, n) => `'${prefix(kind)}' || printf('%012x', ${n})`,
  };
}
