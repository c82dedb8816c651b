import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";
import { ISO as ISO_PATTERN } from "../../helpers/courses";
import { insertExam, insertExamAttempt } from "../../helpers/exams";
import { createUser, db } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { insertQuiz } from "../../helpers/quizzes";
import { as, curatorWith, schoolWithAdmin, signedIn, unknownId, type Member } from "../../helpers/users";
import { addPushDevice, outboxRows } from "../../notifications/helpers";

const ISO = expect.stringMatching(ISO_PATTERN);

async function examRow(id: string) {
  const [row] = await db().select().from(schema.exams).where(eq(schema.exams.id, id));
  return row!;
}

const create = (member: Member, body: unknown) => as(member, "/t/exams", { body });
const patch = (member: Member, id: string, body: unknown) => as(member, `/t/exams/${id}`, { method: "PATCH", body });
const remove = (member: Member, id: string) => as(member, `/t/exams/${id}`, { method: "DELETE" });
const publish = (member: Member, id: string) => as(member, `/t/exams/${id}/publish`, { method: "POST" });
const unpublish = (member: Member, id: string) => as(member, `/t/exams/${id}/unpublish`, { method: "POST" });

describe("POST /t/exams", () => {
  it("creates a draft with its defaults: 201 with the exam and no sections", async () => {
    const { school, admin } = await schoolWithAdmin();
    const res = await create(admin, { title: "  Final exam ", description: "<p>Two <b>parts</b></p><script>alert(1)</script>", time_limit_seconds: 3600 });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.any(String),
      tenant_id: school.id,
      title: "Final exam",
      description: "<p>Two <b>parts</b></p>",
      time_limit_seconds: 3600,
      passing_score: null,
      max_attempts: null,
      retake_policy: "best",
      screenshot_protection_enabled: false,
      status: "draft",
      sections: [],
      created_at: ISO,
      updated_at: ISO,
    });
    expect(await examRow(res.body.data.id)).toMatchObject({ tenantId: school.id, createdBy: admin.id, status: "draft", publishedAt: null, deletedAt: null });
  });

  it("takes every setting at its bounds (a passing score of 0 included); null means no limit", async () => {
    const { admin } = await schoolWithAdmin();
    const low = await create(admin, { title: "A", time_limit_seconds: 1, passing_score: 0, max_attempts: 1, retake_policy: "last", screenshot_protection_enabled: true });
    expect(low.status).toBe(201);
    expect(low.body.data).toMatchObject({ title: "A", time_limit_seconds: 1, passing_score: 0, max_attempts: 1, retake_policy: "last", screenshot_protection_enabled: true });
    const high = await create(admin, { title: "x".repeat(255), time_limit_seconds: 86_400, passing_score: 100, max_attempts: 1000, description: "d".repeat(10_000) });
    expect(high.body.data).toMatchObject({ time_limit_seconds: 86_400, passing_score: 100, max_attempts: 1000 });
    const open = await create(admin, { title: "Open", time_limit_seconds: 60, passing_score: null, max_attempts: null });
    expect(open.body.data).toMatchObject({ passing_score: null, max_attempts: null });
  });

  it("400 invalid_request_body for a missing or wrong field, outside the limits, or an unknown key", async () => {
    const { admin } = await schoolWithAdmin();
    const valid = { title: "Exam", time_limit_seconds: 600 };
    for (const body of [
      {},
      { title: "Exam" },
      { time_limit_seconds: 600 },
      { ...valid, title: "" },
      { ...valid, title: "   " },
      { ...valid, title: "x".repeat(256) },
      { ...valid, time_limit_seconds: 0 },
      { ...valid, time_limit_seconds: -5 },
      { ...valid, time_limit_seconds: 1.5 },
      { ...valid, time_limit_seconds: 86_401 },
      { ...valid, time_limit_seconds: "600" },
      { ...valid, passing_score: -1 },
      { ...valid, passing_score: 101 },
      { ...valid, passing_score: 50.5 },
      { ...valid, max_attempts: 0 },
      { ...valid, max_attempts: 1001 },
      { ...valid, retake_policy: "worst" },
      { ...valid, screenshot_protection_enabled: "yes" },
      { ...valid, description: "d".repeat(10_001) },
      { ...valid, status: "published" },
    ]) {
      expect({ body, ...failure(await create(admin, body)) }).toEqual({ body, status: 400, error: "invalid_request_body" });
    }
  });

  it("403 forbidden: a curator needs can_manage_exams; a student never", async () => {
    const { school } = await schoolWithAdmin();
    const body = { title: "Exam", time_limit_seconds: 600 };
    expect(failure(await create(await signedIn(school, curatorWith({ can_manage_courses: true })), body))).toEqual({ status: 403, error: "forbidden" });
    expect(failure(await create(await signedIn(school, { role: "student" }), body))).toEqual({ status: 403, error: "forbidden" });
    expect((await create(await signedIn(school, curatorWith({ can_manage_exams: true })), body)).status).toBe(201);
  });
});

describe("PATCH /t/exams/:id", () => {
  it("changes any field of a draft; clear_* flags reset the limits; an empty body changes nothing", async () => {
    const { school, admin } = await schoolWithAdmin();
    const quiz = await insertQuiz(school.id, { questions: [{ type: "single" }] });
    const exam = await insertExam(school.id, { status: "draft", passingScore: 60, maxAttempts: 2, sections: [{ quizId: quiz.id, weight: 3 }] });
    const res = await patch(admin, exam.id, {
      title: " Renamed ",
      description: "<p>new</p><img src=x onerror=alert(1)>",
      time_limit_seconds: 900,
      passing_score: 0,
      max_attempts: 5,
      retake_policy: "last",
      screenshot_protection_enabled: true,
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: exam.id,
      title: "Renamed",
      description: "<p>new</p>",
      time_limit_seconds: 900,
      passing_score: 0,
      max_attempts: 5,
      retake_policy: "last",
      screenshot_protection_enabled: true,
      status: "draft",
      sections: [{ id: exam.sectionIds[0], quiz_id: quiz.id, title: "Section 1", position: 0, weight: 3, question_count: 1 }],
    });
    const cleared = await patch(admin, exam.id, { clear_passing_score: true, clear_max_attempts: true });
    expect(cleared.body.data).toMatchObject({ passing_score: null, max_attempts: null, time_limit_seconds: 900 });
    const untouched = await patch(admin, exam.id, { clear_passing_score: false });
    expect(untouched.body.data).toMatchObject({ passing_score: null, title: "Renamed" });
    expect((await patch(admin, exam.id, {})).body.data).toMatchObject({ title: "Renamed" });
  });

  it("409 exam_published_immutable for each structural field of a published exam that would change; the same value, title, description and screenshot flag pass", async () => {
    const { school, admin } = await schoolWithAdmin();
    const quiz = await insertQuiz(school.id);
    const exam = await insertExam(school.id, { timeLimitSeconds: 1200, passingScore: 70, maxAttempts: 3, retakePolicy: "best", sections: [{ quizId: quiz.id }] });
    const before = await examRow(exam.id);
    for (const body of [
      { time_limit_seconds: 1300 },
      { passing_score: 71 },
      { passing_score: 0 },
      { clear_passing_score: true },
      { max_attempts: 4 },
      { clear_max_attempts: true },
      { retake_policy: "last" },
      { title: "New title", time_limit_seconds: 1 },
    ]) {
      expect({ body, ...failure(await patch(admin, exam.id, body)) }).toEqual({ body, status: 409, error: "exam_published_immutable" });
    }
    expect(await examRow(exam.id)).toEqual(before);
    const same = await patch(admin, exam.id, { time_limit_seconds: 1200, passing_score: 70, max_attempts: 3, retake_policy: "best", title: "Kept", description: "<p>d</p>", screenshot_protection_enabled: true });
    expect(same.status).toBe(200);
    expect(same.body.data).toMatchObject({ status: "published", title: "Kept", description: "<p>d</p>", screenshot_protection_enabled: true, time_limit_seconds: 1200, passing_score: 70, max_attempts: 3 });

    // Null limits compare too: clearing what is already clear is no change.
    const open = await insertExam(school.id, { passingScore: null, maxAttempts: null, sections: [{ quizId: quiz.id }] });
    expect((await patch(admin, open.id, { clear_passing_score: true, clear_max_attempts: true })).status).toBe(200);
    expect(failure(await patch(admin, open.id, { passing_score: 50 }))).toEqual({ status: 409, error: "exam_published_immutable" });
  });

  it("400 invalid_request_body for a wrong field, a null limit, or a value and its clear flag together", async () => {
    const { school, admin } = await schoolWithAdmin();
    const exam = await insertExam(school.id, { status: "draft" });
    for (const body of [
      { title: "" },
      { time_limit_seconds: 0 },
      { passing_score: null },
      { max_attempts: null },
      { passing_score: 50, clear_passing_score: true },
      { max_attempts: 2, clear_max_attempts: true },
      { clear_passing_score: "yes" },
      { status: "published" },
    ]) {
      expect({ body, ...failure(await patch(admin, exam.id, body)) }).toEqual({ body, status: 400, error: "invalid_request_body" });
    }
  });

  it("404 exam_not_found: unknown, deleted, another school's exam; 400 invalid_id_format; 403 without can_manage_exams", async () => {
    const { school, admin } = await schoolWithAdmin();
    const deleted = await insertExam(school.id, { status: "draft", deleted: true });
    const foreign = await insertExam((await schoolWithAdmin()).school.id, { status: "draft" });
    for (const id of [unknownId(), deleted.id, foreign.id]) {
      expect(failure(await patch(admin, id, { title: "x" }))).toEqual({ status: 404, error: "exam_not_found" });
      expect(failure(await patch(admin, id, {}))).toEqual({ status: 404, error: "exam_not_found" });
    }
    expect((await examRow(foreign.id)).title).not.toBe("x");
    expect(failure(await patch(admin, "nope", { title: "x" }))).toEqual({ status: 400, error: "invalid_id_format" });
    const exam = await insertExam(school.id, { status: "draft" });
    expect(failure(await patch(await signedIn(school, curatorWith({ can_manage_courses: true })), exam.id, { title: "x" }))).toEqual({ status: 403, error: "forbidden" });
  });
});

describe("DELETE /t/exams/:id", () => {
  it("soft-deletes the exam and its sections at one timestamp: {deleted: true}; then 404", async () => {
    const { school, admin } = await schoolWithAdmin();
    const quiz = await insertQuiz(school.id);
    const exam = await insertExam(school.id, { sections: [{ quizId: quiz.id }, { quizId: quiz.id }] });
    const student = await signedIn(school, { role: "student" });
    await insertExamAttempt(school.id, exam.id, student.id, { status: "submitted" });
    const res = await remove(admin, exam.id);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ deleted: true });
    const row = await examRow(exam.id);
    expect(row.deletedAt).toEqual(expect.any(Number));
    const sections = await db().select().from(schema.examSections).where(eq(schema.examSections.examId, exam.id));
    expect(sections.map((section) => section.deletedAt)).toEqual([row.deletedAt, row.deletedAt]);
    expect(failure(await remove(admin, exam.id))).toEqual({ status: 404, error: "exam_not_found" });
    expect(failure(await as(admin, `/t/exams/${exam.id}`))).toEqual({ status: 404, error: "exam_not_found" });
    // Finished attempts stay.
    expect(await db().select().from(schema.examAttempts).where(eq(schema.examAttempts.examId, exam.id))).toHaveLength(1);
  });

  it("409 exam_has_in_progress_attempts while an attempt is in progress (anyone's); deletes once it is finished", async () => {
    const { school, admin } = await schoolWithAdmin();
    const exam = await insertExam(school.id, { status: "draft" });
    const curator = await signedIn(school, curatorWith({}));
    const attempt = await insertExamAttempt(school.id, exam.id, curator.id, { status: "in_progress", actorRole: "curator" });
    expect(failure(await remove(admin, exam.id))).toEqual({ status: 409, error: "exam_has_in_progress_attempts" });
    expect((await examRow(exam.id)).deletedAt).toBeNull();
    await db().update(schema.examAttempts).set({ status: "submitted", submittedAt: Date.now() }).where(eq(schema.examAttempts.id, attempt.id));
    expect((await remove(admin, exam.id)).status).toBe(200);
  });

  it("404 exam_not_found: unknown, another school's; 403 for a student", async () => {
    const { school, admin } = await schoolWithAdmin();
    const foreign = await insertExam((await schoolWithAdmin()).school.id);
    expect(failure(await remove(admin, unknownId()))).toEqual({ status: 404, error: "exam_not_found" });
    expect(failure(await remove(admin, foreign.id))).toEqual({ status: 404, error: "exam_not_found" });
    expect((await examRow(foreign.id)).deletedAt).toBeNull();
    const exam = await insertExam(school.id);
    expect(failure(await remove(await signedIn(school, { role: "student" }), exam.id))).toEqual({ status: 403, error: "forbidden" });
  });
});

describe("POST /t/exams/:id/publish and /unpublish", () => {
  it("publishes a draft with a section: {published: true}; 409 exam_already_published; unpublish is idempotent", async () => {
    const { school, admin } = await schoolWithAdmin();
    const quiz = await insertQuiz(school.id);
    const exam = await insertExam(school.id, { status: "draft", sections: [{ quizId: quiz.id }] });
    const res = await publish(admin, exam.id);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ published: true });
    const published = await examRow(exam.id);
    expect(published).toMatchObject({ status: "published", publishedAt: expect.any(Number) });
    expect(failure(await publish(admin, exam.id))).toEqual({ status: 409, error: "exam_already_published" });

    expect((await unpublish(admin, exam.id)).body.data).toEqual({ unpublished: true });
    expect(await examRow(exam.id)).toMatchObject({ status: "draft", publishedAt: published.publishedAt });
    const again = await unpublish(admin, exam.id);
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual({ unpublished: true });
    expect((await publish(admin, exam.id)).status).toBe(200);
    expect(await examRow(exam.id)).toMatchObject({ status: "published", publishedAt: published.publishedAt });
  });

  it("400 exam_section_required without a live section (deleted sections do not count)", async () => {
    const { school, admin } = await schoolWithAdmin();
    const quiz = await insertQuiz(school.id);
    const empty = await insertExam(school.id, { status: "draft" });
    expect(failure(await publish(admin, empty.id))).toEqual({ status: 400, error: "exam_section_required" });
    const onlyDeleted = await insertExam(school.id, { status: "draft", sections: [{ quizId: quiz.id, deleted: true }] });
    expect(failure(await publish(admin, onlyDeleted.id))).toEqual({ status: 400, error: "exam_section_required" });
    expect((await examRow(onlyDeleted.id)).status).toBe("draft");
  });

  it("404 exam_not_found: unknown, deleted, another school's exam (both endpoints); 403 without can_manage_exams", async () => {
    const { school, admin } = await schoolWithAdmin();
    const quiz = await insertQuiz(school.id);
    const deleted = await insertExam(school.id, { status: "draft", deleted: true, sections: [{ quizId: quiz.id }] });
    const other = await schoolWithAdmin();
    const foreign = await insertExam(other.school.id, { status: "draft", sections: [{ quizId: (await insertQuiz(other.school.id)).id }] });
    for (const id of [unknownId(), deleted.id, foreign.id]) {
      expect(failure(await publish(admin, id))).toEqual({ status: 404, error: "exam_not_found" });
      expect(failure(await unpublish(admin, id))).toEqual({ status: 404, error: "exam_not_found" });
    }
    expect((await examRow(foreign.id)).status).toBe("draft");
    const exam = await insertExam(school.id, { status: "draft", sections: [{ quizId: quiz.id }] });
    const curator = await signedIn(school, curatorWith({ can_manage_courses: true }));
    expect(failure(await publish(curator, exam.id))).toEqual({ status: 403, error: "forbidden" });
    expect(failure(await unpublish(curator, exam.id))).toEqual({ status: 403, error: "forbidden" });
  });

  it("exam.published (#41) once, on the first publication, to the school's students with a push device", async () => {
    const { school, admin } = await schoolWithAdmin();
    expect((await as(admin, "/t/notifications/admin/events/exam.published", { method: "PATCH", body: { enabled: true } })).status).toBe(200);
    const quiz = await insertQuiz(school.id);
    const exam = await insertExam(school.id, { status: "draft", title: "Algebra final", timeLimitSeconds: 5401, sections: [{ quizId: quiz.id }] });
    const withDevice = [await signedIn(school, { role: "student" }), await signedIn(school, { role: "student" })];
    const withoutDevice = await signedIn(school, { role: "student" });
    const inactive = await createUser(school.id, { role: "student", isActive: false });
    const curator = await signedIn(school, curatorWith({ can_manage_exams: true }));
    const other = await schoolWithAdmin();
    const foreignStudent = await signedIn(other.school, { role: "student" });
    for (const user of [...withDevice, { id: inactive.id }, curator]) await addPushDevice(school.id, user.id);
    await addPushDevice(other.school.id, foreignStudent.id);
    void withoutDevice;

    expect((await publish(admin, exam.id)).status).toBe(200);
    const pushes = (await outboxRows(school.id)).filter((row) => row.eventCode === "exam.published");
    expect(pushes.map((row) => row.userId).sort()).toEqual(withDevice.map((student) => student.id).sort());
    for (const row of pushes) {
      expect(row).toMatchObject({ aggregateType: "exam", aggregateId: exam.id, dedupeKey: `exam.published:${exam.id}:${row.userId}` });
      expect(row.data).toMatchObject({ event_code: "exam.published", exam_id: exam.id, exam_title: "Algebra final", time_limit_minutes: 91 });
    }
    expect(await outboxRows(other.school.id)).toEqual([]);

    // Unpublished and published again: the students heard of it already.
    await unpublish(admin, exam.id);
    expect((await publish(admin, exam.id)).status).toBe(200);
    expect((await outboxRows(school.id)).filter((row) => row.eventCode === "exam.published")).toHaveLength(2);
  });

  it("exam.published is off by default: publishing writes no push", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    await addPushDevice(school.id, student.id);
    const exam = await insertExam(school.id, { status: "draft", sections: [{ quizId: (await insertQuiz(school.id)).id }] });
    expect((await publish(admin, exam.id)).status).toBe(200);
    expect(await outboxRows(school.id)).toEqual([]);
  });
});
