/** How many times a wrapped D1 binding was asked for work. */
export interface D1Counts {
  prepare: number;
  batch: number;
  exec: number;
}

/**
 * Wraps a D1 binding so a test can count the statements (prepare), batches and execs a request
 * issues: `app.request(url, init, { ...env, DB: counting.db })`.
 */
export function countingD1(inner: D1Database): { db: D1Database; counts: D1Counts } {
  const counts: D1Counts = { prepare: 0, batch: 0, exec: 0 };
  const db = new Proxy(inner, {
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
