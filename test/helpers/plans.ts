/** What `queryPlan` needs of a database: a D1 binding, or a test's wrapped one. */
type Explainable = { prepare(query: string): { bind(...values: unknown[]): { all<T>(): Promise<{ results: T[] }> } } };

/**
 * SQLite's plan of a statement on a test database, one line per step (`EXPLAIN QUERY PLAN`'s
 * `detail`): plan tests pin which index a read walks, since D1 keeps no table statistics.
 */
export async function queryPlan(db: Explainable, query: string, values: readonly unknown[]): Promise<string[]> {
  const { results } = await db
    .prepare(`EXPLAIN QUERY PLAN ${query}`)
    .bind(...values)
    .all<{ detail: string }>();
  return results.map((row) => row.detail);
}
