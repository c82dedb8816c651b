import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../src/db/schema";
import { DAY_MS, setClockForTests } from "../../src/core/lib/clock";
import { createTariff, superadmin, tenantRow } from "../helpers/billing";
import { barrierD1, requestWithD1 } from "../helpers/d1-barrier";
import { createSchool, db } from "../helpers/factories";

/** Every write of the school waits until all of them have read what they read: none sees another's result first. */
const schoolWrites = (parties: number) => barrierD1(env.DB, { held: /^update "tenants" set/i, parties });

const paymentRows = (tenantId: string) => db().select().from(schema.payments).where(eq(schema.payments.tenantId, tenantId));

describe("race: concurrent billing writes on one school add up", () => {
  it("8 concurrent extends of 7 days move expires_at by exactly 56 days and record exactly 8 payments", async () => {
    const EXTENDS = 8;
    const DAYS = 7;
    const now = Date.now();
    setClockForTests({ now: () => now });
    const operator = await superadmin();
    const expiresAt = now + 10 * DAY_MS;
    const school = await createSchool({ planState: "paid", expiresAt });

    const barrier = schoolWrites(EXTENDS);
    const results = await Promise.all(
      Array.from({ length: EXTENDS }, (_, i) =>
        requestWithD1(barrier.db, `/admin/tenants/${school.id}/extend`, { token: operator.token, body: { days: DAYS, reference: `EXT-${i}` } }),
      ),
    );
    expect(barrier.stats.releases).toEqual([EXTENDS]);
    expect(results.map((res) => res.status)).toEqual(Array(EXTENDS).fill(200));
    // Each extend saw the one before it: the applied expiries are the steps of one ladder.
    const applied = results.map((res) => Date.parse(res.body.data.applied_expires_at)).sort((a, b) => a - b);
    expect(applied).toEqual(Array.from({ length: EXTENDS }, (_, i) => expiresAt + (i + 1) * DAYS * DAY_MS));

    expect(await tenantRow(school.id)).toMatchObject({ planState: "paid", expiresAt: expiresAt + EXTENDS * DAYS * DAY_MS });
    const rows = await paymentRows(school.id);
    expect(rows).toHaveLength(EXTENDS);
    expect(rows.map((row) => row.reference).sort()).toEqual(Array.from({ length: EXTENDS }, (_, i) => `EXT-${i}`).sort());
    expect(rows.map((row) => [row.days, row.createdByUserId])).toEqual(Array(EXTENDS).fill([DAYS, operator.id]));
  });

  it("4 tariff activations (30 days) racing 4 extends (5 days) move expires_at by exactly 140 days with 8 payments", async () => {
    const now = Date.now();
    setClockForTests({ now: () => now });
    const operator = await superadmin();
    const tariff = await createTariff(operator.token, { title: "Race plan", duration_days: 30, price_cents: 1_000 });
    const expiresAt = now + 3 * DAY_MS;
    const school = await createSchool({ planState: "trial", expiresAt });

    const barrier = schoolWrites(8);
    const calls = Array.from({ length: 8 }, (_, i) =>
      i % 2 === 0
        ? requestWithD1(barrier.db, `/admin/tenants/${school.id}/activate`, { token: operator.token, body: { tariff_id: tariff.id, periods: 1 } })
        : requestWithD1(barrier.db, `/admin/tenants/${school.id}/extend`, { token: operator.token, body: { days: 5 } }),
    );
    const results = await Promise.all(calls);
    expect(barrier.stats.releases).toEqual([8]);
    expect(results.map((res) => res.status)).toEqual(Array(8).fill(200));

    const final = expiresAt + (4 * 30 + 4 * 5) * DAY_MS;
    expect(await tenantRow(school.id)).toMatchObject({ planState: "paid", expiresAt: final, currentTariffId: tariff.id });
    const rows = await paymentRows(school.id);
    expect(rows).toHaveLength(8);
    expect(rows.map((row) => row.days).sort((a, b) => a - b)).toEqual([5, 5, 5, 5, 30, 30, 30, 30]);
    // Every payment recorded a distinct point of the ladder, the last one the school's expiry.
    const applied = rows.map((row) => row.appliedExpiresAt).sort((a, b) => a - b);
    expect(new Set(applied).size).toBe(8);
    expect(applied.at(-1)).toBe(final);
  });
});
