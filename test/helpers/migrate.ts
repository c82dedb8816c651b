import type { D1Migration } from "cloudflare:test";

/**
 * Applies a migrations folder to a fresh database the way `applyD1Migrations` (cloudflare:test) does:
 * the same `d1_migrations` table, the same statements in the same order, one `d1_migrations` row per
 * migration, and migrations already recorded are skipped. The difference is the round trips: one
 * batch for all of them instead of one per migration, which every test file pays for every database.
 * A batch is one transaction, so a failing statement leaves the database as it was.
 */
export async function migrate(db: D1Database, migrations: D1Migration[]): Promise<void> {
  await db
    .prepare(
      `CREATE TABLE IF NOT EXISTS "d1_migrations" (
		id         INTEGER PRIMARY KEY AUTOINCREMENT,
		name       TEXT UNIQUE,
		applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL
	);`,
    )
    .run();
  const { results } = await db.prepare(`SELECT name FROM "d1_migrations";`).all<{ name: string }>();
  const applied = new Set(results.map((row) => row.name));
  const record = db.prepare(`INSERT INTO "d1_migrations" (name) VALUES (?);`);
  const statements = migrations
    .filter((migration) => !applied.has(migration.name))
    .flatMap((migration) => [...migration.queries.map((query) => db.prepare(query)), record.bind(migration.name)]);
  if (statements.length > 0) await db.batch(statements);
}
