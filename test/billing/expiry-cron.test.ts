import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../src/db/schema";
import { dueThreshold } from "../../src/platform/billing/expiry-service";
import { DAY_MS, HOUR_MS, setClockForTests } from "../../src/core/lib/clock";
import { outboxFor, runCron, tenantRow } from "../helpers/billing";
import { createSchool, createUser as createMember, db } from "../helpers/factories";
import { addPushDevice } from "../notifications/helpers";

/** Admins get pushes only with a push device (a member without one is skipped). */
async function createUser(tenantId: string, options: Parameters<typeof createMember>[1]) {
  const user = await createMember(tenantId, options);
  await addPushDevice(tenantId, user.id);
  return user;
}

/** Noon in Tashkent (07:00 UTC) on a fixed date, so calendar days are unambiguous. */
const NOON_TASHKENT = Date.parse("2031-03-10T07:00:00Z");

const at = (ms: number) => setClockForTests({ now: () => ms });
const reminders = async (tenantId: string) => (await outboxFor(tenantId)).filter((row) => row.eventCode === "billing.expiry_reminder");
const keys = async (tenantId: string) => (await reminders(tenantId)).map((row) => row.dedupeKey).sort();

describe("billing expiry cron", () => {
  it("writes down an ended period as a non-manual suspension, once", async () => {
    const now = Date.now();
    const ended = await createSchool({ planState: "paid", expiresAt: now - HOUR_MS });
    const endedTrial = await createSchool({ planState: "trial", expiresAt: now - 1 });
    const running = await createSchool({ planState: "paid", expiresAt: now + DAY_MS });
    const manual = await createSchool({ planState: "suspended", suspendedManually: true, expiresAt: now - DAY_MS });

    await runCron();
    expect(await tenantRow(ended.id)).toMatchObject({ planState: "suspended", suspendedManually: false, suspendedAt: now - HOUR_MS });
    expect(await tenantRow(endedTrial.id)).toMatchObject({ planState: "suspended", suspendedManually: false });
    expect((await tenantRow(running.id)).planState).toBe("paid");
    expect(await tenantRow(manual.id)).toMatchObject({ planState: "suspended", suspendedManually: true });

    const updatedAt = (await tenantRow(ended.id)).updatedAt;
    await runCron();
    expect((await tenantRow(ended.id)).updatedAt).toBe(updatedAt);
  });

  it("queues one reminder per admin and threshold; running twice adds nothing", async () => {
    at(NOON_TASHKENT);
    const expiresAt = NOON_TASHKENT + 7 * DAY_MS;
    const school = await createSchool({ planState: "paid", expiresAt });
    // More admins than one outbox insert statement carries, so the chunked insert is exercised.
    const admins = [];
    for (let i = 0; i < 7; i++) admins.push(await createUser(school.id, { role: "admin" }));
    await createUser(school.id, { role: "curator" });
    await createUser(school.id, { role: "student" });
    await createUser(school.id, { role: "admin", isActive: false });

    await runCron();
    await runCron();
    const rows = await outboxFor(school.id);
    expect(rows).toHaveLength(7);
    expect(rows.map((row) => row.dedupeKey).sort()).toEqual(
      admins.map((admin) => `billing.expiry_reminder:${school.id}:${expiresAt}:7:${admin.id}`).sort(),
    );
    expect(rows[0]).toMatchObject({
      eventCode: "billing.expiry_reminder",
      category: "billing",
      status: "pending",
      aggregateType: "tenant",
      aggregateId: school.id,
      data: { tenant_id: school.id, plan_state: "paid", expires_at: new Date(expiresAt).toISOString(), days_left: 7, days_before: 7 },
    });
    // The school's local time, in the platform locale's format.
    expect(rows[0]!.body).toContain("17.03.2031 12:00");
  });

  it("sends each threshold once as days pass, and a skipped day still gets the threshold crossed since", async () => {
    at(NOON_TASHKENT);
    const expiresAt = NOON_TASHKENT + 8 * DAY_MS;
    const school = await createSchool({ planState: "trial", expiresAt });
    const admin = await createUser(school.id, { role: "admin" });
    const key = (days: number) => `billing.expiry_reminder:${school.id}:${expiresAt}:${days}:${admin.id}`;

    await runCron(); // 8 days left: nothing yet
    expect(await keys(school.id)).toEqual([]);
    at(NOON_TASHKENT + DAY_MS); // 7 left
    await runCron();
    at(NOON_TASHKENT + 2 * DAY_MS); // 6 left: still the 7-day one, not again
    await runCron();
    expect(await keys(school.id)).toEqual([key(7)]);
    // Days 5 and 4 without a run; at 2 days left the 3-day threshold is due (not 1, not a second 7).
    at(NOON_TASHKENT + 6 * DAY_MS);
    await runCron();
    await runCron();
    expect(await keys(school.id)).toEqual([key(3), key(7)].sort());
    at(NOON_TASHKENT + 7 * DAY_MS + HOUR_MS); // 1 left
    await runCron();
    expect(await keys(school.id)).toEqual([key(1), key(3), key(7)].sort());
    at(expiresAt + 1); // ended: no more reminders, the school is written down as suspended
    await runCron();
    expect(await keys(school.id)).toHaveLength(3);
    expect((await tenantRow(school.id)).planState).toBe("suspended");
  });

  it("counts days in the school's time zone", async () => {
    // 23:30 on the 10th in Tashkent (UTC+5), 14:30 on the 10th in New York (UTC-4).
    at(Date.parse("2031-03-10T18:30:00Z"));
    // 00:30 on the 14th in Tashkent (4 calendar days ahead), 15:30 on the 13th in New York (3 ahead).
    const expiresAt = Date.parse("2031-03-13T19:30:00Z");
    const tashkent = await createSchool({ planState: "paid", expiresAt, timezone: "Asia/Tashkent" });
    const newYork = await createSchool({ planState: "paid", expiresAt, timezone: "America/New_York" });
    await createUser(tashkent.id, { role: "admin" });
    await createUser(newYork.id, { role: "admin" });
    await runCron();
    expect((await outboxFor(tashkent.id))[0]!.data).toMatchObject({ days_left: 4, days_before: 7 });
    expect((await outboxFor(newYork.id))[0]!.data).toMatchObject({ days_left: 3, days_before: 3 });
  });

  it("starts a new series when the expiry moves, and skips deleted schools", async () => {
    at(NOON_TASHKENT);
    const school = await createSchool({ planState: "paid", expiresAt: NOON_TASHKENT + 3 * DAY_MS });
    await createUser(school.id, { role: "admin" });
    await runCron();
    expect(await outboxFor(school.id)).toHaveLength(1);
    await db().update(schema.tenants).set({ expiresAt: NOON_TASHKENT + 2 * DAY_MS + HOUR_MS }).where(eq(schema.tenants.id, school.id));
    await runCron();
    expect(await outboxFor(school.id)).toHaveLength(2);

    const deleted = await createSchool({ planState: "paid", expiresAt: NOON_TASHKENT + DAY_MS });
    await createUser(deleted.id, { role: "admin" });
    await db().update(schema.tenants).set({ deletedAt: NOON_TASHKENT }).where(eq(schema.tenants.id, deleted.id));
    await runCron();
    expect(await outboxFor(deleted.id)).toEqual([]);
  });
});

describe("dueThreshold", () => {
  it("picks the tightest threshold already crossed", () => {
    const thresholds = [7, 3, 1];
    expect([9, 8, 7, 6, 4, 3, 2, 1, 0].map((left) => dueThreshold(left, thresholds))).toEqual([null, null, 7, 7, 7, 3, 3, 1, 1]);
    expect(dueThreshold(5, [])).toBeNull();
  });
});
