import { describe, expect, it } from "vitest";
import { eq, inArray } from "drizzle-orm";
import * as schema from "../../src/db/schema";
import { MINUTE_MS, setClockForTests } from "../../src/core/lib/clock";
import { runCron } from "../helpers/billing";
import { createSchool, createUser, db, login } from "../helpers/factories";
import { api, failure } from "../helpers/http";

describe("cron housekeeping", () => {
  it("purges login counters whose window and lock are over; keeps a live window and a lock still running", async () => {
    const school = await createSchool();
    const stale = await createUser(school.id);
    const lockEnded = await createUser(school.id);
    const lockRunning = await createUser(school.id);
    const live = await createUser(school.id);
    const key = (user: { email: string }) => `pair:${school.subdomain}:${user.email}`;
    const now = Date.now();
    const failAt = async (user: { email: string }, at: number, times = 1) => {
      setClockForTests({ now: () => at });
      for (let i = 0; i < times; i++) {
        const res = await api("/auth/login", { body: { email: user.email, password: "wrong-password", subdomain: school.subdomain } });
        expect(res.status).toBe(400);
      }
    };
    // Window over (15 minutes), never locked.
    await failAt(stale, now - 40 * MINUTE_MS);
    // Locked 40 minutes ago: window and lock (15 minutes) both over.
    await failAt(lockEnded, now - 40 * MINUTE_MS, 5);
    // The window opened 20 minutes ago (over), the fifth failure 10 minutes ago locked it until 5 minutes from now.
    await failAt(lockRunning, now - 20 * MINUTE_MS);
    await failAt(lockRunning, now - 10 * MINUTE_MS, 4);
    // The window opened 5 minutes ago.
    await failAt(live, now - 5 * MINUTE_MS);

    setClockForTests({ now: () => now });
    const counters = async () =>
      (await db().select().from(schema.loginFailures).where(inArray(schema.loginFailures.key, [stale, lockEnded, lockRunning, live].map(key))))
        .map((row) => row.key)
        .sort();
    expect(await counters()).toEqual([stale, lockEnded, lockRunning, live].map(key).sort());
    await runCron(now);
    expect(await counters()).toEqual([key(lockRunning), key(live)].sort());

    // What stayed still works: the running lock refuses even the right password.
    const locked = await api("/auth/login", { body: { email: lockRunning.email, password: lockRunning.password, subdomain: school.subdomain } });
    expect(failure(locked)).toEqual({ status: 423, error: "too many attempts, try again later" });
  });

  it("permanent deletion forgets the user's sign-in counter", async () => {
    const school = await createSchool();
    const admin = await createUser(school.id, { role: "admin" });
    const student = await createUser(school.id);
    const session = await login(admin, { subdomain: school.subdomain });
    expect((await api("/auth/login", { body: { email: student.email, password: "wrong-password", subdomain: school.subdomain } })).status).toBe(400);
    const counter = () => db().select({ key: schema.loginFailures.key }).from(schema.loginFailures).where(eq(schema.loginFailures.key, `pair:${school.subdomain}:${student.email}`));
    // The counter exists before the deletion, so its absence afterwards is the deletion's doing.
    expect(await counter()).toEqual([{ key: `pair:${school.subdomain}:${student.email}` }]);
    const res = await api(`/t/users/${student.id}/permanent`, { method: "DELETE", token: session.token, tenant: school.subdomain });
    expect(res.status).toBe(200);
    expect(await counter()).toEqual([]);
  });
});
