import { describe, expect, it } from "vitest";
import { uuidv7 } from "../../../src/core/lib/ids";
import { createSchool, createUser } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { schoolWithAdmin } from "../../helpers/users";
import { call } from "../../notifications/helpers";
import { fixtureD1 } from "../../helpers/databases";

/**
 * What the rating adds to campaign audiences: `points_total` (the school total, a signed decimal)
 * and `rank` (the school rank, competition ranking over the active students, a student without
 * points at 0.00), each with gte / lte and a `value`.
 */

async function givePoints(tenantId: string, studentId: string, hundredths: number) {
  const id = uuidv7();
  await fixtureD1.prepare(
    "INSERT INTO point_events (id, tenant_id, student_id, source_type, target_id, source_key, points_hundredths, reason, awarded_at) VALUES (?, ?, ?, 'manual', NULL, ?, ?, 'seed', ?)",
  )
    .bind(id, tenantId, studentId, `manual:${id}`, hundredths, Date.now())
    .run();
}

async function ratingAudience() {
  const { school, admin } = await schoolWithAdmin();
  const make = async (firstName: string, hundredths: number | null, options: { isActive?: boolean } = {}) => {
    const user = await createUser(school.id, { role: "student", firstName, ...options });
    if (hundredths !== null) await givePoints(school.id, user.id, hundredths);
    return user;
  };
  // Ranks: Anna 1 (30.00), Bekzod 2 and Dilya 2 (12.50), Eldor 4 (0.00, no events), Farid 5 (−2.00).
  await make("Anna", 3000);
  await make("Bekzod", 1250);
  await make("Dilya", 1000);
  await givePoints(school.id, (await createUser(school.id, { role: "student", firstName: "Dilya2" })).id, 0);
  await make("Eldor", null);
  await make("Farid", -200);
  // An inactive student with the most points is neither counted nor ranked.
  await make("Gulya", 9000, { isActive: false });
  // Another school's student never counts.
  const foreign = await createSchool();
  await givePoints(foreign.id, (await createUser(foreign.id, { role: "student" })).id, 99_999);
  return { school, admin };
}

const preview = (admin: { token: string; subdomain: string }, rules: unknown[], match = "all") =>
  call(admin, "/t/notifications/admin/audience/preview", { body: { filter: { match, rules } } });

async function audienceOf(admin: { token: string; subdomain: string }, rules: unknown[], match = "all") {
  const res = await preview(admin, rules, match);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const names = (res.body.data.audience.sample as { first_name: string }[]).map((student) => student.first_name).sort();
  expect(res.body.data.audience.count).toBe(names.length);
  return names;
}

describe("points_total", () => {
  it("gte / lte the student's school total, exact to the hundredth; no points count as 0.00", async () => {
    const { school, admin } = await ratingAudience();
    await givePoints(school.id, (await createUser(school.id, { role: "student", firstName: "Hanna" })).id, 1250);
    const rule = (operator: string, value: unknown) => ({ field: "points_total", operator, value });
    const cases: [unknown, string[]][] = [
      [rule("gte", "12.50"), ["Anna", "Bekzod", "Hanna"]],
      [rule("gte", 12.51), ["Anna"]],
      [rule("gte", "30"), ["Anna"]],
      [rule("lte", "10.00"), ["Dilya", "Dilya2", "Eldor", "Farid"]],
      [rule("lte", 0), ["Dilya2", "Eldor", "Farid"]],
      [rule("lte", "-2.00"), ["Farid"]],
      [rule("lte", "-2.01"), []],
      [rule("gte", "-100"), ["Anna", "Bekzod", "Dilya", "Dilya2", "Eldor", "Farid", "Hanna"]],
    ];
    for (const [filterRule, expected] of cases) {
      expect({ rule: filterRule, names: await audienceOf(admin, [filterRule]) }).toEqual({ rule: filterRule, names: expected });
    }
  });

  it("400 invalid_notification_audience for a value that is not a decimal with at most two decimals", async () => {
    const { admin } = await schoolWithAdmin();
    for (const value of [undefined, "abc", "1.234", "", null, true, "1e3"]) {
      const filterRule = { field: "points_total", operator: "gte", ...(value === undefined ? {} : { value }) };
      expect({ value, ...failure(await preview(admin, [filterRule])) }).toEqual({ value, status: 400, error: "invalid_notification_audience" });
    }
    expect(failure(await preview(admin, [{ field: "points_total", operator: "eq", value: "1" }]))).toEqual({ status: 400, error: "invalid_notification_audience" });
  });
});

describe("rank", () => {
  it("gte / lte the school rank: ties share it (1, 2, 2, 4…), students without points rank at 0.00, inactive ones do not count", async () => {
    const { admin } = await ratingAudience();
    const rule = (operator: string, value: unknown) => ({ field: "rank", operator, value });
    // Anna 30.00 → 1; Bekzod 12.50 → 2; Dilya 10.00 → 3; Dilya2 0.00 and Eldor (none) → 4; Farid −2.00 → 6.
    const cases: [unknown, string[]][] = [
      [rule("lte", 1), ["Anna"]],
      [rule("lte", "3"), ["Anna", "Bekzod", "Dilya"]],
      [rule("lte", 4), ["Anna", "Bekzod", "Dilya", "Dilya2", "Eldor"]],
      [rule("gte", 4), ["Dilya2", "Eldor", "Farid"]],
      [rule("gte", 5), ["Farid"]],
      [rule("gte", 6), ["Farid"]],
      [rule("gte", 7), []],
    ];
    for (const [filterRule, expected] of cases) {
      expect({ rule: filterRule, names: await audienceOf(admin, [filterRule]) }).toEqual({ rule: filterRule, names: expected });
    }
    // Combined with points_total.
    expect(await audienceOf(admin, [rule("lte", 3), { field: "points_total", operator: "lte", value: "12.50" }])).toEqual(["Bekzod", "Dilya"]);
  });

  it("400 invalid_notification_audience for a rank that is not a whole number from 1", async () => {
    const { admin } = await schoolWithAdmin();
    for (const value of [undefined, 0, -1, 1.5, "1.5", "x", null]) {
      const filterRule = { field: "rank", operator: "lte", ...(value === undefined ? {} : { value }) };
      expect({ value, ...failure(await preview(admin, [filterRule])) }).toEqual({ value, status: 400, error: "invalid_notification_audience" });
    }
  });
});
