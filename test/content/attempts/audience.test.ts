import { describe, expect, it } from "vitest";
import { createSchool, createUser } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { insertAttempt, insertQuiz } from "../../helpers/quizzes";
import { schoolWithAdmin, unknownId } from "../../helpers/users";
import { call } from "../../notifications/helpers";

/** What quiz attempts add to campaign audiences: the fields `quiz_attempted` and `quiz_score_pct`. */

const T0 = Date.parse("2030-03-01T10:00:00.000Z");
const at = (minutes: number) => T0 + minutes * 60_000;

async function quizAudience() {
  const { school, admin } = await schoolWithAdmin();
  const make = (firstName: string) => createUser(school.id, { role: "student", firstName });
  const [anna, bekzod, dilya, eldor, farid] = [await make("Anna"), await make("Bekzod"), await make("Dilya"), await make("Eldor"), await make("Farid")];
  const best = await insertQuiz(school.id, { retakePolicy: "best" });
  const last = await insertQuiz(school.id, { retakePolicy: "last" });
  const deleted = await insertQuiz(school.id, { deleted: true });
  const settled = (quizId: string, userId: string, minute: number, pct: number) =>
    insertAttempt(school.id, quizId, userId, { submittedAt: at(minute), scorePctHundredths: pct, scoreHundredths: pct, maxScoreHundredths: 10_000, passed: true });
  // Anna: best of 40.00 and 80.00 on `best`.
  await settled(best.id, anna.id, 1, 4000);
  await settled(best.id, anna.id, 2, 8000);
  // Bekzod: on `last`, 90.00 then 50.00, then an attempt still waiting for a grade (no result yet).
  await settled(last.id, bekzod.id, 1, 9000);
  await settled(last.id, bekzod.id, 2, 5000);
  await insertAttempt(school.id, last.id, bekzod.id, { submittedAt: at(3), scorePctHundredths: 1000, pendingReview: true, passed: null });
  // Dilya: only an unfinished attempt and an exam section's attempt of `best`: neither counts.
  await insertAttempt(school.id, best.id, dilya.id, { status: "in_progress" });
  await insertAttempt(school.id, best.id, dilya.id, { submittedAt: at(4), scorePctHundredths: 10_000, examAttemptId: unknownId() });
  // Eldor: a finished attempt of `best` waiting for a grade: attempted, but no result.
  await insertAttempt(school.id, best.id, eldor.id, { submittedAt: at(5), scorePctHundredths: 0, pendingReview: true, passed: null });
  // Farid: an attempt of the deleted quiz only.
  await settled(deleted.id, farid.id, 6, 10_000);
  // A staff member's attempt and another school's student never appear.
  await insertAttempt(school.id, best.id, admin.id, { actorRole: "admin", submittedAt: at(7), scorePctHundredths: 10_000 });
  const foreign = await createSchool();
  await insertAttempt(foreign.id, best.id, (await createUser(foreign.id, { role: "student" })).id, { submittedAt: at(8), scorePctHundredths: 10_000 });
  return { admin, quizzes: { best: best.id, last: last.id, deleted: deleted.id } };
}

const preview = (admin: { token: string; subdomain: string }, rules: unknown[], match = "all") =>
  call(admin, "/t/notifications/admin/audience/preview", { body: { filter: { match, rules } } });

async function audienceOf(admin: { token: string; subdomain: string }, rules: unknown[], match = "all") {
  const res = await preview(admin, rules, match);
  expect(res.status).toBe(200);
  const names = (res.body.data.audience.sample as { first_name: string }[]).map((student) => student.first_name).sort();
  expect(res.body.data.audience.count).toBe(names.length);
  return names;
}

describe("quiz_attempted", () => {
  it("in / not_in: the student finished an attempt of a listed live quiz (outside exams)", async () => {
    const { admin, quizzes } = await quizAudience();
    const cases: [unknown, string[]][] = [
      [{ field: "quiz_attempted", operator: "in", values: [quizzes.best] }, ["Anna", "Eldor"]],
      [{ field: "quiz_attempted", operator: "in", values: [quizzes.last] }, ["Bekzod"]],
      [{ field: "quiz_attempted", operator: "in", values: [quizzes.best, quizzes.last.toUpperCase()] }, ["Anna", "Bekzod", "Eldor"]],
      [{ field: "quiz_attempted", operator: "in", values: [quizzes.deleted] }, []],
      [{ field: "quiz_attempted", operator: "not_in", values: [quizzes.best] }, ["Bekzod", "Dilya", "Farid"]],
      [{ field: "quiz_attempted", operator: "not_in", values: [quizzes.best, quizzes.last] }, ["Dilya", "Farid"]],
    ];
    for (const [rule, expected] of cases) {
      expect({ rule, names: await audienceOf(admin, [rule]) }).toEqual({ rule, names: expected });
    }
  });
});

describe("quiz_score_pct", () => {
  it("gte / lte: the student's result by the quiz's retake policy (best or last settled attempt) on any listed quiz", async () => {
    const { admin, quizzes } = await quizAudience();
    const rule = (operator: string, values: string[], value: unknown) => ({ field: "quiz_score_pct", operator, values, value });
    const cases: [unknown, string[]][] = [
      [rule("gte", [quizzes.best], 80), ["Anna"]],
      [rule("gte", [quizzes.best], "80.00"), ["Anna"]],
      [rule("gte", [quizzes.best], "80.01"), []],
      [rule("lte", [quizzes.best], 79.99), []],
      [rule("gte", [quizzes.best], 0), ["Anna"]],
      // `last`: the latest settled attempt (50.00), not the best (90.00) nor the pending one.
      [rule("lte", [quizzes.last], 50), ["Bekzod"]],
      [rule("lte", [quizzes.last], "49.99"), []],
      [rule("gte", [quizzes.last], 60), []],
      [rule("gte", [quizzes.best, quizzes.last], 50), ["Anna", "Bekzod"]],
      [rule("lte", [quizzes.best, quizzes.last], 100), ["Anna", "Bekzod"]],
      [rule("gte", [quizzes.deleted], 0), []],
    ];
    for (const [filterRule, expected] of cases) {
      expect({ rule: filterRule, names: await audienceOf(admin, [filterRule]) }).toEqual({ rule: filterRule, names: expected });
    }
    // A band: both bounds in one `all` filter; `any` joins the two sides.
    expect(await audienceOf(admin, [rule("gte", [quizzes.best, quizzes.last], 60), rule("lte", [quizzes.best, quizzes.last], 85)])).toEqual(["Anna"]);
    expect(await audienceOf(admin, [rule("gte", [quizzes.best], 90), rule("lte", [quizzes.last], 50)], "any")).toEqual(["Bekzod"]);
  });

  it("400 invalid_notification_audience for a missing or malformed bound, missing ids or another operator", async () => {
    const { admin, quizzes } = await quizAudience();
    const bad: unknown[] = [
      { field: "quiz_score_pct", operator: "gte", values: [quizzes.best] },
      { field: "quiz_score_pct", operator: "gte", values: [quizzes.best], value: 100.01 },
      { field: "quiz_score_pct", operator: "lte", values: [quizzes.best], value: -1 },
      { field: "quiz_score_pct", operator: "lte", values: [quizzes.best], value: "half" },
      { field: "quiz_score_pct", operator: "lte", values: [quizzes.best], value: "50.125" },
      { field: "quiz_score_pct", operator: "lte", values: [quizzes.best], value: true },
      { field: "quiz_score_pct", operator: "gte", value: 50 },
      { field: "quiz_score_pct", operator: "gte", values: ["not-a-uuid"], value: 50 },
      { field: "quiz_score_pct", operator: "in", values: [quizzes.best] },
      { field: "quiz_attempted", operator: "eq", values: [quizzes.best] },
      { field: "quiz_attempted", operator: "in", values: [] },
    ];
    for (const rule of bad) {
      expect({ rule, ...failure(await preview(admin, [rule])) }).toEqual({ rule, status: 400, error: "invalid_notification_audience" });
    }
  });
});
