import { describe, expect, it } from "vitest";
import { app } from "../../../src/app";
import { barrierD1, requestWithD1 } from "../../helpers/d1-barrier";
import { roundTripD1 } from "../../helpers/d1-counter";
import { createUser } from "../../helpers/factories";
import { adjust, givePoints, pointEventRows, totalOf } from "../../helpers/rating";
import { schoolWithAdmin, signedIn } from "../../helpers/users";
import { addPushDevice, outboxRows } from "../../notifications/helpers";
import { schoolD1 } from "../../helpers/databases";
import { envWith } from "../../helpers/wrapped-d1";

/**
 * What an adjustment sends: #61 rating.bonus_awarded or #62 rating.points_deducted to the student
 * (never to the admin, never again for a repeated key), #63 rating.top_entered when it lifts the
 * student into the school's top 10 (once a local day); and the idempotency race.
 */

const ratingRows = async (tenantId: string) => (await outboxRows(tenantId)).filter((row) => row.eventCode.startsWith("rating."));

async function setup() {
  const { school, admin } = await schoolWithAdmin();
  const student = await createUser(school.id, { role: "student" });
  await addPushDevice(school.id, student.id);
  await addPushDevice(school.id, admin.id);
  return { school, admin, student };
}

describe("adjustment pushes", () => {
  it("#61 for a bonus and #62 for a deduction (absolute points), with the reason and the new total, to the student only", async () => {
    const { school, admin, student } = await setup();
    const bonus = await adjust(admin, { student_id: student.id, points: "12.5", reason: "Science fair" });
    const deduction = await adjust(admin, { student_id: student.id, points: "-2.25", reason: "Late again" });
    const bonusId = bonus.body.data.event_id;
    const deductionId = deduction.body.data.event_id;
    const rows = await ratingRows(school.id);
    expect(rows.map((row) => [row.eventCode, row.userId, row.aggregateType, row.aggregateId, row.dedupeKey, row.data])).toEqual([
      [
        "rating.bonus_awarded",
        student.id,
        "point_event",
        bonusId,
        `rating.bonus_awarded:${bonusId}:${bonusId}:${student.id}`,
        { event_code: "rating.bonus_awarded", points: "12.50", reason: "Science fair", total_points: "12.50", point_event_id: bonusId },
      ],
      [
        "rating.points_deducted",
        student.id,
        "point_event",
        deductionId,
        `rating.points_deducted:${deductionId}:${deductionId}:${student.id}`,
        { event_code: "rating.points_deducted", points: "2.25", reason: "Late again", total_points: "10.25", point_event_id: deductionId },
      ],
    ]);
    expect(rows[0]!.body).toContain("Science fair");
    expect(rows[1]!.body).toContain("10.25");
  });

  it("a repeated key sends nothing more; an inactive student is told nothing", async () => {
    const { school, admin, student } = await setup();
    const body = { student_id: student.id, points: "4", reason: "Bonus", idempotency_key: "once" };
    expect((await adjust(admin, body)).status).toBe(201);
    expect((await adjust(admin, body)).status).toBe(200);
    expect((await ratingRows(school.id)).map((row) => row.eventCode)).toEqual(["rating.bonus_awarded"]);

    const inactive = await createUser(school.id, { role: "student", isActive: false });
    await addPushDevice(school.id, inactive.id);
    expect((await adjust(admin, { student_id: inactive.id, points: "4", reason: "Bonus" })).status).toBe(201);
    expect((await ratingRows(school.id)).filter((row) => row.userId === inactive.id)).toEqual([]);
  });

  it("20 concurrent calls with one key: one event, one push, the same event_id in every answer, the total changed once", async () => {
    const { school, admin, student } = await setup();
    const body = { student_id: student.id, points: "7.77", reason: "Race", idempotency_key: "race-key" };
    const results = await Promise.all(Array.from({ length: 20 }, () => adjust(admin, body)));
    const ids = new Set(results.map((res) => res.body.data?.event_id));
    expect(ids.size).toBe(1);
    expect(results.map((res) => res.status).sort()).toEqual([...Array(19).fill(200), 201]);
    const rows = await pointEventRows(school.id);
    expect(rows.map((row) => [row.id, row.source_key, row.points_hundredths])).toEqual([[[...ids][0], "manual:race-key", 777]]);
    expect(await totalOf(school.id, student.id)).toBe(777);
    expect((await ratingRows(school.id)).map((row) => [row.eventCode, row.aggregateId])).toEqual([["rating.bonus_awarded", [...ids][0]]]);
  });

  it("20 calls with one key all past their read before any writes: still one event and one push, one 201", async () => {
    const { school, admin, student } = await setup();
    const barrier = barrierD1(await schoolD1(school.id), { held: /INSERT INTO point_events/, parties: 20 });
    const body = { student_id: student.id, points: "-1.50", reason: "Held race", idempotency_key: "held" };
    const results = await Promise.all(
      Array.from({ length: 20 }, () => requestWithD1(barrier.db, "/t/admin/rating/adjustments", { token: admin.token, tenant: admin.subdomain, body })),
    );
    expect(barrier.stats.releases).toEqual([20]);
    expect(results.map((res) => res.status).sort()).toEqual([...Array(19).fill(200), 201]);
    const ids = new Set(results.map((res) => res.body.data.event_id));
    expect(ids.size).toBe(1);
    expect((await pointEventRows(school.id)).map((row) => row.id)).toEqual([...ids]);
    expect(await totalOf(school.id, student.id)).toBe(-150);
    expect((await ratingRows(school.id)).map((row) => [row.eventCode, row.aggregateId, row.data.points])).toEqual([["rating.points_deducted", [...ids][0], "1.50"]]);
  });
});

describe("#63 rating.top_entered from an adjustment", () => {
  /** Eleven other active students with 10.00 … 110.00 points, so a student at 0 ranks 12th. */
  async function crowdedSchool() {
    const context = await setup();
    const others = [];
    for (let i = 1; i <= 11; i++) {
      const other = await createUser(context.school.id, { role: "student" });
      await givePoints(context.school.id, other.id, i * 1000);
      others.push(other);
    }
    return { ...context, others };
  }

  const topEntered = async (tenantId: string) => (await ratingRows(tenantId)).filter((row) => row.eventCode === "rating.top_entered");

  it("tells the student who enters the top 10, with rank and total; not for a rise that stays outside, not again the same day", async () => {
    const { school, admin, student } = await crowdedSchool();
    // 0 → 5.00: still 12th.
    await adjust(admin, { student_id: student.id, points: "5", reason: "Small" });
    expect(await topEntered(school.id)).toEqual([]);
    // 5.00 → 35.00: above 30.00 and below 40.00, so 9th (the 80 … 110 and 40 … 70 students ahead: 8).
    const lift = await adjust(admin, { student_id: student.id, points: "30", reason: "Big" });
    const rows = await topEntered(school.id);
    expect(rows.map((row) => [row.userId, row.aggregateId, row.dedupeKey.startsWith(`rating.top_entered:${student.id}:`), row.data])).toEqual([
      [student.id, lift.body.data.event_id, true, { event_code: "rating.top_entered", rank: 9, total_points: "35.00", point_event_id: lift.body.data.event_id }],
    ]);
    expect(rows[0]!.dedupeKey).toMatch(new RegExp(`^rating\\.top_entered:${student.id}:\\d{4}-\\d{2}-\\d{2}$`));

    // Out of the top 10 and back in on the same local day: no second #63.
    await adjust(admin, { student_id: student.id, points: "-35", reason: "Correction" });
    await adjust(admin, { student_id: student.id, points: "50", reason: "Again" });
    expect(await topEntered(school.id)).toHaveLength(1);
    // A deduction never enters anyone into the top. (Rows of one batch share created_at, so compare sorted.)
    expect((await ratingRows(school.id)).map((row) => row.eventCode).sort()).toEqual([
      "rating.bonus_awarded",
      "rating.bonus_awarded",
      "rating.bonus_awarded",
      "rating.points_deducted",
      "rating.top_entered",
    ]);
  });

  it("no #63 for a student already in the top 10, nor for one an adjustment leaves at 11th", async () => {
    const { school, admin, student, others } = await crowdedSchool();
    // others[10] holds 110.00, first place: a bonus keeps it in.
    await adjust(admin, { student_id: others[10]!.id, points: "1", reason: "r" });
    // 0 → 10.50: ahead of the 10.00 student only, 11th.
    await adjust(admin, { student_id: student.id, points: "10.5", reason: "r" });
    expect(await topEntered(school.id)).toEqual([]);
    expect(await totalOf(school.id, student.id)).toBe(1050);
    const admin2 = await signedIn(school, { role: "admin" });
    // 10.50 → 20.50: past the 20.00 student, 10th.
    await adjust(admin2, { student_id: student.id, points: "10", reason: "r" });
    expect((await topEntered(school.id)).map((row) => [row.userId, row.data.rank])).toEqual([[student.id, 10]]);
  });
});

describe("adjustment round trips", () => {
  async function roundTrips(member: { token: string; subdomain: string; tenantId: string }, method: string, path: string, body?: unknown) {
    const counting = roundTripD1(await schoolD1(member.tenantId));
    const response = await app.request(
      `https://api.lms.localhost/api/v1${path}`,
      {
        method,
        headers: { authorization: `Bearer ${member.token}`, "x-tenant-subdomain": member.subdomain, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      },
      envWith(counting.db),
    );
    await response.arrayBuffer();
    return { status: response.status, trips: counting.roundTrips() };
  }

  it("a new adjustment is one read batch and one write batch (pushes and read-back included); a replayed key the read alone", async () => {
    const { admin, student } = await setup();
    // The rules list is one statement after the guard's: the baseline.
    const baseline = await roundTrips(admin, "GET", "/t/admin/gamification/rules");
    const body = { student_id: student.id, points: "3", reason: "Counted", idempotency_key: "counted" };
    expect(await roundTrips(admin, "POST", "/t/admin/rating/adjustments", body)).toEqual({ status: 201, trips: baseline.trips + 1 });
    expect(await roundTrips(admin, "POST", "/t/admin/rating/adjustments", body)).toEqual({ status: 200, trips: baseline.trips });
  });
});
