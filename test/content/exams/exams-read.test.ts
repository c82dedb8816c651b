import { describe, expect, it } from "vitest";
import { app } from "../../../src/app";
import { ISO as ISO_PATTERN } from "../../helpers/courses";
import { roundTripD1 } from "../../helpers/d1-counter";
import { insertExam, insertExamAttempt } from "../../helpers/exams";
import { failure } from "../../helpers/http";
import { insertQuiz } from "../../helpers/quizzes";
import { as, curatorWith, schoolWithAdmin, signedIn, unknownId, type Member } from "../../helpers/users";
import { schoolD1 } from "../../helpers/databases";
import { envWith } from "../../helpers/wrapped-d1";

const ISO = expect.stringMatching(ISO_PATTERN);
const T0 = Date.parse("2030-03-01T10:00:00.000Z");
const at = (minutes: number) => T0 + minutes * 60_000;

const list = (member: Member, query = "") => as(member, `/t/exams${query ? `?${query}` : ""}`);
const read = (member: Member, id: string) => as(member, `/t/exams/${id}`);

/** A school with a published and a draft exam (and a deleted one), and one exam of another school. */
async function examSchool() {
  const { school, admin } = await schoolWithAdmin();
  const quizA = await insertQuiz(school.id, { questions: [{ type: "single" }, { type: "multiple" }] });
  const quizB = await insertQuiz(school.id, { questions: [{ type: "free_text" }, { type: "matching", deleted: true }] });
  const published = await insertExam(school.id, {
    title: "Published",
    description: "<p>Read carefully</p>",
    timeLimitSeconds: 5400,
    passingScore: 0,
    maxAttempts: 3,
    retakePolicy: "last",
    screenshotProtectionEnabled: true,
    sections: [
      { quizId: quizA.id, weight: 2, title: "Choice" },
      { quizId: quizB.id, weight: 7, title: "Writing" },
      { quizId: quizA.id, weight: 1, title: "Gone", deleted: true },
    ],
  });
  const draft = await insertExam(school.id, { status: "draft", title: "Draft", sections: [{ quizId: quizA.id }] });
  const deleted = await insertExam(school.id, { title: "Deleted", deleted: true });
  const other = await schoolWithAdmin();
  const foreign = await insertExam(other.school.id, { title: "Foreign" });
  return { school, admin, quizA, quizB, published, draft, deleted, foreign };
}

describe("GET /t/exams", () => {
  it("staff: every live exam of the school, newest first, with its live section count; status filters", async () => {
    const { school, admin, published, draft } = await examSchool();
    const res = await list(admin);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      {
        id: draft.id,
        title: "Draft",
        description: "",
        status: "draft",
        time_limit_seconds: 3600,
        passing_score: null,
        max_attempts: null,
        retake_policy: "best",
        screenshot_protection_enabled: false,
        section_count: 1,
        created_at: ISO,
        updated_at: ISO,
      },
      {
        id: published.id,
        title: "Published",
        description: "<p>Read carefully</p>",
        status: "published",
        time_limit_seconds: 5400,
        passing_score: 0,
        max_attempts: 3,
        retake_policy: "last",
        screenshot_protection_enabled: true,
        section_count: 2,
        created_at: ISO,
        updated_at: ISO,
      },
    ]);
    expect((await list(admin, "status=published")).body.data.map((exam: { id: string }) => exam.id)).toEqual([published.id]);
    expect((await list(admin, "status=draft")).body.data.map((exam: { id: string }) => exam.id)).toEqual([draft.id]);
    expect((await list(admin, "status=")).body.data).toHaveLength(2);
    const curator = await signedIn(school, curatorWith({}));
    expect((await list(curator, "status=draft")).body.data.map((exam: { id: string }) => exam.id)).toEqual([draft.id]);
  });

  it("400 invalid_status for staff with any other status", async () => {
    const { admin } = await examSchool();
    for (const value of ["all", "Published", "deleted", "1"]) {
      expect({ value, ...failure(await list(admin, `status=${value}`)) }).toEqual({ value, status: 400, error: "invalid_status" });
    }
  });

  it("students: published exams only, whatever status they send", async () => {
    const { school, published } = await examSchool();
    const student = await signedIn(school, { role: "student" });
    for (const query of ["", "status=draft", "status=published", "status=bogus"]) {
      const res = await list(student, query);
      expect({ query, status: res.status, ids: res.body.data.map((exam: { id: string }) => exam.id) }).toEqual({ query, status: 200, ids: [published.id] });
    }
  });

  it("an empty school lists nothing; one statement after the auth", async () => {
    const { admin } = await schoolWithAdmin();
    expect((await list(admin)).body.data).toEqual([]);
    const { admin: busy } = await examSchool();
    expect(await roundTrips(busy, "/t/exams")).toBe(2);
  });
});

describe("GET /t/exams/:id (staff)", () => {
  it("the exam with its live sections in order, each with its quiz's live question count; no student fields", async () => {
    const { school, admin, quizA, quizB, published, draft } = await examSchool();
    const res = await read(admin, published.id);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      id: published.id,
      tenant_id: school.id,
      title: "Published",
      description: "<p>Read carefully</p>",
      time_limit_seconds: 5400,
      passing_score: 0,
      max_attempts: 3,
      retake_policy: "last",
      screenshot_protection_enabled: true,
      status: "published",
      sections: [
        { id: published.sectionIds[0], quiz_id: quizA.id, title: "Choice", position: 0, weight: 2, question_count: 2 },
        { id: published.sectionIds[1], quiz_id: quizB.id, title: "Writing", position: 1, weight: 7, question_count: 1 },
      ],
      created_at: ISO,
      updated_at: ISO,
    });
    const curator = await signedIn(school, curatorWith({}));
    expect((await read(curator, draft.id)).body.data).toMatchObject({ id: draft.id, status: "draft", sections: [{ quiz_id: quizA.id, weight: 1 }] });
  });

  it("404 exam_not_found: unknown, deleted, another school's exam; 400 invalid_id_format", async () => {
    const { admin, deleted, foreign } = await examSchool();
    for (const id of [unknownId(), deleted.id, foreign.id]) expect(failure(await read(admin, id))).toEqual({ status: 404, error: "exam_not_found" });
    expect(failure(await read(admin, "exam-1"))).toEqual({ status: 400, error: "invalid_id_format" });
  });
});

describe("GET /t/exams/:id (students)", () => {
  it("404 exam_not_found for a draft, a deleted or another school's exam", async () => {
    const { school, draft, deleted, foreign } = await examSchool();
    const student = await signedIn(school, { role: "student" });
    for (const id of [draft.id, deleted.id, foreign.id, unknownId()]) expect(failure(await read(student, id))).toEqual({ status: 404, error: "exam_not_found" });
  });

  it("without attempts: result null, no attempt in progress, 0 attempts, access true, no access end", async () => {
    const { school, published } = await examSchool();
    const student = await signedIn(school, { role: "student" });
    const res = await read(student, published.id);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data).sort()).toEqual(
      [
        "id", "tenant_id", "title", "description", "time_limit_seconds", "passing_score", "max_attempts", "retake_policy", "screenshot_protection_enabled",
        "status", "sections", "created_at", "updated_at", "result", "in_progress_attempt", "attempts_count", "auth_has_access", "has_access_untill",
        "effective_time_limit_seconds", "effective_max_attempts",
      ].sort(),
    );
    expect(res.body.data).toMatchObject({ result: null, in_progress_attempt: null, attempts_count: 0, auth_has_access: true, has_access_untill: null });
    expect(res.body.data.sections).toHaveLength(2);
  });

  /**
   * Sections weigh 2, 7 and 1. Attempt A (first): 150/200 in section 1, 100/300 in section 2,
   * 1/8 in section 3 → final 1.50 + 2.33… + 0.125 = 3.958… of 10 (39.58 %). Attempt B (latest):
   * only section 1, 200/200 → 2.00 of 10 (20.00 %). An attempt in progress counts for neither.
   */
  async function withAttempts(retakePolicy: "best" | "last") {
    const { school, quizA, quizB } = await examSchool();
    const quizC = await insertQuiz(school.id);
    const exam = await insertExam(school.id, {
      retakePolicy,
      passingScore: 30,
      sections: [
        { quizId: quizA.id, weight: 2, title: "One" },
        { quizId: quizB.id, weight: 7, title: "Two" },
        { quizId: quizC.id, weight: 1, title: "Three" },
      ],
    });
    const [s1, s2, s3] = exam.sectionIds as [string, string, string];
    const student = await signedIn(school, { role: "student" });
    const a = await insertExamAttempt(school.id, exam.id, student.id, {
      startedAt: at(0),
      submittedAt: at(30),
      finalScoreHundredths: 396,
      finalMaxHundredths: 1000,
      finalScorePctHundredths: 3958,
      passed: true,
      sections: [
        { sectionId: s1, quizId: quizA.id, scoreHundredths: 150, maxScoreHundredths: 200 },
        { sectionId: s2, quizId: quizB.id, scoreHundredths: 100, maxScoreHundredths: 300 },
        { sectionId: s3, quizId: quizC.id, scoreHundredths: 1, maxScoreHundredths: 8 },
      ],
    });
    const b = await insertExamAttempt(school.id, exam.id, student.id, {
      startedAt: at(60),
      submittedAt: at(70),
      autoFinalized: true,
      finalScoreHundredths: 200,
      finalMaxHundredths: 1000,
      finalScorePctHundredths: 2000,
      passed: false,
      sections: [{ sectionId: s1, quizId: quizA.id, scoreHundredths: 200, maxScoreHundredths: 200 }],
    });
    const running = await insertExamAttempt(school.id, exam.id, student.id, { status: "in_progress", startedAt: at(120), deadlineAt: at(180) });
    // Nobody else's attempts count.
    const classmate = await signedIn(school, { role: "student" });
    await insertExamAttempt(school.id, exam.id, classmate.id, { startedAt: at(1), submittedAt: at(2), finalScoreHundredths: 1000, finalMaxHundredths: 1000, finalScorePctHundredths: 10_000, passed: true });
    return { school, exam, student, a, b, running, sections: [s1, s2, s3] as const };
  }

  it("best: the highest final percentage, with its sections counted in their weights (exact, half-up)", async () => {
    const { exam, student, a, running, sections } = await withAttempts("best");
    const data = (await read(student, exam.id)).body.data;
    expect(data.result).toEqual({
      attempt_id: a.id,
      score: "3.96",
      max_score: "10.00",
      score_pct: "39.58",
      passed: true,
      submitted_at: new Date(at(30)).toISOString(),
      sections: [
        { section_id: sections[0], title: "One", weight: 2, score: "1.50", max_score: "2.00", score_pct: "75.00" },
        { section_id: sections[1], title: "Two", weight: 7, score: "2.33", max_score: "7.00", score_pct: "33.33" },
        { section_id: sections[2], title: "Three", weight: 1, score: "0.13", max_score: "1.00", score_pct: "12.50" },
      ],
    });
    expect(data.in_progress_attempt).toEqual({ attempt_id: running.id, started_at: new Date(at(120)).toISOString(), deadline_at: new Date(at(180)).toISOString() });
    expect(data.attempts_count).toBe(2);
  });

  it("last: the latest submitted attempt; unvisited sections score 0", async () => {
    const { exam, student, b, sections } = await withAttempts("last");
    const data = (await read(student, exam.id)).body.data;
    expect(data.result).toEqual({
      attempt_id: b.id,
      score: "2.00",
      max_score: "10.00",
      score_pct: "20.00",
      passed: false,
      submitted_at: new Date(at(70)).toISOString(),
      sections: [
        { section_id: sections[0], title: "One", weight: 2, score: "2.00", max_score: "2.00", score_pct: "100.00" },
        { section_id: sections[1], title: "Two", weight: 7, score: "0.00", max_score: "7.00", score_pct: "0.00" },
        { section_id: sections[2], title: "Three", weight: 1, score: "0.00", max_score: "1.00", score_pct: "0.00" },
      ],
    });
    expect(data.attempts_count).toBe(2);
  });

  it("best among equal percentages is the latest submitted", async () => {
    const { school, quizA } = await examSchool();
    const exam = await insertExam(school.id, { sections: [{ quizId: quizA.id }] });
    const student = await signedIn(school, { role: "student" });
    const figures = { finalScoreHundredths: 50, finalMaxHundredths: 100, finalScorePctHundredths: 5000, passed: true };
    await insertExamAttempt(school.id, exam.id, student.id, { ...figures, startedAt: at(0), submittedAt: at(10) });
    const later = await insertExamAttempt(school.id, exam.id, student.id, { ...figures, startedAt: at(20), submittedAt: at(30) });
    await insertExamAttempt(school.id, exam.id, student.id, { ...figures, finalScorePctHundredths: 4999, startedAt: at(40), submittedAt: at(50) });
    expect((await read(student, exam.id)).body.data.result).toMatchObject({ attempt_id: later.id, score_pct: "50.00" });
  });

  it("staff never get the student fields, even with attempts of their own", async () => {
    const { exam, school } = await withAttempts("best");
    const admin = await signedIn(school, { role: "admin" });
    await insertExamAttempt(school.id, exam.id, admin.id, { actorRole: "admin", finalScoreHundredths: 1000, finalMaxHundredths: 1000, finalScorePctHundredths: 10_000, passed: true });
    const data = (await read(admin, exam.id)).body.data;
    for (const key of ["result", "in_progress_attempt", "attempts_count", "auth_has_access", "has_access_untill"]) expect(key in data).toBe(false);
  });

  it("costs one batch after the auth, for staff and students alike", async () => {
    const { exam, student, school } = await withAttempts("best");
    expect(await roundTrips(student, `/t/exams/${exam.id}`)).toBe(2);
    expect(await roundTrips(await signedIn(school, { role: "admin" }), `/t/exams/${exam.id}`)).toBe(2);
    expect(await roundTrips(student, "/t/exams")).toBe(2);
  });
});

async function roundTrips(member: Member, path: string): Promise<number> {
  const counter = roundTripD1(await schoolD1(member.tenantId));
  const response = await app.request(
    `https://api.lms.localhost/api/v1${path}`,
    { headers: { authorization: `Bearer ${member.token}`, "x-tenant-subdomain": member.subdomain } },
    envWith(counter.db),
  );
  expect(response.status).toBe(200);
  await response.arrayBuffer();
  return counter.roundTrips();
}
