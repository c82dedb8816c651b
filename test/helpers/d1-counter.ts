import { env } from "cloudflare:test";
import { shardNames } from "../../src/core/db/client";
import type { Env } from "../../src/core/env";
import { envWith, wrapD1 } from "./wrapped-d1";

/** How many times a wrapped D1 binding was asked for work. */
export interface D1Counts {
  prepare: number;
  batch: number;
  exec: number;
}

/**
 * Wraps a D1 binding so a test can count the statements (prepare), batches and execs a request
 * issues: `app.request(url, init, envWith(counting.db))` (test/helpers/wrapped-d1.ts). A school
 * request's statements go to its shard: wrap `await schoolD1(tenantId)` to count them.
 */
export function countingD1(inner: D1Database, counts: D1Counts = { prepare: 0, batch: 0, exec: 0 }): { db: D1Database; counts: D1Counts } {
  const db = wrapD1(inner, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      if (property === "prepare" || property === "batch" || property === "exec") {
        return (...args: unknown[]) => {
          counts[property] += 1;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      return (value as (...a: unknown[]) => unknown).bind(target);
    },
  });
  return { db, counts };
}

/**
 * Counts what actually travels to D1: each batch once, each statement executed on its own once (a
 * statement that only joins a batch is not a round trip of its own).
 */
export function roundTripD1(inner: D1Database) {
  const stats = { batches: 0, statements: 0 };
  const wrapStatement = (statement: D1PreparedStatement): D1PreparedStatement =>
    new Proxy(statement, {
      get(target, property) {
        const value = Reflect.get(target, property, target);
        if (typeof value !== "function") return value;
        if (property === "bind") return (...args: unknown[]) => wrapStatement((value as (...a: unknown[]) => D1PreparedStatement).apply(target, args));
        if (property === "first" || property === "all" || property === "run" || property === "raw") {
          return (...args: unknown[]) => {
            stats.statements += 1;
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        }
        return (value as (...a: unknown[]) => unknown).bind(target);
      },
    });
  const db = wrapD1(inner, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (property === "prepare") return (query: string) => wrapStatement(target.prepare(query));
      if (property === "batch") {
        return (statements: D1PreparedStatement[]) => {
          stats.batches += 1;
          return target.batch(statements);
        };
      }
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { db, stats, roundTrips: () => stats.batches + stats.statements };
}

/**
 * One count over the control database and every school database: a cron scan reads the schools
 * from the control database and then visits each school on its shard.
 */
export function countingEveryD1(base: Env = env as Env): { env: Env; counts: D1Counts } {
  const counts: D1Counts = { prepare: 0, batch: 0, exec: 0 };
  const names = ["DB", ...shardNames(env as Env)] as const;
  const wrapped = names.map((name) => countingD1((env as unknown as Record<string, D1Database>)[name]!, counts).db);
  return { env: envWith(wrapped, base), counts };
}
