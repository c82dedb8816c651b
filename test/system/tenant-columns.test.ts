import { describe, expect, it } from "vitest";
import { env } from "cloudflare:test";

/**
 * Every school table carries its school: a NOT NULL `tenant_id` and an index (or primary key) that
 * starts with it, so every query of school data can filter by school cheaply. Read from the live
 * D1 schema the migrations built, not from the drizzle declarations.
 */

/** Tables that belong to no school. */
const PLATFORM_TABLES: Record<string, string> = {
  tenants: "the schools themselves",
  tariffs: "the platform's tariff catalogue, kept by the superadmin",
  d1_migrations: "D1's record of applied migrations",
  payments: "the platform's payment records (control database), kept by the superadmin",
  login_failures: "sign-in lock counters keyed by school subdomain and email or by IP, counted before any account or school is resolved",
};

/** School tables that also hold rows of the platform superadmin, who has no school: tenant_id may be NULL. */
const PLATFORM_ROWS: Record<string, string> = {
  users: "the superadmin is a user without a school",
  sessions: "the superadmin signs in too",
  auth_devices: "the superadmin's devices",
  device_events: "the superadmin's sign-in history",
  password_reset_codes: "the superadmin can reset their password",
  email_outbox: "mail to the superadmin (reset codes) has no school",
};

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

interface TableShape {
  name: string;
  tenantColumn: { notNull: boolean } | null;
  /** Whether an index or the primary key has tenant_id as its first column. */
  tenantIndexed: boolean;
}

/** Every table of the control database and of a school database (a table in both is read once). */
async function liveTables(): Promise<TableShape[]> {
  const shapes = new Map<string, TableShape>();
  for (const database of [env.DB_SCHOOLS_0, env.DB]) {
    for (const shape of await tablesOf(database)) if (!shapes.has(shape.name)) shapes.set(shape.name, shape);
  }
  return [...shapes.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
}

async function tablesOf(fixtureD1: D1Database): Promise<TableShape[]> {
  const { results: tables } = await fixtureD1.prepare(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' ORDER BY name",
  ).all<{ name: string }>();
  const shapes: TableShape[] = [];
  for (const { name } of tables) {
    const { results: columns } = await fixtureD1.prepare(`PRAGMA table_info(${quoted(name)})`).all<{ name: string; notnull: number; pk: number }>();
    const tenant = columns.find((column) => column.name === "tenant_id");
    // SQLite lets NULL into a non-integer primary key unless the column says NOT NULL, so only that counts.
    const tenantColumn = tenant ? { notNull: tenant.notnull === 1 } : null;
    let tenantIndexed = tenant?.pk === 1;
    const { results: indexes } = await fixtureD1.prepare(`PRAGMA index_list(${quoted(name)})`).all<{ name: string }>();
    for (const index of indexes) {
      const { results: keys } = await fixtureD1.prepare(`PRAGMA index_info(${quoted(index.name)})`).all<{ seqno: number; name: string }>();
      if (keys.find((key) => key.seqno === 0)?.name === "tenant_id") tenantIndexed = true;
    }
    shapes.push({ name, tenantColumn, tenantIndexed });
  }
  return shapes;
}

/** The problems of a schema under the rules above, one line per table and rule. */
function problems(tables: TableShape[]): string[] {
  const found: string[] = [];
  for (const table of tables) {
    if (table.name in PLATFORM_TABLES) continue;
    if (!table.tenantColumn) {
      found.push(`${table.name}: no tenant_id column`);
      continue;
    }
    if (!table.tenantColumn.notNull && !(table.name in PLATFORM_ROWS)) found.push(`${table.name}: tenant_id is nullable`);
    if (!table.tenantIndexed) found.push(`${table.name}: no index starts with tenant_id`);
  }
  return found;
}

describe("school tables carry their school", () => {
  it("reads the live schema", async () => {
    const names = (await liveTables()).map((table) => table.name);
    expect(names).toEqual(expect.arrayContaining(["tenants", "users", "sessions"]));
  });

  it("every school table has a NOT NULL tenant_id and an index that starts with it", async () => {
    expect(problems(await liveTables())).toEqual([]);
  });

  it("lists only tables that exist", async () => {
    const names = new Set((await liveTables()).map((table) => table.name));
    const listed = [...Object.keys(PLATFORM_TABLES), ...Object.keys(PLATFORM_ROWS)];
    expect(listed.filter((name) => !names.has(name))).toEqual([]);
  });

  it("flags a school table without tenant_id, with a nullable one, or without its index", () => {
    expect(
      problems([
        { name: "courses", tenantColumn: null, tenantIndexed: false },
        { name: "modules", tenantColumn: { notNull: false }, tenantIndexed: true },
        { name: "lessons", tenantColumn: { notNull: true }, tenantIndexed: false },
        { name: "blocks", tenantColumn: { notNull: true }, tenantIndexed: true },
        { name: "tariffs", tenantColumn: null, tenantIndexed: false },
      ]),
    ).toEqual(["courses: no tenant_id column", "modules: tenant_id is nullable", "lessons: no index starts with tenant_id"]);
  });
});
