import { drizzle, type DrizzleD1Database } from "drizzle-orm/d1";
import type { Env } from "../env";

/** Drizzle over D1, used through the query builder only (no relational `db.query`), so it needs no schema. */
export type Db = DrizzleD1Database & { $client: D1Database };

const databases = new WeakMap<D1Database, Db>();

/** One drizzle instance per D1 binding (per isolate), not per request. */
function database(binding: D1Database): Db {
  let db = databases.get(binding);
  if (!db) {
    db = drizzle(binding);
    databases.set(binding, db);
  }
  return db;
}

/**
 * The database that holds a school's data. Today every school lives in the one `DB` binding; a
 * move to several databases (school → shard, past one D1's size or write rate) changes only this
 * function. Nothing else reads `env.DB`.
 */
export function dbFor(env: Env, _school: { id: string } | null): Db {
  return database(env.DB);
}

/** The database of platform-wide records (schools, tariffs, the superadmin), read before a school is known. */
export function platformDb(env: Env): Db {
  return database(env.DB);
}
