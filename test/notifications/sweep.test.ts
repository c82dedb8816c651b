import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { app } from "../../src/app";
import * as schema from "../../src/db/schema";
import type { Env } from "../../src/core/env";
import { jobContext } from "../../src/contributors";
import { MINUTE_MS, setClockForTests } from "../../src/core/lib/clock";
import { sweepPushes } from "../../src/platform/notifications/sweep-job";
import { createSchool, createUser, db } from "../helpers/factories";
import { failure, readResponse } from "../helpers/http";
import { addPushDevice, outboxRows, writePush } from "./helpers";

afterEach(() => setClockForTests(null));

function recordingEnv() {
  const sent: unknown[] = [];
  const queue = { send: async (body: unknown) => void sent.push(body), sendBatch: async (items: { body: unknown }[]) => void sent.push(...items.map((item) => item.body)) };
  return { sent, env: { ...env, PUSH_OUTBOX: queue } as unknown as Env };
}

async function pending() {
  const school = await createSchool();
  const user = await createUser(school.id, { role: "student" });
  await addPushDevice(school.id, user.id);
  await writePush(school.id, user.id);
  return { school, row: (await outboxRows(school.id))[0]! };
}

describe("push sweep (cron)", () => {
  it("re-sends a dispatch for schools whose rows waited more than two minutes, and leaves fresh or leased rows alone", async () => {
    const now = Date.now();
    const stale = await pending();
    const fresh = await pending();
    const leased = await pending();
    await db().update(schema.notificationOutbox).set({ createdAt: now - 3 * MINUTE_MS }).where(eq(schema.notificationOutbox.id, stale.row.id));
    await db().update(schema.notificationOutbox).set({ createdAt: now - 3 * MINUTE_MS, leaseUntil: now + MINUTE_MS }).where(eq(schema.notificationOutbox.id, leased.row.id));
    setClockForTests({ now: () => now });
    const { sent, env: testEnv } = recordingEnv();
    await sweepPushes(jobContext(testEnv));
    expect(sent).toContainEqual({ kind: "push", tenant_id: stale.school.id });
    expect(sent).not.toContainEqual({ kind: "push", tenant_id: fresh.school.id });
    expect(sent).not.toContainEqual({ kind: "push", tenant_id: leased.school.id });
  });

  it("fails a row whose attempts are used up once its lease is over (its deliveries kept crashing)", async () => {
    const { school, row } = await pending();
    const now = Date.now();
    await db().update(schema.notificationOutbox).set({ attempts: 5, leaseUntil: now - 1, lastError: "D1 unavailable" }).where(eq(schema.notificationOutbox.id, row.id));
    setClockForTests({ now: () => now });
    await sweepPushes(jobContext(recordingEnv().env));
    expect((await outboxRows(school.id))[0]).toMatchObject({ status: "failed", lastError: "gave up after 5 attempts: D1 unavailable", settledAt: now });
  });
});

describe("GET /api/v1/dev/pushes", () => {
  it("answers like an unknown route while DEV_PUSHBOX is off", async () => {
    const response = await app.request(`https://api.lms.localhost/api/v1/dev/pushes?user_id=${crypto.randomUUID()}`, {}, { ...env, DEV_PUSHBOX: "false" });
    const res = await readResponse(response, { method: "GET", path: "/api/v1/dev/pushes" });
    expect(failure(res)).toEqual({ status: 404, error: "not_found" });
    // Even a malformed call: the switch is checked first.
    const malformed = await app.request("https://api.lms.localhost/api/v1/dev/pushes?user_id=nope", {}, { ...env, DEV_PUSHBOX: "false" });
    expect(malformed.status).toBe(404);
  });
});
