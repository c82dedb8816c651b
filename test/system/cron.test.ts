import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src";
import { setClockForTests } from "../../src/core/lib/clock";
import { createSchool, createUser, db, login } from "../helpers/factories";
import { api } from "../helpers/http";
import * as schema from "../../src/db/schema";
import { eq } from "drizzle-orm";

async function runCron() {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: "*/5 * * * *" }), env, ctx);
  await waitOnExecutionContext(ctx);
}

describe("cron housekeeping", () => {
  it("purges login counters whose window and lock are over, keeps live ones", async () => {
    const school = await createSchool();
    const stale = await createUser(school.id);
    const fresh = await createUser(school.id);
    const start = Date.now();
    setClockForTests({ now: () => start - 40 * 60_000 });
    await api("/auth/login", { body: { email: stale.email, password: "wrong-password", subdomain: school.subdomain } });
    setClockForTests(null);
    await api("/auth/login", { body: { email: fresh.email, password: "wrong-password", subdomain: school.subdomain } });
    await runCron();
    const keys = (await db().select({ key: schema.loginFailures.key }).from(schema.loginFailures)).map((row) => row.key);
    expect(keys).not.toContain(`pair:${school.subdomain}:${stale.email}`);
    expect(keys).toContain(`pair:${school.subdomain}:${fresh.email}`);
  });

  it("permanent deletion forgets the user's sign-in counter", async () => {
    const school = await createSchool();
    const admin = await createUser(school.id, { role: "admin" });
    const student = await createUser(school.id);
    const session = await login(admin, { subdomain: school.subdomain });
    await api("/auth/login", { body: { email: student.email, password: "wrong-password", subdomain: school.subdomain } });
    const res = await api(`/t/users/${student.id}/permanent`, { method: "DELETE", token: session.token, tenant: school.subdomain });
    expect(res.status).toBe(200);
    const left = await db().select().from(schema.loginFailures).where(eq(schema.loginFailures.key, `pair:${school.subdomain}:${student.email}`));
    expect(left).toEqual([]);
  });
});
