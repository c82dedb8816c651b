import { applyD1Migrations, env } from "cloudflare:test";
import { expect, it } from "vitest";

/**
 * The test setup migrates each database in one batch (test/helpers/migrate.ts) instead of
 * `applyD1Migrations`, one batch per migration. The schema the tests see must be the one the
 * migrations produce: after dropping everything and applying the same folder with
 * `applyD1Migrations`, `sqlite_master` and `d1_migrations` are the same, row for row.
 */

type Row = Record<string, unknown>;

const schema = async (db: D1Database) =>
  (await db.prepare("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE '_cf_%' ORDER BY type, name").all<Row>()).results;
const recorded = async (db: D1Database) => (await db.prepare("SELECT id, name FROM d1_migrations ORDER BY id").all<Row>()).results;

async function dropEverything(db: D1Database, objects: Row[]) {
  for (const { type, name } of objects.filter((row) => row.type === "trigger" || row.type === "view")) {
    await db.prepare(`DROP ${String(type).toUpperCase()} "${String(name)}"`).run();
  }
  const tables = objects.filter((row) => row.type === "table" && !String(row.name).startsWith("sqlite_"));
  await db.batch([db.prepare("PRAGMA defer_foreign_keys = on"), ...tables.map(({ name }) => db.prepare(`DROP TABLE "${String(name)}"`))]);
}

for (const [binding, folder] of [
  ["DB_SCHOOLS_1", "SCHOOL_MIGRATIONS"],
  ["DB", "CONTROL_MIGRATIONS"],
] as const) {
  it(`${binding}: one batch gives the schema and d1_migrations rows applyD1Migrations gives`, async () => {
    const db = env[binding]!;
    const oneBatch = await schema(db);
    const oneBatchRecorded = await recorded(db);
    // Every migration of the folder is recorded, and there is a schema to compare.
    expect(oneBatchRecorded.map((row) => row.name)).toEqual(env[folder].map((migration) => migration.name));
    expect(oneBatch.filter((row) => row.type === "table").length).toBeGreaterThan(1);

    await dropEverything(db, oneBatch);
    expect((await schema(db)).filter((row) => !String(row.name).startsWith("sqlite_"))).toEqual([]);
    await applyD1Migrations(db, env[folder]);

    expect(await schema(db)).toEqual(oneBatch);
    expect(await recorded(db)).toEqual(oneBatchRecorded);
  });
}
