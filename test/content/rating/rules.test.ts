import { describe, expect, it } from "vitest";
import { insertCourseTree } from "../../helpers/courses";
import { insertExam } from "../../helpers/exams";
import { failure } from "../../helpers/http";
import { insertQuiz } from "../../helpers/quizzes";
import { deleteOverride, getRules, putDefault, putOverride } from "../../helpers/rating";
import { as, schoolWithAdmin, unknownId } from "../../helpers/users";
import { insertAssignment } from "../assignments/helpers";
import { fixtureD1 } from "../../helpers/databases";

/**
 * GET /admin/gamification/rules and PUT of defaults and overrides: the built-in rules of a fresh
 * school, field-by-field storage (absent or null unchanged), override inheritance, the checks.
 */

const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
const UUID = expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

type Mode = "fixed" | "raw" | "above_threshold";
type Repeat = "ignore" | "award_each" | "overwrite" | "overwrite_if_higher";

function builtIn(tenantId: string, sourceType: string, points: string, calcMode: Mode, repeat: Repeat) {
  return {
    id: null,
    kind: "default",
    default_id: null,
    tenant_id: tenantId,
    source_type: sourceType,
    target_id: null,
    target_title: null,
    enabled: true,
    points,
    calc_mode: calcMode,
    threshold_source: null,
    threshold_value: null,
    award_only_if_passed: false,
    repeat_behavior: repeat,
    overridden_fields: [],
    created_at: null,
    updated_at: null,
  };
}

const builtIns = (tenantId: string) => [
  builtIn(tenantId, "lesson", "1.00", "fixed", "ignore"),
  builtIn(tenantId, "module", "5.00", "fixed", "ignore"),
  builtIn(tenantId, "course", "20.00", "fixed", "ignore"),
  builtIn(tenantId, "quiz", "10.00", "raw", "overwrite_if_higher"),
  builtIn(tenantId, "assignment", "10.00", "raw", "overwrite_if_higher"),
  builtIn(tenantId, "exam", "20.00", "raw", "overwrite_if_higher"),
  builtIn(tenantId, "manual", "0.00", "fixed", "award_each"),
];

async function rulesOf(admin: Awaited<ReturnType<typeof schoolWithAdmin>>["admin"]) {
  const res = await getRules(admin);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.rules as Record<string, any>[];
}

async function storedRows(tenantId: string) {
  const { results } = await fixtureD1.prepare(
    `SELECT source_type, target_id, enabled, points_hundredths, calc_mode, threshold_source, threshold_value_hundredths, award_only_if_passed, repeat_behavior, deleted_at IS NOT NULL AS deleted
     FROM rating_rules WHERE tenant_id = ? ORDER BY created_at, id`,
  )
    .bind(tenantId)
    .all();
  return results;
}

const updated = { success: true, data: { updated: true } };

describe("GET /admin/gamification/rules", () => {
  it("shows a fresh school exactly the built-in defaults, one per source type in order", async () => {
    const { school, admin } = await schoolWithAdmin();
    const res = await getRules(admin);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { rules: builtIns(school.id) } });
  });

  it("lists defaults first, then each type's live overrides by creation, types in the fixed order", async () => {
    const { school, admin } = await schoolWithAdmin();
    const quizB = await insertQuiz(school.id, { title: "Quiz B" });
    const quizA = await insertQuiz(school.id, { title: "Quiz A" });
    const tree = await insertCourseTree(school.id, { title: "Algebra" });
    expect(await putOverride(admin, "quiz", quizB.id, { points: "3" })).toMatchObject({ status: 200, body: updated });
    expect(await putOverride(admin, "course", tree.courseId, { enabled: false })).toMatchObject({ status: 200, body: updated });
    expect(await putOverride(admin, "quiz", quizA.id, { points: "4" })).toMatchObject({ status: 200, body: updated });
    expect(await putDefault(admin, "exam", { points: "30" })).toMatchObject({ status: 200, body: updated });
    const rules = await rulesOf(admin);
    expect(rules.map((rule) => [rule.source_type, rule.kind, rule.target_title])).toEqual([
      ["lesson", "default", null],
      ["module", "default", null],
      ["course", "default", null],
      ["course", "override", "Algebra"],
      ["quiz", "default", null],
      ["quiz", "override", "Quiz B"],
      ["quiz", "override", "Quiz A"],
      ["assignment", "default", null],
      ["exam", "default", null],
      ["manual", "default", null],
    ]);
  });
});

describe("PUT /admin/gamification/rules/defaults/:source_type", () => {
  it("stores only the fields given; absent and null leave the stored value; the view shows effective values and its own fields", async () => {
    const { school, admin } = await schoolWithAdmin();
    expect(await putDefault(admin, "quiz", { points: "12.5", repeat_behavior: "award_each" })).toMatchObject({ status: 200, body: updated });
    expect(await storedRows(school.id)).toEqual([
      {
        source_type: "quiz",
        target_id: null,
        enabled: null,
        points_hundredths: 1250,
        calc_mode: null,
        threshold_source: null,
        threshold_value_hundredths: null,
        award_only_if_passed: null,
        repeat_behavior: "award_each",
        deleted: 0,
      },
    ]);
    // null and absent: unchanged; given fields replace.
    expect(await putDefault(admin, "quiz", { points: null, repeat_behavior: null, calc_mode: "above_threshold", threshold_source: "passing_score" })).toMatchObject({
      status: 200,
      body: updated,
    });
    expect(await putDefault(admin, "quiz", {})).toMatchObject({ status: 200, body: updated });
    const [row] = await storedRows(school.id);
    expect(row).toMatchObject({ points_hundredths: 1250, repeat_behavior: "award_each", calc_mode: "above_threshold", threshold_source: "passing_score", enabled: null });

    const rules = await rulesOf(admin);
    const quiz = rules.find((rule) => rule.source_type === "quiz")!;
    expect(quiz).toEqual({
      id: UUID,
      kind: "default",
      default_id: quiz.id,
      tenant_id: school.id,
      source_type: "quiz",
      target_id: null,
      target_title: null,
      enabled: true,
      points: "12.50",
      calc_mode: "above_threshold",
      threshold_source: "passing_score",
      threshold_value: null,
      award_only_if_passed: false,
      repeat_behavior: "award_each",
      overridden_fields: ["points", "calc_mode", "threshold_source", "repeat_behavior"],
      created_at: ISO,
      updated_at: ISO,
    });
    // The other types still show their built-in defaults.
    expect(rules.filter((rule) => rule.source_type !== "quiz")).toEqual(builtIns(school.id).filter((rule) => rule.source_type !== "quiz"));
  });

  it("takes every field, with the bounds: points 0..100000.00, threshold_value 0..100", async () => {
    const { school, admin } = await schoolWithAdmin();
    const body = {
      enabled: false,
      points: "100000.00",
      calc_mode: "fixed",
      threshold_source: "rule_specified",
      threshold_value: "100",
      award_only_if_passed: true,
      repeat_behavior: "overwrite",
    };
    expect(await putDefault(admin, "exam", body)).toMatchObject({ status: 200, body: updated });
    expect(await putDefault(admin, "lesson", { points: 0, threshold_value: "0" })).toMatchObject({ status: 200, body: updated });
    const rules = await rulesOf(admin);
    expect(rules.find((rule) => rule.source_type === "exam")).toMatchObject({ ...body, points: "100000.00", threshold_value: "100.00" });
    expect(rules.find((rule) => rule.source_type === "lesson")).toMatchObject({ points: "0.00", threshold_value: "0.00", overridden_fields: ["points", "threshold_value"] });
    expect((await storedRows(school.id)).length).toBe(2);
  });

  it("one default row per type: repeated and concurrent PUTs update it", async () => {
    const { school, admin } = await schoolWithAdmin();
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => putDefault(admin, "module", { points: `${i + 1}` })));
    expect(results.map((res) => res.status)).toEqual(Array(8).fill(200));
    const rows = await storedRows(school.id);
    expect(rows.length).toBe(1);
    expect([100, 200, 300, 400, 500, 600, 700, 800]).toContain(rows[0]!.points_hundredths);
  });

  it("refuses a bad body with invalid_request_body and leaves the rules as they were", async () => {
    const { school, admin } = await schoolWithAdmin();
    const bad: [string, unknown][] = [
      ["quiz", { points: "-1" }],
      ["quiz", { points: "100000.01" }],
      ["quiz", { points: "1.005" }],
      ["quiz", { points: "ten" }],
      ["quiz", { threshold_value: "100.01" }],
      ["quiz", { threshold_value: "-0.01" }],
      ["quiz", { threshold_source: "always" }],
      ["quiz", { repeat_behavior: "twice" }],
      ["quiz", { enabled: "yes" }],
      ["quiz", { award_only_if_passed: 1 }],
      ["quiz", { colour: "red" }],
      ["badge", { points: "1" }],
      ["manual", { points: "1" }],
      ["manual", { enabled: true, repeat_behavior: "award_each" }],
    ];
    for (const [sourceType, body] of bad) {
      expect({ sourceType, body, ...failure(await putDefault(admin, sourceType, body)) }).toEqual({ sourceType, body, status: 400, error: "invalid_request_body" });
    }
    const malformed = await as(admin, "/t/admin/gamification/rules/defaults/quiz", { method: "PUT", raw: "{points:" });
    expect(failure(malformed)).toEqual({ status: 400, error: "invalid_request_body" });
    expect(await storedRows(school.id)).toEqual([]);
  });

  it("answers invalid_calc_mode for a mode other than fixed, raw and above_threshold", async () => {
    const { school, admin } = await schoolWithAdmin();
    for (const mode of ["percent", "", "FIXED"]) {
      expect(failure(await putDefault(admin, "quiz", { calc_mode: mode, points: "2" }))).toEqual({ status: 400, error: "invalid_calc_mode" });
    }
    expect(await storedRows(school.id)).toEqual([]);
  });

  it("manual takes only enabled; switching it off and on", async () => {
    const { school, admin } = await schoolWithAdmin();
    expect(await putDefault(admin, "manual", { enabled: false, points: null })).toMatchObject({ status: 200, body: updated });
    expect((await rulesOf(admin)).find((rule) => rule.source_type === "manual")).toMatchObject({ enabled: false, overridden_fields: ["enabled"], id: UUID });
    expect(await putDefault(admin, "manual", { enabled: true })).toMatchObject({ status: 200, body: updated });
    expect((await storedRows(school.id))[0]).toMatchObject({ source_type: "manual", enabled: 1 });
  });

  it("assignment: passing_score is refused; above_threshold and award_only_if_passed need a threshold_value, sent or stored", async () => {
    const { school, admin } = await schoolWithAdmin();
    expect(failure(await putDefault(admin, "assignment", { threshold_source: "passing_score" }))).toEqual({ status: 400, error: "assignment_no_passing_score" });
    expect(failure(await putDefault(admin, "assignment", { threshold_source: "passing_score", threshold_value: "50" }))).toEqual({
      status: 400,
      error: "assignment_no_passing_score",
    });
    expect(failure(await putDefault(admin, "assignment", { calc_mode: "above_threshold" }))).toEqual({ status: 400, error: "assignment_passed_requires_threshold" });
    expect(failure(await putDefault(admin, "assignment", { award_only_if_passed: true }))).toEqual({ status: 400, error: "assignment_passed_requires_threshold" });
    expect(await storedRows(school.id)).toEqual([]);
    // Other types may use passing_score and above_threshold without a value.
    expect(await putDefault(admin, "quiz", { threshold_source: "passing_score", calc_mode: "above_threshold" })).toMatchObject({ status: 200 });
    // With the value in the same body, then on later writes the stored value counts.
    expect(await putDefault(admin, "assignment", { award_only_if_passed: true, threshold_value: "60", threshold_source: "rule_specified" })).toMatchObject({ status: 200 });
    expect(await putDefault(admin, "assignment", { calc_mode: "above_threshold" })).toMatchObject({ status: 200 });
    expect((await rulesOf(admin)).find((rule) => rule.source_type === "assignment")).toMatchObject({
      calc_mode: "above_threshold",
      threshold_source: "rule_specified",
      threshold_value: "60.00",
      award_only_if_passed: true,
    });
  });
});

describe("PUT /admin/gamification/rules/overrides/:source_type/:target_id", () => {
  it("overrides one object of each type; unset fields follow the default, also when it changes later", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id, { title: "Physics" });
    const targets: [string, string, string][] = [
      ["lesson", tree.lessonIds[0]!, "Lesson 1.1"],
      ["module", tree.modules[0]!.id, "Module 1"],
      ["course", tree.courseId, "Physics"],
      ["quiz", (await insertQuiz(school.id, { title: "Quiz 1" })).id, "Quiz 1"],
      ["assignment", (await insertAssignment(school.id, { title: "Essay" })).id, "Essay"],
      ["exam", (await insertExam(school.id, { title: "Final" })).id, "Final"],
    ];
    for (const [sourceType, targetId] of targets) {
      expect(await putOverride(admin, sourceType, targetId, { points: "7.25", enabled: null })).toMatchObject({ status: 200, body: updated });
    }
    const overrides = (await rulesOf(admin)).filter((rule) => rule.kind === "override");
    expect(overrides.map((rule) => [rule.source_type, rule.target_id, rule.target_title, rule.points, rule.overridden_fields])).toEqual(
      targets.map(([sourceType, targetId, title]) => [sourceType, targetId, title, "7.25", ["points"]]),
    );
    expect(overrides.find((rule) => rule.source_type === "quiz")).toEqual({
      id: UUID,
      kind: "override",
      default_id: null,
      tenant_id: school.id,
      source_type: "quiz",
      target_id: targets[3]![1],
      target_title: "Quiz 1",
      enabled: true,
      points: "7.25",
      calc_mode: "raw",
      threshold_source: null,
      threshold_value: null,
      award_only_if_passed: false,
      repeat_behavior: "overwrite_if_higher",
      overridden_fields: ["points"],
      created_at: ISO,
      updated_at: ISO,
    });

    // The default changes: the override's own points stay, everything else follows.
    await putDefault(admin, "quiz", { points: "50", repeat_behavior: "award_each", enabled: false });
    const rules = await rulesOf(admin);
    const quizDefault = rules.find((rule) => rule.source_type === "quiz" && rule.kind === "default")!;
    expect(rules.find((rule) => rule.source_type === "quiz" && rule.kind === "override")).toMatchObject({
      default_id: quizDefault.id,
      points: "7.25",
      repeat_behavior: "award_each",
      enabled: false,
      overridden_fields: ["points"],
    });
    // Its own field wins after a later default change, and a second PUT adds a field without touching points.
    await putOverride(admin, "quiz", targets[3]![1], { enabled: true });
    expect((await rulesOf(admin)).find((rule) => rule.source_type === "quiz" && rule.kind === "override")).toMatchObject({
      points: "7.25",
      enabled: true,
      overridden_fields: ["enabled", "points"],
    });
  });

  it("refuses a target that is not a live object of the school of that type with invalid_target_id", async () => {
    const { school, admin } = await schoolWithAdmin();
    const other = await schoolWithAdmin();
    const foreignQuiz = await insertQuiz(other.school.id);
    const deletedQuiz = await insertQuiz(school.id, { deleted: true });
    const quiz = await insertQuiz(school.id);
    const cases: [string, string][] = [
      ["quiz", "not-a-uuid"],
      ["quiz", unknownId()],
      ["quiz", foreignQuiz.id],
      ["quiz", deletedQuiz.id],
      ["lesson", quiz.id],
      ["exam", quiz.id],
    ];
    for (const [sourceType, targetId] of cases) {
      expect({ sourceType, targetId, ...failure(await putOverride(admin, sourceType, targetId, { points: "1" })) }).toEqual({
        sourceType,
        targetId,
        status: 400,
        error: "invalid_target_id",
      });
    }
    const res = await putOverride(admin, "quiz", foreignQuiz.id, { points: "1" });
    expect(res.body.message).toBe(`target_id ${foreignQuiz.id} is not a quiz of this school (missing, deleted or another school's).`);
    expect(await storedRows(school.id)).toEqual([]);
    expect(await storedRows(other.school.id)).toEqual([]);
  });

  it("refuses manual, an unknown type and a bad body with invalid_request_body, a bad mode with invalid_calc_mode", async () => {
    const { school, admin } = await schoolWithAdmin();
    const quiz = await insertQuiz(school.id);
    expect(failure(await putOverride(admin, "manual", quiz.id, { enabled: false }))).toEqual({ status: 400, error: "invalid_request_body" });
    expect(failure(await putOverride(admin, "quizzes", quiz.id, { points: "1" }))).toEqual({ status: 400, error: "invalid_request_body" });
    expect(failure(await putOverride(admin, "quiz", quiz.id, { points: "1.234" }))).toEqual({ status: 400, error: "invalid_request_body" });
    expect(failure(await putOverride(admin, "quiz", quiz.id, { threshold_value: "150" }))).toEqual({ status: 400, error: "invalid_request_body" });
    expect(failure(await putOverride(admin, "quiz", quiz.id, { calc_mode: "log" }))).toEqual({ status: 400, error: "invalid_calc_mode" });
    expect(await storedRows(school.id)).toEqual([]);
  });

  it("assignment overrides are checked merged with their default", async () => {
    const { school, admin } = await schoolWithAdmin();
    const essay = await insertAssignment(school.id);
    expect(failure(await putOverride(admin, "assignment", essay.id, { threshold_source: "passing_score" }))).toEqual({ status: 400, error: "assignment_no_passing_score" });
    expect(failure(await putOverride(admin, "assignment", essay.id, { calc_mode: "above_threshold" }))).toEqual({ status: 400, error: "assignment_passed_requires_threshold" });
    expect(failure(await putOverride(admin, "assignment", essay.id, { award_only_if_passed: true }))).toEqual({ status: 400, error: "assignment_passed_requires_threshold" });
    expect(await storedRows(school.id)).toEqual([]);
    // The default's threshold is inherited, so the override needs none of its own.
    await putDefault(admin, "assignment", { threshold_value: "75", threshold_source: "rule_specified" });
    expect(await putOverride(admin, "assignment", essay.id, { calc_mode: "above_threshold", award_only_if_passed: true })).toMatchObject({ status: 200, body: updated });
    expect((await rulesOf(admin)).find((rule) => rule.kind === "override")).toMatchObject({
      calc_mode: "above_threshold",
      award_only_if_passed: true,
      threshold_value: "75.00",
      threshold_source: "rule_specified",
      overridden_fields: ["calc_mode", "award_only_if_passed"],
    });
  });

  it("concurrent PUTs of one object's override leave one live row", async () => {
    const { school, admin } = await schoolWithAdmin();
    const quiz = await insertQuiz(school.id);
    const results = await Promise.all(Array.from({ length: 10 }, () => putOverride(admin, "quiz", quiz.id, { points: "2" })));
    expect(results.map((res) => res.status)).toEqual(Array(10).fill(200));
    expect(await storedRows(school.id)).toEqual([expect.objectContaining({ target_id: quiz.id, points_hundredths: 200, deleted: 0 })]);
  });
});

describe("DELETE /admin/gamification/rules/overrides/:source_type/:target_id", () => {
  it("soft-deletes the live override; the object follows the default again; a new PUT starts afresh", async () => {
    const { school, admin } = await schoolWithAdmin();
    const exam = await insertExam(school.id, { title: "Midterm" });
    await putOverride(admin, "exam", exam.id, { points: "5", repeat_behavior: "ignore" });
    const first = (await rulesOf(admin)).find((rule) => rule.kind === "override")!;

    const res = await deleteOverride(admin, "exam", exam.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { deleted: true } });
    expect((await rulesOf(admin)).filter((rule) => rule.kind === "override")).toEqual([]);
    expect(failure(await deleteOverride(admin, "exam", exam.id))).toEqual({ status: 404, error: "rule_not_found" });

    await putOverride(admin, "exam", exam.id, { calc_mode: "fixed" });
    const second = (await rulesOf(admin)).find((rule) => rule.kind === "override")!;
    expect(second.id).not.toBe(first.id);
    expect(second).toMatchObject({ points: "20.00", repeat_behavior: "overwrite_if_higher", calc_mode: "fixed", overridden_fields: ["calc_mode"] });
    expect((await storedRows(school.id)).map((row) => [row.points_hundredths, row.deleted])).toEqual([
      [500, 1],
      [null, 0],
    ]);
  });

  it("answers invalid_target_id for a malformed id and rule_not_found for no live override (another school's, another type's, a default)", async () => {
    const { school, admin } = await schoolWithAdmin();
    const other = await schoolWithAdmin();
    const quiz = await insertQuiz(other.school.id);
    await putOverride(other.admin, "quiz", quiz.id, { points: "1" });
    const own = await insertQuiz(school.id);
    await putOverride(admin, "quiz", own.id, { points: "1" });
    await putDefault(admin, "quiz", { points: "3" });

    expect(failure(await deleteOverride(admin, "quiz", "123"))).toEqual({ status: 400, error: "invalid_target_id" });
    expect(failure(await deleteOverride(admin, "quiz", quiz.id))).toEqual({ status: 404, error: "rule_not_found" });
    expect(failure(await deleteOverride(admin, "exam", own.id))).toEqual({ status: 404, error: "rule_not_found" });
    expect(failure(await deleteOverride(admin, "quiz", unknownId()))).toEqual({ status: 404, error: "rule_not_found" });
    expect(failure(await deleteOverride(admin, "nonsense", own.id))).toEqual({ status: 404, error: "rule_not_found" });
    expect((await storedRows(other.school.id)).map((row) => row.deleted)).toEqual([0]);
    expect((await storedRows(school.id)).map((row) => row.deleted)).toEqual([0, 0]);
  });

  it("an override outlives its object's deletion: still listed with its title, and removable", async () => {
    const { school, admin } = await schoolWithAdmin();
    const essay = await insertAssignment(school.id, { title: "Gone" });
    await putOverride(admin, "assignment", essay.id, { points: "2" });
    await fixtureD1.prepare("UPDATE assignments SET deleted_at = ? WHERE id = ?").bind(Date.now(), essay.id).run();
    expect((await rulesOf(admin)).find((rule) => rule.kind === "override")).toMatchObject({ target_id: essay.id, target_title: "Gone" });
    expect(failure(await putOverride(admin, "assignment", essay.id, { points: "3" }))).toEqual({ status: 400, error: "invalid_target_id" });
    expect((await deleteOverride(admin, "assignment", essay.id)).status).toBe(200);
  });
});
