import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { app } from "../../../src/app";
import * as schema from "../../../src/db/schema";
import { insertCourseTree, insertEnrollment } from "../../helpers/courses";
import { roundTripD1 } from "../../helpers/d1-counter";
import { db } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { giveQuizAccess, insertAttempt, insertQuiz, insertQuizCourse } from "../../helpers/quizzes";
import { as, assignIndividualCurator, curatorWith, schoolWithAdmin, signedIn, unknownId, type Member } from "../../helpers/users";
import { schoolD1 } from "../../helpers/databases";
import { envWith } from "../../helpers/wrapped-d1";

/** GET /t/quizzes: filters, paging, the row aggregates, what students see. */

const list = (member: Member, query = "") => as(member, `/t/quizzes${query ? `?${query}` : ""}`);
const titles = (res: { body: { data: { quizzes: { title: string }[] } } }) => res.body.data.quizzes.map((quiz) => quiz.title);

/** Quizzes created one millisecond apart, so "newest first" is their reverse order. */
async function quizzesTitled(tenantId: string, ...names: string[]) {
  const out = [];
  for (const title of names) {
    out.push(await insertQuiz(tenantId, { title }));
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return out;
}

describe("GET /t/quizzes for staff", () => {
  it("lists the school's live quizzes newest first with exact aggregates", async () => {
    const { school, admin } = await schoolWithAdmin();
    const other = await schoolWithAdmin();
    await insertQuiz(other.school.id, { title: "Elsewhere" });
    await insertQuiz(school.id, { title: "Deleted", deleted: true });
    const [quiet, busy] = await quizzesTitled(school.id, "Quiet", "Busy");
    await db().insert(schema.quizQuestions).values({ id: unknownId(), tenantId: school.id, quizId: busy!.id, type: "single", position: 0, createdAt: 1, updatedAt: 1 });
    await db().insert(schema.quizQuestions).values({ id: unknownId(), tenantId: school.id, quizId: busy!.id, type: "free_text", position: 1, createdAt: 1, updatedAt: 1 });
    await db().insert(schema.quizQuestions).values({ id: unknownId(), tenantId: school.id, quizId: busy!.id, type: "single", position: 2, createdAt: 1, updatedAt: 1, deletedAt: 1 });
    const [anna, bek] = [await signedIn(school, { role: "student" }), await signedIn(school, { role: "student" })];
    // Settled: 82.50 % and 66.67 % (mean 74.585 → "74.59" half-up); pending review: counted, not averaged; in progress: counted;
    // an admin's attempt counts too (any role); an exam section's attempt counts nowhere.
    await insertAttempt(school.id, busy!.id, anna.id, { scorePctHundredths: 8250, passed: true });
    await insertAttempt(school.id, busy!.id, bek.id, { scorePctHundredths: 6667, passed: false });
    await insertAttempt(school.id, busy!.id, bek.id, { scorePctHundredths: 5000, pendingReview: true });
    await insertAttempt(school.id, busy!.id, anna.id, { status: "in_progress" });
    await insertAttempt(school.id, busy!.id, admin.id, { actorRole: "admin", scorePctHundredths: 10000, passed: true });
    await insertAttempt(school.id, busy!.id, anna.id, { examAttemptId: unknownId(), scorePctHundredths: 0, pendingReview: true });

    const res = await list(admin);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ total: 2, page: 1, limit: 20 });
    const [first, second] = res.body.data.quizzes;
    expect(first).toMatchObject({ id: busy!.id, title: "Busy", question_count: 2, attempts_count: 5, avg_score_pct: "83.06", pending_reviews_count: 1 });
    expect(second).toMatchObject({ id: quiet!.id, question_count: 0, attempts_count: 0, avg_score_pct: null, pending_reviews_count: 0 });
    expect(Object.keys(first).sort()).toEqual(
      [
        "id", "tenant_id", "title", "description", "max_attempts", "time_limit_seconds", "passing_score", "retake_policy", "default_scoring_mode",
        "screenshot_protection_enabled", "questions_per_attempt", "shuffle_questions", "shuffle_answers", "published_via_course", "published_via_exam", "created_at", "updated_at",
        "question_count", "attempts_count", "avg_score_pct", "pending_reviews_count",
      ].sort(),
    );
  });

  it("avg_score_pct is the exact mean rounded half-up once", async () => {
    const { school, admin } = await schoolWithAdmin();
    const quiz = await insertQuiz(school.id);
    const student = await signedIn(school, { role: "student" });
    // (8250 + 6667) / 2 = 7458.5 hundredths of a percent → "74.59"
    await insertAttempt(school.id, quiz.id, student.id, { scorePctHundredths: 8250 });
    await insertAttempt(school.id, quiz.id, student.id, { scorePctHundredths: 6667 });
    expect((await list(admin)).body.data.quizzes[0]).toMatchObject({ attempts_count: 2, avg_score_pct: "74.59" });
    // A third of 100 + 0 + 0 = 33.333… → "33.33"
    const thirds = await insertQuiz(school.id);
    for (const pct of [10000, 0, 0]) await insertAttempt(school.id, thirds.id, student.id, { scorePctHundredths: pct });
    expect((await list(admin)).body.data.quizzes.find((q: { id: string }) => q.id === thirds.id)).toMatchObject({ avg_score_pct: "33.33" });
  });

  it("a restricted curator's aggregates count only their own students' attempts", async () => {
    const { school, admin } = await schoolWithAdmin();
    const quiz = await insertQuiz(school.id);
    const [mine, theirs] = [await signedIn(school, { role: "student" }), await signedIn(school, { role: "student" })];
    const curator = await signedIn(school, curatorWith({ can_view_analytics: true }));
    await assignIndividualCurator(mine.id, curator.id);
    await insertAttempt(school.id, quiz.id, mine.id, { scorePctHundredths: 4000 });
    await insertAttempt(school.id, quiz.id, theirs.id, { scorePctHundredths: 9000, pendingReview: false });
    await insertAttempt(school.id, quiz.id, theirs.id, { pendingReview: true });
    expect((await list(curator)).body.data.quizzes[0]).toMatchObject({ attempts_count: 1, avg_score_pct: "40.00", pending_reviews_count: 0 });
    expect((await list(admin)).body.data.quizzes[0]).toMatchObject({ attempts_count: 3, avg_score_pct: "65.00", pending_reviews_count: 1 });
    const manager = await signedIn(school, curatorWith({ can_manage_groups: true }));
    expect((await list(manager)).body.data.quizzes[0]).toMatchObject({ attempts_count: 3 });
  });

  it("filters by title (q, wildcards literal), status and course_id; pages with total", async () => {
    const { school, admin } = await schoolWithAdmin();
    const [draft, published, viaDraft, percent] = await quizzesTitled(school.id, "Algebra draft", "Algebra live", "Geometry", "100% sure");
    const course = await insertQuizCourse(school.id, published!.id);
    const draftCourse = await insertQuizCourse(school.id, viaDraft!.id, { status: "draft" });
    // A deleted lesson of a published course does not publish.
    const stale = await insertQuizCourse(school.id, draft!.id);
    await db().update(schema.lessons).set({ deletedAt: Date.now() }).where(eq(schema.lessons.id, stale.lessonIds[0]!));

    expect(titles(await list(admin, "q=algebra"))).toEqual(["Algebra live", "Algebra draft"]);
    expect(titles(await list(admin, "q=0%25"))).toEqual(["100% sure"]);
    expect(titles(await list(admin, "q=_"))).toEqual([]);
    expect(titles(await list(admin, "status=published"))).toEqual(["Algebra live"]);
    expect(titles(await list(admin, "status=draft"))).toEqual(["100% sure", "Geometry", "Algebra draft"]);
    expect(titles(await list(admin, "status=all"))).toHaveLength(4);
    expect((await list(admin, "status=published")).body.data.quizzes[0]).toMatchObject({ published_via_course: true, published_via_exam: false });
    expect(titles(await list(admin, `course_id=${course.courseId}`))).toEqual(["Algebra live"]);
    expect(titles(await list(admin, `course_id=${draftCourse.courseId.toUpperCase()}`))).toEqual(["Geometry"]);
    expect(titles(await list(admin, `course_id=${stale.courseId}`))).toEqual([]);
    expect(titles(await list(admin, `course_id=${unknownId()}`))).toEqual([]);
    expect(titles(await list(admin, `course_id=${course.courseId}&status=draft`))).toEqual([]);

    const page = await list(admin, "limit=3&page=2");
    expect(page.body.data).toMatchObject({ total: 4, page: 2, limit: 3 });
    expect(titles(page)).toEqual(["Algebra draft"]);
    expect(titles(await list(admin, "limit=3&page=9"))).toEqual([]);
    expect((await list(admin, "q=0%25")).body.data.quizzes.map((quiz: { id: string }) => quiz.id)).toEqual([percent!.id]);
  });

  it("400 invalid_course_id for a course_id that is not a UUID; 400 invalid_params for bad paging or status", async () => {
    const { admin } = await schoolWithAdmin();
    for (const query of ["course_id=abc", "course_id=", `course_id=${unknownId()}x`]) {
      expect({ query, ...failure(await list(admin, query)) }).toEqual({ query, status: 400, error: "invalid_course_id" });
    }
    for (const query of ["limit=0", "limit=101", "limit=x", "page=0", "page=-1", "status=live", "status=", `q=${"x".repeat(256)}`]) {
      expect({ query, ...failure(await list(admin, query)) }).toEqual({ query, status: 400, error: "invalid_params" });
    }
    expect((await list(admin, "limit=100")).status).toBe(200);
    expect((await list(admin, "limit=1")).status).toBe(200);
  });
});

describe("GET /t/quizzes for students", () => {
  it("lists only the quizzes the student reaches, without scoring metadata, with their own attempts only", async () => {
    const { school } = await schoolWithAdmin();
    const [student, classmate] = [await signedIn(school, { role: "student" }), await signedIn(school, { role: "student" })];
    const [reached, notEnrolled, draftCourse] = await quizzesTitled(school.id, "Reached", "Not enrolled", "Draft course", "Unreferenced");
    const tree = await giveQuizAccess(school.id, reached!.id, [student.id, classmate.id]);
    await insertQuizCourse(school.id, notEnrolled!.id);
    const draft = await insertQuizCourse(school.id, draftCourse!.id, { status: "draft" });
    await insertEnrollment(school.id, draft.courseId, student.id);
    await insertAttempt(school.id, reached!.id, student.id, { scorePctHundredths: 5000 });
    await insertAttempt(school.id, reached!.id, classmate.id, { scorePctHundredths: 10000 });
    await insertAttempt(school.id, reached!.id, classmate.id, { pendingReview: true });

    const res = await list(student);
    expect(res.body.data).toMatchObject({ total: 1 });
    expect(res.body.data.quizzes).toHaveLength(1);
    const [row] = res.body.data.quizzes;
    expect(row).toMatchObject({ id: reached!.id, published_via_course: true, attempts_count: 1, avg_score_pct: "50.00", pending_reviews_count: 0 });
    expect(row).not.toHaveProperty("default_scoring_mode");
    expect(titles(await list(student, "status=draft"))).toEqual([]);
    expect(titles(await list(student, `course_id=${tree.courseId}`))).toEqual(["Reached"]);
    expect(titles(await list(student, `course_id=${draft.courseId}`))).toEqual([]);
  });

  it("only quiz_ref blocks in lessons the student sees count", async () => {
    const { school } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    const quiz = await insertQuiz(school.id);
    const tree = await insertCourseTree(school.id, { refId: quiz.id });
    await insertEnrollment(school.id, tree.courseId, student.id);
    expect(titles(await list(student))).toEqual([]);
  });
});

describe("round trips of GET /t/quizzes", () => {
  it("the guard's query and one batch, whatever the page size, for staff and students", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    for (let i = 0; i < 25; i++) {
      const quiz = await insertQuiz(school.id, { questions: [{ type: "single" }, { type: "matching" }] });
      await insertAttempt(school.id, quiz.id, student.id, { scorePctHundredths: 100 * i });
      if (i % 2 === 0) await giveQuizAccess(school.id, quiz.id, [student.id]);
    }
    for (const member of [admin, student]) {
      const counter = roundTripD1(await schoolD1(member.tenantId));
      const res = await app.request(
        "https://api.lms.localhost/api/v1/t/quizzes?limit=100&status=published",
        { headers: { authorization: `Bearer ${member.token}`, "x-tenant-subdomain": member.subdomain } },
        envWith(counter.db),
      );
      const body = (await res.json()) as { data: { quizzes: unknown[] } };
      expect({ role: member.role, status: res.status, rows: body.data.quizzes.length, stats: counter.stats }).toEqual({
        role: member.role,
        status: 200,
        rows: 13,
        stats: { batches: 1, statements: 1 },
      });
    }
  });
});
