import { describe, expect, it } from "vitest";
import { createSchool, createUser } from "../../helpers/factories";
import { insertExam, insertExamAttempt } from "../../helpers/exams";
import { failure } from "../../helpers/http";
import { insertQuiz } from "../../helpers/quizzes";
import { schoolWithAdmin } from "../../helpers/users";
import { call } from "../../notifications/helpers";

/** What exam attempts add to campaign audiences: the fields `exam_attempted` and `exam_score_pct`. */

const T0 = Date.parse("2030-03-01T10:00:00.000Z");
const at = (minutes: number) => T0 + minutes * 60_000;

async function examAudience() {
  const { school, admin } = await schoolWithAdmin();
  const make = (firstName: string) => createUser(school.id, { role: "student", firstName });
  const [anna, bekzod, dilya, eldor, farid] = [await make("Anna"), await make("Bekzod"), await make("Dilya"), await make("Eldor"), await make("Farid")];
  await make("Gulya");
  const quiz = await insertQuiz(school.id);
  const sections = [{ quizId: quiz.id }];
  const best = await insertExam(school.id, { retakePolicy: "best", sections });
  const last = await insertExam(school.id, { retakePolicy: "last", sections });
  // Taken back to draft after Eldor's attempt: his result stays.
  const draft = await insertExam(school.id, { status: "draft", publishedAt: at(-60), sections });
  const deleted = await insertExam(school.id, { deleted: true, sections });
  const finished = (examId: string, userId: string, minute: number, pct: number, actorRole: "student" | "admin" = "student") =>
    insertExamAttempt(school.id, examId, userId, {
      actorRole,
      startedAt: at(minute) - 60_000,
      submittedAt: at(minute),
      finalScoreHundredths: pct,
      finalMaxHundredths: 100,
      finalScorePctHundredths: pct,
      passed: pct >= 5000,
    });
  // Anna: best of 40.00 and 80.00 on `best`.
  await finished(best.id, anna.id, 1, 4000);
  await finished(best.id, anna.id, 2, 8000);
  // Bekzod: on `last`, 90.00 then 50.00, then an attempt in progress (no result).
  await finished(last.id, bekzod.id, 1, 9000);
  await finished(last.id, bekzod.id, 2, 5000);
  await insertExamAttempt(school.id, last.id, bekzod.id, { status: "in_progress", startedAt: at(3) });
  // Dilya: only an attempt in progress of `best`.
  await insertExamAttempt(school.id, best.id, dilya.id, { status: "in_progress" });
  // Eldor: 70.00 on the exam now in draft.
  await finished(draft.id, eldor.id, 4, 7000);
  // Farid: an attempt of the deleted exam only.
  await finished(deleted.id, farid.id, 5, 10_000);
  // A staff member's attempt and another school's student never appear.
  await finished(best.id, admin.id, 6, 10_000, "admin");
  const foreign = await createSchool();
  await insertExamAttempt(foreign.id, best.id, (await createUser(foreign.id, { role: "student" })).id, { finalScorePctHundredths: 10_000, passed: true });
  return { admin, exams: { best: best.id, last: last.id, draft: draft.id, deleted: deleted.id } };
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

describe("exam_attempted", () => {
  it("in / not_in: the student submitted an attempt, as a student, of a listed live exam (published or not)", async () => {
    const { admin, exams } = await examAudience();
    const cases: [unknown, string[]][] = [
      [{ field: "exam_attempted", operator: "in", values: [exams.best] }, ["Anna"]],
      [{ field: "exam_attempted", operator: "in", values: [exams.last] }, ["Bekzod"]],
      [{ field: "exam_attempted", operator: "in", values: [exams.draft] }, ["Eldor"]],
      [{ field: "exam_attempted", operator: "in", values: [exams.best, exams.last.toUpperCase(), exams.draft] }, ["Anna", "Bekzod", "Eldor"]],
      [{ field: "exam_attempted", operator: "in", values: [exams.deleted] }, []],
      [{ field: "exam_attempted", operator: "not_in", values: [exams.best] }, ["Bekzod", "Dilya", "Eldor", "Farid", "Gulya"]],
      [{ field: "exam_attempted", operator: "not_in", values: [exams.best, exams.last] }, ["Dilya", "Eldor", "Farid", "Gulya"]],
      [{ field: "exam_attempted", operator: "not_in", values: [exams.deleted] }, ["Anna", "Bekzod", "Dilya", "Eldor", "Farid", "Gulya"]],
    ];
    for (const [rule, expected] of cases) {
      expect({ rule, names: await audienceOf(admin, [rule]) }).toEqual({ rule, names: expected });
    }
  });
});

describe("exam_score_pct", () => {
  it("gte / lte: the student's result by the exam's retake policy (best or latest submitted) on any listed exam", async () => {
    const { admin, exams } = await examAudience();
    const rule = (operator: string, values: string[], value: unknown) => ({ field: "exam_score_pct", operator, values, value });
    const cases: [unknown, string[]][] = [
      [rule("gte", [exams.best], 80), ["Anna"]],
      [rule("gte", [exams.best], "80.00"), ["Anna"]],
      [rule("gte", [exams.best], "80.01"), []],
      [rule("lte", [exams.best], 79.99), []],
      [rule("lte", [exams.best], 100), ["Anna"]],
      [rule("gte", [exams.best], 0), ["Anna"]],
      // `last`: the latest submitted attempt (50.00), not the best (90.00) nor the one in progress.
      [rule("lte", [exams.last], 50), ["Bekzod"]],
      [rule("lte", [exams.last], "49.99"), []],
      [rule("gte", [exams.last], 60), []],
      [rule("gte", [exams.draft], 70), ["Eldor"]],
      [rule("gte", [exams.best, exams.last, exams.draft], 50), ["Anna", "Bekzod", "Eldor"]],
      [rule("lte", [exams.best, exams.last, exams.draft], 60), ["Bekzod"]],
      [rule("gte", [exams.deleted], 0), []],
    ];
    for (const [filterRule, expected] of cases) {
      expect({ rule: filterRule, names: await audienceOf(admin, [filterRule]) }).toEqual({ rule: filterRule, names: expected });
    }
    // A band: both bounds in one `all` filter; `any` joins the two sides.
    expect(await audienceOf(admin, [rule("gte", [exams.best, exams.last, exams.draft], 60), rule("lte", [exams.best, exams.last, exams.draft], 75)])).toEqual(["Eldor"]);
    expect(await audienceOf(admin, [rule("gte", [exams.best], 80), rule("lte", [exams.last], 50)], "any")).toEqual(["Anna", "Bekzod"]);
    // Both fields together: attempted `best` yet scored no more than 50 on it.
    expect(await audienceOf(admin, [{ field: "exam_attempted", operator: "in", values: [exams.best] }, rule("lte", [exams.best], 50)])).toEqual([]);
  });

  it("400 invalid_notification_audience for a missing or malformed bound, missing ids or another operator", async () => {
    const { admin, exams } = await examAudience();
    const bad: unknown[] = [
      { field: "exam_score_pct", operator: "gte", values: [exams.best] },
      { field: "exam_score_pct", operator: "gte", values: [exams.best], value: 100.01 },
      { field: "exam_score_pct", operator: "lte", values: [exams.best], value: -1 },
      { field: "exam_score_pct", operator: "lte", values: [exams.best], value: "half" },
      { field: "exam_score_pct", operator: "lte", values: [exams.best], value: "50.125" },
      { field: "exam_score_pct", operator: "lte", values: [exams.best], value: true },
      { field: "exam_score_pct", operator: "gte", value: 50 },
      { field: "exam_score_pct", operator: "gte", values: ["not-a-uuid"], value: 50 },
      { field: "exam_score_pct", operator: "in", values: [exams.best] },
      { field: "exam_attempted", operator: "eq", values: [exams.best] },
      { field: "exam_attempted", operator: "in", values: [] },
      { field: "exam_attempted", operator: "not_in" },
    ];
    for (const rule of bad) {
      expect({ rule, ...failure(await preview(admin, [rule])) }).toEqual({ rule, status: 400, error: "invalid_notification_audience" });
    }
  });
});
