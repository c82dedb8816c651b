import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { barrierD1 } from "../helpers/d1-barrier";

const heldBatch = (db: D1Database) => db.batch([db.prepare("SELECT 1 AS held_by_barrier")]);

describe("the D1 barrier's release record", () => {
  it("all parties arriving: one release of N", async () => {
    const barrier = barrierD1(env.DB, { held: /held_by_barrier/, parties: 3 });
    await Promise.all([heldBatch(barrier.db), heldBatch(barrier.db), heldBatch(barrier.db)]);
    expect(barrier.stats.releases).toEqual([3]);
  });

  it("a party that never arrives: the timeout's short release is recorded, and a race test's `[N]` check fails on it", async () => {
    const barrier = barrierD1(env.DB, { held: /held_by_barrier/, parties: 3, timeoutMs: 20 });
    await Promise.all([heldBatch(barrier.db), heldBatch(barrier.db)]);
    expect(barrier.stats.releases).toEqual([2]);
    expect(() => expect(barrier.stats.releases).toEqual([3])).toThrow();
  });

  it("parties that come late, one by one (a slow machine): each timeout is a release of 1, never [N]", async () => {
    const barrier = barrierD1(env.DB, { held: /held_by_barrier/, parties: 2, timeoutMs: 20 });
    await heldBatch(barrier.db);
    await heldBatch(barrier.db);
    expect(barrier.stats.releases).toEqual([1, 1]);
  });

  it("rounds: a list of sizes, one per release, the last one repeated past the list", async () => {
    const barrier = barrierD1(env.DB, { held: /held_by_barrier/, parties: [2, 1] });
    await Promise.all([heldBatch(barrier.db), heldBatch(barrier.db)]);
    await heldBatch(barrier.db);
    await heldBatch(barrier.db);
    expect(barrier.stats.releases).toEqual([2, 1, 1]);
  });

  it("batches that do not match pass without waiting or a release", async () => {
    const barrier = barrierD1(env.DB, { held: /held_by_barrier/, parties: 2 });
    await barrier.db.batch([barrier.db.prepare("SELECT 2 AS other")]);
    expect(barrier.stats).toEqual({ held: 0, releases: [] });
  });
});
