import { describe, expect, it } from "vitest";
import { MINUTE_MS, setClockForTests } from "../../src/core/lib/clock";
import { createSchool, createUser, login } from "../helpers/factories";
import { api } from "../helpers/http";
import { fixtureD1, schoolD1 } from "../helpers/databases";

async function lastActiveAt(userId: string): Promise<number | null> {
  const row = await fixtureD1.prepare("SELECT last_active_at AS at FROM users WHERE id = ?").bind(userId).first<{ at: number | null }>();
  return row!.at;
}

/** The write runs after the response (waitUntil): wait until the row shows `expected` or a bounded number of polls pass. */
async function settled(userId: string, expected: number | null): Promise<number | null> {
  let value = await lastActiveAt(userId);
  for (let i = 0; i < 100 && value !== expected; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    value = await lastActiveAt(userId);
  }
  return value;
}

describe("users.last_active_at", () => {
  it("is set at sign-in, written again only once the 5-minute window has passed, after the response", async () => {
    const t0 = Date.now();
    setClockForTests({ now: () => t0 });
    const school = await createSchool();
    const user = await createUser(school.id, { role: "admin" });
    expect(await lastActiveAt(user.id)).toBeNull();
    const session = await login(user, { subdomain: school.subdomain });
    expect(await lastActiveAt(user.id)).toBe(t0);

    const call = () => api("/t/me/profile", { token: session.token, tenant: school.subdomain });
    setClockForTests({ now: () => t0 + 4 * MINUTE_MS });
    expect((await call()).status).toBe(200);
    expect(await settled(user.id, t0 + 4 * MINUTE_MS)).toBe(t0);

    const t1 = t0 + 5 * MINUTE_MS + 1;
    setClockForTests({ now: () => t1 });
    expect((await call()).status).toBe(200);
    expect(await settled(user.id, t1)).toBe(t1);
  });

  it("lands one write for many concurrent requests of one user", async () => {
    const t0 = Date.now();
    setClockForTests({ now: () => t0 });
    const school = await createSchool();
    const user = await createUser(school.id, { role: "admin" });
    const session = await login(user, { subdomain: school.subdomain });
    // Count the writes that change the row (this file's copy of the school's shard only).
    const shard = await schoolD1(school.id);
    await shard.batch([
      shard.prepare("CREATE TABLE IF NOT EXISTS last_active_writes (user_id TEXT NOT NULL)"),
      shard.prepare("CREATE TRIGGER IF NOT EXISTS last_active_counted AFTER UPDATE OF last_active_at ON users BEGIN INSERT INTO last_active_writes VALUES (NEW.id); END"),
    ]);

    const t1 = t0 + 10 * MINUTE_MS;
    // Each request's guard sees the old value and tries; the conditional UPDATE lets exactly one change the row.
    setClockForTests({ now: () => t1 });
    const results = await Promise.all(Array.from({ length: 12 }, () => api("/t/me/profile", { token: session.token, tenant: school.subdomain })));
    expect(results.map((res) => res.status)).toEqual(Array(12).fill(200));
    expect(await settled(user.id, t1)).toBe(t1);
    // Let every request's after-response work finish, then count.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const writes = await shard.prepare("SELECT count(*) AS n FROM last_active_writes WHERE user_id = ?").bind(user.id).first<{ n: number }>();
    expect(writes!.n).toBe(1);
    await shard.batch([shard.prepare("DROP TRIGGER last_active_counted"), shard.prepare("DROP TABLE last_active_writes")]);

    // A later writer with the same "now" changes nothing: the row is already inside the window.
    const changed = await fixtureD1.prepare("UPDATE users SET last_active_at = ? WHERE id = ? AND (last_active_at IS NULL OR last_active_at < ?)")
      .bind(t1, user.id, t1 - 5 * MINUTE_MS)
      .run();
    expect(changed.meta.changes).toBe(0);
  });
});
