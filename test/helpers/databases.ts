import { env } from "cloudflare:test";
import { drizzle } from "drizzle-orm/d1";
import * as schema from "../../src/db/schema";
import { shardBinding, shardNames } from "../../src/core/db/client";

/**
 * Test fixtures read and write rows the way the tests always did (`db()`, `fixtureD1`), while each
 * school's rows live in its own shard: every statement goes to the database of the school it names.
 *
 * - Statements on the control tables (tenants, tariffs, payments, login_failures) go to `DB`.
 * - Otherwise the school is found among the statement's parameters and literals (a school id); its
 *   stored shard takes the statement (a batch: all of it). Failing that, a school member's id
 *   (`WHERE user_id = ?`) names the shard that holds the member.
 * - A statement that names no school: an INSERT goes to `DB` (the superadmin's rows); anything else
 *   runs on every database and must find rows in at most one (reads of rows by id), else it throws
 *   and the test must say which school (`schoolD1`).
 *
 * The isolation test (test/system/shards.test.ts) reads the bindings directly, not through this.
 */
const CONTROL_TABLE = /\b(?:from|into|update|join)\s+["`]?(?:tenants|tariffs|payments|login_failures)\b/i;
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

const knownShards = new Map<string, string>();
/**
 * Ids already looked up and found to be no school (row ids, user ids): not asked again. A school's id
 * is generated when it is created and named by statements only afterwards, so this cannot go stale.
 */
const notSchools = new Set<string>();

async function shardsNamed(candidates: readonly string[]): Promise<Set<string>> {
  const found = new Set<string>();
  const unknown: string[] = [];
  for (const id of candidates) {
    const shard = knownShards.get(id);
    if (shard) found.add(shard);
    else if (!notSchools.has(id)) unknown.push(id);
  }
  if (unknown.length > 0) {
    const rows = await fixtureD1.prepare("SELECT id, shard FROM tenants WHERE id IN (SELECT value FROM json_each(?))").bind(JSON.stringify(unknown)).all<{ id: string; shard: string }>();
    for (const row of rows.results) {
      knownShards.set(row.id, row.shard);
      found.add(row.shard);
    }
    for (const id of unknown) if (!knownShards.has(id)) notSchools.add(id);
  }
  return found;
}

const knownUsers = new Map<string, string>();

async function shardsOfUsers(candidates: readonly string[]): Promise<Set<string>> {
  const found = new Set<string>();
  const unknown = candidates.filter((id) => {
    const shard = knownUsers.get(id);
    if (shard) found.add(shard);
    return !shard;
  });
  if (unknown.length === 0) return found;
  for (const shard of shardNames(env)) {
    const rows = await shardBinding(env, shard)
      .prepare("SELECT id FROM users WHERE id IN (SELECT value FROM json_each(?)) AND tenant_id IS NOT NULL")
      .bind(JSON.stringify(unknown))
      .all<{ id: string }>();
    for (const row of rows.results) {
      knownUsers.set(row.id, shard);
      found.add(shard);
    }
  }
  return found;
}

/** The school database a school's rows live in (its stored shard). */
export async function schoolD1(tenantId: string): Promise<D1Database> {
  const [shard] = await shardsNamed([tenantId]);
  if (!shard) throw new Error(`school ${tenantId} is not in the control database`);
  return shardBinding(env, shard);
}

type Target = { kind: "one"; binding: D1Database } | { kind: "all" };

async function target(sqlTexts: readonly string[], params: readonly unknown[]): Promise<Target> {
  if (sqlTexts.some((text) => CONTROL_TABLE.test(text))) return { kind: "one", binding: env.DB };
  const ids = new Set<string>();
  for (const value of [...params, ...sqlTexts]) {
    if (typeof value !== "string") continue;
    for (const match of value.matchAll(UUID)) ids.add(match[0].toLowerCase());
  }
  let shards = await shardsNamed([...ids]);
  // Named by a member instead (`WHERE user_id = ?`): the shard that holds that user. Not for an
  // INSERT naming no school: that is a platform row (tenant_id NULL), which the control database holds.
  const inserts = sqlTexts.every((text) => /^\s*insert\b/i.test(text));
  if (shards.size === 0 && ids.size > 0 && !inserts) shards = await shardsOfUsers([...ids]);
  if (shards.size > 1) throw new Error(`a fixture statement names schools of several shards: ${sqlTexts[0]}`);
  const [shard] = shards;
  if (shard) return { kind: "one", binding: shard === "DB" ? env.DB : shardBinding(env, shard) };
  if (sqlTexts.every((text) => /^\s*insert\b/i.test(text))) return { kind: "one", binding: env.DB };
  return { kind: "all" };
}

const everyDatabase = (): D1Database[] => [env.DB, ...shardNames(env).map((name) => shardBinding(env, name))];

class RoutedStatement {
  constructor(
    readonly query: string,
    readonly params: unknown[] = [],
  ) {}
  bind(...params: unknown[]): RoutedStatement {
    return new RoutedStatement(this.query, params);
  }
  on(binding: D1Database): D1PreparedStatement {
    return binding.prepare(this.query).bind(...this.params);
  }
  private async each<T>(run: (statement: D1PreparedStatement) => Promise<T>, rows: (result: T) => number): Promise<T[]> {
    const where = await target([this.query], this.params);
    if (where.kind === "one") return [await run(this.on(where.binding))];
    const results = await Promise.all(everyDatabase().map((binding) => run(this.on(binding)).catch((err: unknown) => (isMissingTable(err) ? null : Promise.reject(err)))));
    const present = results.filter((result): result is Awaited<T> => result !== null);
    if (present.filter((result) => rows(result) > 0).length > 1) {
      throw new Error(`a fixture statement that names no school found rows in several databases; use schoolD1(tenantId): ${this.query}`);
    }
    return present;
  }
  async all<T = Record<string, unknown>>(): Promise<D1Result<T>> {
    const results = await this.each((statement) => statement.all<T>(), (result) => (/^\s*select\b/i.test(this.query) ? result.results.length : 0));
    const withRows = results.find((result) => result.results.length > 0) ?? results[0]!;
    const changes = results.reduce((sum, result) => sum + (result.meta?.changes ?? 0), 0);
    return { ...withRows, meta: { ...withRows.meta, changes } };
  }
  async run<T = Record<string, unknown>>(): Promise<D1Result<T>> {
    return this.all<T>();
  }
  async first<T = Record<string, unknown>>(column?: string): Promise<T | null> {
    const result = await this.all<Record<string, unknown>>();
    const row = result.results[0];
    if (!row) return null;
    return (column === undefined ? row : row[column]) as T;
  }
  async raw<T = unknown[]>(options?: { columnNames?: boolean }): Promise<T[]> {
    const where = await target([this.query], this.params);
    if (where.kind === "one") return (options?.columnNames ? this.on(where.binding).raw({ columnNames: true }) : this.on(where.binding).raw()) as Promise<T[]>;
    const rows: T[][] = [];
    for (const binding of everyDatabase()) {
      const found = (await this.on(binding).raw<T>().catch((err: unknown) => (isMissingTable(err) ? [] : Promise.reject(err)))) as T[];
      if (found.length > 0) rows.push(found);
    }
    if (rows.length > 1) throw new Error(`a fixture statement that names no school found rows in several databases; use schoolD1(tenantId): ${this.query}`);
    return rows[0] ?? [];
  }
}

// A school table read on the control database, or a control table on a school database, is absent there.
const isMissingTable = (err: unknown) => /no such table/i.test(String(err));

/** A D1 binding for fixtures that sends each statement to the database of the school it names. */
export const fixtureD1 = {
  prepare: (query: string) => new RoutedStatement(query),
  async batch(statements: RoutedStatement[]): Promise<D1Result[]> {
    if (statements.length === 0) return [];
    const where = await target(
      statements.map((statement) => statement.query),
      statements.flatMap((statement) => statement.params),
    );
    if (where.kind === "one") return where.binding.batch(statements.map((statement) => statement.on(where.binding)));
    // Updates and deletes by row id that name no school: each shard changes only the rows it holds.
    if (!statements.every((statement) => /^\s*(update|delete)\b/i.test(statement.query))) {
      throw new Error(`a fixture batch must name its school: ${statements[0]!.query}`);
    }
    const results = await Promise.all(shardNames(env).map((name) => shardBinding(env, name).batch(statements.map((statement) => statement.on(shardBinding(env, name))))));
    return results.find((batch) => batch.some((result) => (result.meta?.changes ?? 0) > 0)) ?? results[0]!;
  },
  async exec(query: string): Promise<D1ExecResult> {
    const where = await target([query], []);
    if (where.kind === "all") throw new Error(`a fixture exec must name its school: ${query.slice(0, 120)}`);
    return where.binding.exec(query);
  },
  withSession() {
    return fixtureD1;
  },
  dump() {
    throw new Error("dump is not routed");
  },
} as unknown as D1Database;

/** Drizzle over `fixtureD1`, with the relational schema the fixtures use. */
export const db = () => drizzle(fixtureD1, { schema });
