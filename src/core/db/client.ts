import { drizzle, type DrizzleD1Database } from "drizzle-orm/d1";
import type { Env } from "../env";
import { timedD1, type StatementTiming } from "./timing";

/** Drizzle over D1, used through the query builder only (no relational `db.query`), so it needs no schema. */
export type Db = DrizzleD1Database & { $client: D1Database };

const databases = new WeakMap<D1Database, Db>();

/** One drizzle instance per D1 binding (per isolate), not per request. */
export function database(binding: D1Database): Db {
  let db = databases.get(binding);
  if (!db) {
    db = drizzle(binding);
    databases.set(binding, db);
  }
  return db;
}

/**
 * The control database: schools (with each school's shard), tariffs, payments and the superadmin's
 * account. Nothing of a school's people or content lives here; the platform context has only this.
 */
export function controlDb(env: Env): Db {
  return database(env.DB);
}

/** A school database binding's name: `DB_SCHOOLS_0` … `DB_SCHOOLS_{N-1}` in wrangler.toml. */
const SHARD_BINDING = /^DB_SCHOOLS_(0|[1-9][0-9]{0,3})$/;

/**
 * The school databases this Worker is bound to, in index order. They must be numbered 0…N-1 without
 * gaps: a gap means a binding was lost from wrangler.toml, and schools stored on it would be
 * unreachable, so the Worker refuses to pick shards rather than spread new schools unevenly.
 */
export function shardNames(env: Env): string[] {
  const indexes = Object.keys(env)
    .map((key) => SHARD_BINDING.exec(key)?.[1])
    .filter((index): index is string => index !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
  if (indexes.length === 0) throw new Error("no school database is bound (DB_SCHOOLS_0 in wrangler.toml)");
  indexes.forEach((index, position) => {
    if (index !== position) throw new Error(`school database bindings must be DB_SCHOOLS_0…N-1; DB_SCHOOLS_${position} is missing`);
  });
  return indexes.map((index) => `DB_SCHOOLS_${index}`);
}

/** The D1 binding of a shard name stored on a school (never taken from a request). */
export function shardBinding(env: Env, shard: string): D1Database {
  const binding = SHARD_BINDING.test(shard) ? (env as unknown as Record<string, unknown>)[shard] : undefined;
  if (!binding) throw new Error(`school database ${shard} is not bound`);
  return binding as D1Database;
}

/** The school database (shard) a school's rows live in. */
export function shardDb(env: Env, shard: string): Db {
  return database(shardBinding(env, shard));
}

/**
 * A request's view of a shard through D1's Sessions API, so read replicas may serve it. Reads start
 * anywhere (`first-unconstrained`) unless the client sent the bookmark of its last answer, which
 * makes the session at least that fresh (a client reads its own writes); writes start on the
 * primary. The bookmark after the request goes back to the client (`X-D1-Bookmark`).
 */
export function shardSession(
  env: Env,
  shard: string,
  start: { readOnly: boolean; bookmark: string | null; timing?: StatementTiming },
): { db: Db; bookmark(): string | null } {
  const session = shardBinding(env, shard).withSession(start.bookmark ?? (start.readOnly ? "first-unconstrained" : "first-primary"));
  const client = start.timing ? timedD1(session, start.timing) : session;
  return { db: drizzle(client as unknown as D1Database) as Db, bookmark: () => session.getBookmark() };
}

/** D1 bookmarks are short dash-separated hex words; anything else is ignored, not passed to D1. */
export function validBookmark(value: string | undefined): string | null {
  return value !== undefined && /^[0-9a-f]{1,32}(?:-[0-9a-f]{1,32}){1,7}$/i.test(value) ? value : null;
}

/**
 * The same read on every school database (and the control database when asked), in parallel: one
 * round trip of wall time. Only for lookups that name no school (a signed link, the dev inboxes);
 * the rows of all databases, concatenated.
 */
export async function inEveryDatabase<T>(env: Env, read: (db: Db) => Promise<T[]>, options: { control?: boolean } = {}): Promise<T[]> {
  const databases = [...(options.control ? [controlDb(env)] : []), ...shardNames(env).map((shard) => shardDb(env, shard))];
  return (await Promise.all(databases.map(read))).flat();
}
