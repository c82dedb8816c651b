import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";
import { setClockForTests } from "../../../src/core/lib/clock";
import { ISO as ISO_PATTERN } from "../../helpers/courses";
import { requestWithD1 } from "../../helpers/d1-barrier";
import { schoolD1 } from "../../helpers/databases";
import { wrapD1 } from "../../helpers/wrapped-d1";
import { insertExam } from "../../helpers/exams";
import { db } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { insertQuiz, insertQuizCourse } from "../../helpers/quizzes";
import { as, curatorWith, schoolWithAdmin, signedIn, unknownId } from "../../helpers/users";

const ISO = expect.stringMatching(ISO_PATTERN);

async function quizRow(id: string) {
  const [row] = await db().select().from(schema.quizzes).where(eq(schema.quizzes.id, id));
  return row;
}

const create = (member: Parameters<typeof as>[0], body: unknown) => as(member, "/t/quizzes", { body });

describe("POST /t/quizzes", () => {
  it("creates a quiz with its defaults and answers 201 with the quiz, no questions and no references", async () => {
    const { school, admin } = await schoolWithAdmin();
    const res = await create(admin, { title: "  Fractions check ", description: "<p>Ten <b>minutes</b></p><script>alert(1)</script>" });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.any(String),
      tenant_id: school.id,
      title: "Fractions check",
      description: "<p>Ten <b>minutes</b></p>",
      max_attempts: null,
      time_limit_seconds: null,
      passing_score: null,
      retake_policy: "best",
      default_scoring_mode: "all_or_nothing",
      screenshot_protection_enabled: false,
      questions_per_attempt: null,
      shuffle_questions: false,
      shuffle_answers: false,
      published_via_course: false,
      published_via_exam: false,
      questions: [],
      course_refs: [],
      exam_refs: [],
      created_at: ISO,
      updated_at: ISO,
    });
    expect(await quizRow(res.body.data.id)).toMatchObject({ tenantId: school.id, createdBy: admin.id, deletedAt: null });
  });

  it("takes every setting at its bounds; null means no limit", async () => {
    const { admin } = await schoolWithAdmin();
    const low = await create(admin, {
      title: "ab",
      max_attempts: 1,
      time_limit_seconds: 10,
      passing_score: 1,
      retake_policy: "last",
      default_scoring_mode: "partial",
      screenshot_protection_enabled: true,
    });
    expect(low.status).toBe(201);
    expect(low.body.data).toMatchObject({ title: "ab", max_attempts: 1, time_limit_seconds: 10, passing_score: 1, retake_policy: "last", default_scoring_mode: "partial", screenshot_protection_enabled: true });
    const high = await create(admin, { title: "x".repeat(255), description: "d".repeat(10000), max_attempts: 1000, time_limit_seconds: 86400, passing_score: 100 });
    expect(high.status).toBe(201);
    expect(high.body.data).toMatchObject({ max_attempts: 1000, time_limit_seconds: 86400, passing_score: 100, description: "d".repeat(10000) });
    const unset = await create(admin, { title: "Open", max_attempts: null, time_limit_seconds: null, passing_score: null });
    expect(unset.body.data).toMatchObject({ max_attempts: null, time_limit_seconds: null, passing_score: null });
  });

  it("answers 400 invalid_request_body for every value outside the contract", async () => {
    const { admin } = await schoolWithAdmin();
    const bodies: unknown[] = [
      {},
      { title: "a" },
      { title: "   a   " },
      { title: "x".repeat(256) },
      { title: 42 },
      { title: "Bidi \u202Eevil" },
      { title: "Ok", description: "d".repeat(10001) },
      { title: "Ok", max_attempts: 0 },
      { title: "Ok", max_attempts: 1001 },
      { title: "Ok", max_attempts: 1.5 },
      { title: "Ok", max_attempts: "3" },
      { title: "Ok", time_limit_seconds: 9 },
      { title: "Ok", time_limit_seconds: 86401 },
      { title: "Ok", passing_score: 0 },
      { title: "Ok", passing_score: 101 },
      { title: "Ok", retake_policy: "worst" },
      { title: "Ok", default_scoring_mode: "some" },
      { title: "Ok", screenshot_protection_enabled: "yes" },
      { title: "Ok", questions: [] },
      { title: "Ok", tenant_id: unknownId() },
    ];
    for (const body of bodies) expect({ body, ...failure(await create(admin, body)) }).toEqual({ body, status: 400, error: "invalid_request_body" });
    const raw = await as(admin, "/t/quizzes", { method: "POST", raw: "{not json" });
    expect(failure(raw)).toEqual({ status: 400, error: "invalid_request_body" });
  });

  it("needs can_manage_courses: 403 forbidden for the others", async () => {
    const { school } = await schoolWithAdmin();
    const curator = await signedIn(school, curatorWith({ can_manage_courses: true }));
    expect((await create(curator, { title: "By curator" })).status).toBe(201);
    for (const member of [await signedIn(school, curatorWith({ can_view_analytics: true })), await signedIn(school, { role: "student" })]) {
      expect(failure(await create(member, { title: "Nope" }))).toEqual({ status: 403, error: "forbidden" });
    }
  });
});

describe("PATCH /t/quizzes/:id", () => {
  it("changes the fields sent and keeps the others; answers the quiz", async () => {
    const { admin, school } = await schoolWithAdmin();
    const quiz = await insertQuiz(school.id, { title: "Before", maxAttempts: 3, passingScore: 60, questions: [{ type: "single" }] });
    const at = Date.now() + 60_000;
    setClockForTests({ now: () => at });
    const res = await as(admin, `/t/quizzes/${quiz.id}`, { method: "PATCH", body: { title: "After", time_limit_seconds: 600, description: "<p>x</p><img src=javascript:1>" } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: quiz.id, title: "After", description: "<p>x</p>", max_attempts: 3, passing_score: 60, time_limit_seconds: 600 });
    expect(res.body.data.questions).toHaveLength(1);
    expect((await quizRow(quiz.id))!.updatedAt).toBe(at);
    const all = await as(admin, `/t/quizzes/${quiz.id}`, {
      method: "PATCH",
      body: { max_attempts: 1000, passing_score: 1, retake_policy: "last", default_scoring_mode: "partial", screenshot_protection_enabled: true },
    });
    expect(all.body.data).toMatchObject({ title: "After", max_attempts: 1000, passing_score: 1, retake_policy: "last", default_scoring_mode: "partial", screenshot_protection_enabled: true });
    // An empty body changes nothing and answers the quiz.
    const same = await as(admin, `/t/quizzes/${quiz.id}`, { method: "PATCH", body: {} });
    expect(same.body.data).toEqual(all.body.data);
  });

  it("answers 400 invalid_request_body for values outside the contract and for clearing a limit with null", async () => {
    const { admin, school } = await schoolWithAdmin();
    const quiz = await insertQuiz(school.id, { maxAttempts: 2 });
    const bodies: unknown[] = [
      { title: "a" },
      { title: "x".repeat(256) },
      { description: "d".repeat(10001) },
      { max_attempts: 0 },
      { max_attempts: null },
      { time_limit_seconds: 86401 },
      { passing_score: null },
      { passing_score: 101 },
      { retake_policy: null },
      { default_scoring_mode: "" },
      { unknown: true },
    ];
    for (const body of bodies) {
      const res = await as(admin, `/t/quizzes/${quiz.id}`, { method: "PATCH", body });
      expect({ body, ...failure(res) }).toEqual({ body, status: 400, error: "invalid_request_body" });
    }
    expect((await quizRow(quiz.id))!.maxAttempts).toBe(2);
  });

  it("400 invalid_id_format, 404 quiz_not_found for a deleted, unknown or other school's quiz, 403 without can_manage_courses", async () => {
    const { admin, school } = await schoolWithAdmin();
    const other = await schoolWithAdmin();
    const foreign = await insertQuiz(other.school.id);
    const deleted = await insertQuiz(school.id, { deleted: true });
    expect(failure(await as(admin, "/t/quizzes/nope", { method: "PATCH", body: { title: "New" } }))).toEqual({ status: 400, error: "invalid_id_format" });
    for (const id of [foreign.id, deleted.id, unknownId()]) {
      expect(failure(await as(admin, `/t/quizzes/${id}`, { method: "PATCH", body: { title: "New" } }))).toEqual({ status: 404, error: "quiz_not_found" });
    }
    expect((await quizRow(foreign.id))!.title).not.toBe("New");
    const quiz = await insertQuiz(school.id);
    const student = await signedIn(school, { role: "student" });
    expect(failure(await as(student, `/t/quizzes/${quiz.id}`, { method: "PATCH", body: { title: "New" } }))).toEqual({ status: 403, error: "forbidden" });
  });
});

describe("DELETE /t/quizzes/:id", () => {
  it("soft-deletes (204); the quiz then is 404 everywhere and blocks naming it embed nothing", async () => {
    const { admin, school } = await schoolWithAdmin();
    const quiz = await insertQuiz(school.id, { questions: [{ type: "single" }] });
    await insertQuizCourse(school.id, quiz.id);
    const res = await as(admin, `/t/quizzes/${quiz.id}`, { method: "DELETE" });
    expect(res.status).toBe(204);
    expect((await quizRow(quiz.id))!.deletedAt).toEqual(expect.any(Number));
    expect(failure(await as(admin, `/t/quizzes/${quiz.id}`))).toEqual({ status: 404, error: "quiz_not_found" });
    expect(failure(await as(admin, `/t/quizzes/${quiz.id}`, { method: "DELETE" }))).toEqual({ status: 404, error: "quiz_not_found" });
    expect((await as(admin, "/t/quizzes")).body.data.quizzes).toEqual([]);
  });

  it("400 invalid_id_format, 404 for another school's quiz, 403 without can_manage_courses", async () => {
    const { admin, school } = await schoolWithAdmin();
    const other = await schoolWithAdmin();
    const foreign = await insertQuiz(other.school.id);
    expect(failure(await as(admin, "/t/quizzes/123", { method: "DELETE" }))).toEqual({ status: 400, error: "invalid_id_format" });
    expect(failure(await as(admin, `/t/quizzes/${foreign.id}`, { method: "DELETE" }))).toEqual({ status: 404, error: "quiz_not_found" });
    expect((await quizRow(foreign.id))!.deletedAt).toBeNull();
    const curator = await signedIn(school, curatorWith({ can_view_analytics: true, can_manage_students: true }));
    const quiz = await insertQuiz(school.id);
    expect(failure(await as(curator, `/t/quizzes/${quiz.id}`, { method: "DELETE" }))).toEqual({ status: 403, error: "forbidden" });
  });

  describe("delete guards (the exams area's)", () => {
    it("409 quiz_referenced_by_exam while a live section of a live exam (draft or published) uses the quiz; deletes once it lets go", async () => {
      const { admin, school } = await schoolWithAdmin();
      const quiz = await insertQuiz(school.id);
      const draft = await insertExam(school.id, { status: "draft", sections: [{ quizId: quiz.id }] });
      const published = await insertExam(school.id, { status: "published", sections: [{ quizId: quiz.id }] });
      expect(failure(await as(admin, `/t/quizzes/${quiz.id}`, { method: "DELETE" }))).toEqual({ status: 409, error: "quiz_referenced_by_exam" });
      await db().update(schema.exams).set({ deletedAt: Date.now() }).where(eq(schema.exams.id, published.id));
      expect(failure(await as(admin, `/t/quizzes/${quiz.id}`, { method: "DELETE" }))).toEqual({ status: 409, error: "quiz_referenced_by_exam" });
      await db().update(schema.examSections).set({ deletedAt: Date.now() }).where(eq(schema.examSections.id, draft.sectionIds[0]!));
      expect((await quizRow(quiz.id))!.deletedAt).toBeNull();
      expect((await as(admin, `/t/quizzes/${quiz.id}`, { method: "DELETE" })).status).toBe(204);
    });

    it("repeats the guard as the condition of the delete: a section added after the check still wins", async () => {
      const { admin, school } = await schoolWithAdmin();
      const quiz = await insertQuiz(school.id);
      const exam = await insertExam(school.id, { status: "draft" });
      // The section lands between the request's check and its delete batch.
      const shard = await schoolD1(school.id);
      const sneaky = wrapD1(shard, {
        get(target, property) {
          const value = Reflect.get(target, property, target);
          if (property === "batch") {
            return async (statements: D1PreparedStatement[]) => {
              await target
                .prepare("INSERT INTO exam_sections (id, tenant_id, exam_id, quiz_id, title, position, weight, created_at, updated_at) VALUES (?, ?, ?, ?, 'S', 0, 1, 0, 0)")
                .bind(unknownId(), school.id, exam.id, quiz.id)
                .run();
              return target.batch(statements);
            };
          }
          return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
        },
      });
      const res = await requestWithD1(sneaky, `/t/quizzes/${quiz.id}`, { method: "DELETE", token: admin.token, tenant: admin.subdomain });
      expect(failure(res)).toEqual({ status: 409, error: "quiz_referenced_by_exam" });
      expect((await quizRow(quiz.id))!.deletedAt).toBeNull();
    });
  });
});
