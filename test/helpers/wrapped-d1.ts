import { env } from "cloudflare:test";
import type { Env } from "../../src/core/env";

/**
 * Test wrappers of a D1 binding (counters, barriers) remember what they wrap, so a request can be
 * given the wrapper in place of the very binding it wraps: `envWith(counting.db)` puts it on `DB`
 * when it wraps the control database, on `DB_SCHOOLS_1` when it wraps that school database
 * (`schoolD1(tenantId)`, test/helpers/databases.ts). A school request's own reads go to its shard.
 */
const wrappedBy = new WeakMap<object, D1Database>();

/** Records that `wrapper` stands for `inner` (call from every wrapping helper). */
export function wraps<T extends D1Database>(wrapper: T, inner: D1Database): T {
  wrappedBy.set(wrapper, inner);
  return wrapper;
}

const DATABASE_BINDING = /^DB(?:_SCHOOLS_\d+)?$/;

/** The binding name (`DB`, `DB_SCHOOLS_0`, …) of the test database a wrapper wraps. */
export function bindingName(db: D1Database): string {
  let inner = db;
  for (let next = wrappedBy.get(inner); next; next = wrappedBy.get(inner)) inner = next;
  const bindings = env as unknown as Record<string, unknown>;
  const name = Object.keys(bindings).find((key) => DATABASE_BINDING.test(key) && bindings[key] === inner);
  if (!name) throw new Error("envWith: the binding wraps none of the test databases (wrap env.DB or schoolD1(tenantId))");
  return name;
}

/** The bindings with each wrapper in place of the database it wraps (default: the test's env). */
export function envWith(dbs: D1Database | readonly D1Database[], base: Env = env as Env): Env {
  const swapped: Record<string, unknown> = { ...base };
  for (const db of Array.isArray(dbs) ? dbs : [dbs as D1Database]) swapped[bindingName(db)] = db;
  return swapped as unknown as Env;
}

/**
 * A wrapper of a D1 binding by a proxy `handler`, registered with `wraps`. School requests run in
 * a D1 session (`withSession`, read replicas): the session gets the same handler, so a counter or
 * barrier sees the statements a request sends through it.
 */
export function wrapD1(inner: D1Database, handler: ProxyHandler<D1Database>): D1Database {
  const get = handler.get ?? ((target: D1Database, property: string | symbol) => Reflect.get(target, property, target));
  const proxy = new Proxy(inner, {
    get(target, property, receiver) {
      if (property === "withSession") {
        return (...args: unknown[]) => {
          const session = (target.withSession as (...a: unknown[]) => D1DatabaseSession).apply(target, args);
          return new Proxy(session, { get: get as unknown as ProxyHandler<D1DatabaseSession>["get"] });
        };
      }
      return get(target, property, receiver);
    },
  });
  return wraps(proxy, inner);
}
