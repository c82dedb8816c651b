import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { serviceContext } from "../../src/core/http/request-context";
import { purgeDeviceEvents } from "../../src/platform/devices/events-purge-job";
import { DAY_MS, setClockForTests } from "../../src/core/lib/clock";
import { uuidv7 } from "../../src/core/lib/ids";
import { createSchool } from "../helpers/factories";
import { schoolWithStudent, setPolicy, signInOn } from "../helpers/devices";

async function insertEvent(tenantId: string | null, userId: string, createdAt: number) {
  const id = uuidv7(createdAt);
  await env.DB.prepare("INSERT INTO device_events (id, tenant_id, user_id, type, created_at) VALUES (?, ?, ?, 'login', ?)")
    .bind(id, tenantId, userId, createdAt)
    .run();
  return id;
}

async function remaining(ids: string[]) {
  const placeholders = ids.map(() => "?").join(",");
  const { results } = await env.DB.prepare(`SELECT id FROM device_events WHERE id IN (${placeholders})`).bind(...ids).all<{ id: string }>();
  return new Set(results.map((row) => row.id));
}

describe("device events purge (cron)", () => {
  it("deletes events older than each school's event_retention_days; defaults for schools without a policy", async () => {
    const { admin, student } = await schoolWithStudent();
    await setPolicy(admin, { event_retention_days: 10 });
    const plain = await createSchool();
    const now = Date.now();
    const recent = await insertEvent(admin.tenantId, student.id, now - 9 * DAY_MS);
    const old = await insertEvent(admin.tenantId, student.id, now - 11 * DAY_MS);
    const keptByDefault = await insertEvent(plain.id, student.id, now - 11 * DAY_MS);
    const pastDefault = await insertEvent(plain.id, student.id, now - 181 * DAY_MS);
    const platformOld = await insertEvent(null, student.id, now - 181 * DAY_MS);

    setClockForTests({ now: () => now });
    const purged = await purgeDeviceEvents(serviceContext(env));
    expect(purged).toBeGreaterThanOrEqual(3);
    expect(await remaining([recent, old, keptByDefault, pastDefault, platformOld])).toEqual(new Set([recent, keptByDefault]));
  });

  it("runs from the scheduled handler and leaves fresh history alone", async () => {
    const { student } = await schoolWithStudent();
    const s = await signInOn(student);
    const { runScheduled } = await import("../../src/scheduled");
    await runScheduled({ cron: "*/5 * * * *", scheduledTime: Date.now(), noRetry() {} } as ScheduledController, env);
    const row = await env.DB.prepare("SELECT count(*) AS n FROM device_events WHERE session_id = ?").bind(s.sessionId).first<{ n: number }>();
    expect(row!.n).toBe(1);
  });
});
