import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../../src/app";
import { countingD1 } from "../helpers/d1-counter";
import { FIXTURES, mediaSchool } from "./helpers";

/**
 * Counts what actually travels to D1: each batch once, each statement executed on its own once
 * (a statement that only joins a batch is not a round trip of its own).
 */
function roundTripD1(inner: D1Database) {
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
  const db = new Proxy(inner, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (property === "prepare") {
        return (query: string) => wrapStatement(target.prepare(query));
      }
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

describe("cost of POST /t/media/presign", () => {
  it("costs at most 3 D1 round trips: authentication, then one batch (conditional insert with the quota, and the school read)", async () => {
    const { school, student } = await mediaSchool();
    const send = (db: D1Database) =>
      app.request(
        "https://api.lms.localhost/api/v1/t/media/presign",
        {
          method: "POST",
          headers: { authorization: `Bearer ${student.token}`, "x-tenant-subdomain": school.subdomain, "content-type": "application/json" },
          body: JSON.stringify({ kind: "image", filename: "a.png", declared_size: FIXTURES.png.length, declared_mime: "image/png" }),
        },
        { ...env, DB: db },
      );
    const counted = roundTripD1(env.DB);
    const res = await send(counted.db);
    expect(res.status).toBe(200);
    expect(counted.stats).toEqual({ batches: 1, statements: 1 });
    expect(counted.roundTrips()).toBeLessThanOrEqual(3);
    // The project's counter agrees: one standalone statement (authentication), one batch of two.
    const projectCounter = countingD1(env.DB);
    expect((await send(projectCounter.db)).status).toBe(200);
    expect(projectCounter.counts).toEqual({ prepare: 3, batch: 1, exec: 0 });
  });
});
