import { runInDurableObject } from "cloudflare:test";
import { app } from "../../src/app";
import type { Env } from "../../src/core/env";
import { readResponse, type ApiResponse } from "./http";
import { envWith, wrapD1 } from "./wrapped-d1";

/** The SQL text of a prepared statement (workerd keeps it on the object). */
function statementText(statement: D1PreparedStatement): string {
  const text = (statement as unknown as { statement?: unknown }).statement;
  if (typeof text !== "string") throw new Error("D1 barrier: a prepared statement without its SQL text");
  return text;
}

/**
 * Wraps a D1 binding so that batches whose SQL matches `held` wait until `parties` of them are
 * waiting, then all go to D1 together. Concurrent requests are then certain to have done
 * everything before that write (their reads included) before any of them writes: the worst
 * interleaving of a read-check-write race, every run, instead of whatever the scheduler gives.
 * `parties` may be a list, one size per round, for requests that come back to the barrier
 * (a loser retrying its write): round k waits for `parties[k]`; past the list, the last size.
 * A party that never arrives releases the others after `timeoutMs`, so a changed code path fails
 * its assertions instead of hanging. `stats.releases` records the size of every release, so a
 * test asserts `[N]` (or its rounds): a timeout release is a shorter entry and fails that check,
 * so a slow machine cannot turn a race into sequential requests behind a passing test.
 * `arrivals(n)` resolves once `n` batches have arrived: a test starts the second party (an alarm,
 * a cron run) only when the first is certainly waiting at its write.
 */
export function barrierD1(inner: D1Database, options: { held: RegExp; parties: number | readonly number[]; timeoutMs?: number }) {
  const rounds = typeof options.parties === "number" ? [options.parties] : options.parties;
  let waiting: (() => void)[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stats = { held: 0, releases: [] as number[] };
  let watchers: { n: number; go: () => void }[] = [];
  const arrivals = (n: number) =>
    new Promise<void>((go) => {
      if (stats.held >= n) go();
      else watchers.push({ n, go });
    });
  const partiesNow = () => rounds[Math.min(stats.releases.length, rounds.length - 1)]!;
  const release = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    const released = waiting;
    waiting = [];
    stats.releases.push(released.length);
    for (const go of released) go();
  };
  const arrive = () =>
    new Promise<void>((resolve) => {
      stats.held += 1;
      waiting.push(resolve);
      const due = watchers.filter((watcher) => stats.held >= watcher.n);
      watchers = watchers.filter((watcher) => stats.held < watcher.n);
      for (const watcher of due) watcher.go();
      if (waiting.length >= partiesNow()) release();
      else timer ??= setTimeout(release, options.timeoutMs ?? 2_000);
    });
  const db = wrapD1(inner, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (property === "batch") {
        return async (statements: D1PreparedStatement[]) => {
          if (statements.some((statement) => options.held.test(statementText(statement)))) await arrive();
          return target.batch(statements);
        };
      }
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { db, stats, arrivals };
}

/**
 * A request through the app with the given D1 binding in place of the database it wraps (a school
 * request writes to its shard: wrap `await schoolD1(tenantId)`; platform writes: `env.DB`).
 */
export async function requestWithD1(
  db: D1Database,
  path: string,
  call: { method?: string; token?: string; tenant?: string; body?: unknown },
): Promise<ApiResponse> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (call.token) headers.authorization = `Bearer ${call.token}`;
  if (call.tenant) headers["x-tenant-subdomain"] = call.tenant;
  const method = call.method ?? "POST";
  const response = await app.request(
    `https://api.lms.localhost/api/v1${path}`,
    { method, headers, body: call.body === undefined ? undefined : JSON.stringify(call.body) },
    envWith(db),
  );
  return readResponse(response, { method, path: `/api/v1${path}` });
}

/**
 * A Durable Object's alarm run now with its D1 calls through `db` (a barrier) instead of the
 * binding it wraps (the school's shard), so a race test can hold the alarm's write beside a request's.
 */
export function alarmWithD1<T extends { alarm(): Promise<void> }>(stub: DurableObjectStub<T & Rpc.DurableObjectBranded>, db: D1Database): Promise<void> {
  return runInDurableObject(stub, async (instance: T) => {
    const holder = instance as unknown as { env: Env };
    const own = holder.env;
    holder.env = envWith(db, own);
    try {
      await instance.alarm();
    } finally {
      holder.env = own;
    }
  });
}
