import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { jobContext } from "../../src/contributors";
import { purgeDeviceEvents } from "../../src/platform/devices/events-purge-job";
import { DAY_MS, setClockForTests } from "../../src/core/lib/clock";
import { uuidv7 } from "../../src/core/lib/ids";
import { runCron } from "../helpers/billing";
import { createSchool } from "../helpers/factories";
import { schoolWithStudent, setPolicy, signInOn } from "../helpers/devices";
import { fixtureD1 } from "../helpers/databases";

async function insertEvent(tenantId: string | null, userId: string, createdAt: number) {
  const id = uuidv7(createdAt);
  await fixtureD1.prepare("INSERT INTO device_events (id, tenant_id, user_id, type, created_at) VALUES (?, ?, ?, 'login', ?)")
    .bind(id, tenantId, userId, createdAt)
    .run();
  return id;
}

/** The events still present, wherever they are: the control database (no school's) or a school's shard. */
async function remaining(ids: string[]) {
  const placeholders = ids.map(() => "?").join(",");
  const found = new Set<string>();
  for (const binding of [env.DB, env.DB_SCHOOLS_0, env.DB_SCHOOLS_1!]) {
    const { results } = await binding.prepare(`SELECT id FROM device_events WHERE id IN (${placeholders})`).bind(...ids).all<{ id: string }>();
    for (const row of results) found.add(row.id);
  }
  return found;
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
    const purged = await purgeDeviceEvents(jobContext(env));
    expect(purged).toBeGreaterThanOrEqual(3);
    expect(await remaining([recent, old, keptByDefault, pastDefault, platformOld])).toEqual(new Set([recent, keptByDefault]));
  });

  it("runs from the scheduled handler: old history goes, recent history and live sign-ins stay", async () => {
    const { admin, student } = await schoolWithStudent();
    await setPolicy(admin, { event_retention_days: 10 });
    const plain = await createSchool();
    const signedIn = await signInOn(student);
    const now = Date.now();
    const cutoff = now - 10 * DAY_MS;
    const defaultCutoff = now - 180 * DAY_MS;
    const kept = [
      await insertEvent(admin.tenantId, student.id, cutoff),
      await insertEvent(plain.id, student.id, now - 11 * DAY_MS),
      await insertEvent(plain.id, student.id, defaultCutoff),
      await insertEvent(null, student.id, defaultCutoff),
    ];
    const purged = [
      await insertEvent(admin.tenantId, student.id, cutoff - 1),
      await insertEvent(plain.id, student.id, defaultCutoff - 1),
      await insertEvent(null, student.id, defaultCutoff - 1),
    ];

    setClockForTests({ now: () => now });
    await runCron(now);
    expect(await remaining([...kept, ...purged])).toEqual(new Set(kept));
    // The sign-in's own `login` event is recent history too.
    const { results } = await fixtureD1.prepare("SELECT type FROM device_events WHERE session_id = ?").bind(signedIn.sessionId).all<{ type: string }>();
    expect(results).toEqual([{ type: "login" }]);
  });
});
