import { afterEach, describe, expect, it } from "vitest";
import { setClockForTests } from "../../../src/core/lib/clock";
import * as schema from "../../../src/db/schema";
import { superadmin } from "../../helpers/billing";
import { insertCourseTree, insertEnrollment } from "../../helpers/courses";
import { insertExam, insertExamAttempt } from "../../helpers/exams";
import { db } from "../../helpers/factories";
import { api, failure } from "../../helpers/http";
import { insertQuiz } from "../../helpers/quizzes";
import { addGroupCurator, addMember, as, assignIndividualCurator, createGroup, curatorWith, signedIn, unknownId } from "../../helpers/users";
import { days, putWindow } from "../schedule/helpers";
import {
  activeExam,
  examAttemptsOf,
  examForStudent,
  go,
  opened,
  readExamAttempt,
  saveSection,
  sectionAttemptRows,
  single,
  startExam,
  startedExam,
  submitExam,
} from "./attempt-helpers";

/**
 * Every failure of the exam attempt endpoints, each through `failure()`, and who may read an
 * attempt: its owner always, staff within their scope, anyone else 404.
 */

afterEach(() => setClockForTests(null));

describe("POST /exam-attempts", () => {
  it("400 invalid_request_body without a uuid exam_id", async () => {
    const { student } = await examForStudent();
    for (const body of [{}, { exam_id: "nope" }, { exam_id: 7 }]) {
      expect(failure(await as(student, "/t/exam-attempts", { method: "POST", body }))).toEqual({ status: 400, error: "invalid_request_body" });
    }
  });

  it("400 invalid_actor_role: the superadmin acting on the school is no member who can take an exam", async () => {
    const { school, exam } = await examForStudent();
    const platform = await superadmin();
    const res = await api("/t/exam-attempts", { method: "POST", token: platform.token, tenant: school.subdomain, body: { exam_id: exam.id } });
    expect(failure(res)).toEqual({ status: 400, error: "invalid_actor_role" });
  });

  it("404 exam_not_found: unknown, deleted, another school's", async () => {
    const { school, student } = await examForStudent();
    const quiz = await insertQuiz(school.id, { questions: [{ type: "single" }] });
    const deleted = await insertExam(school.id, { deleted: true, sections: [{ quizId: quiz.id }] });
    const foreign = await examForStudent();
    for (const id of [unknownId(), deleted.id, foreign.exam.id]) {
      expect(failure(await startExam(student, id))).toEqual({ status: 404, error: "exam_not_found" });
    }
  });

  it("400 exam_not_published for a draft, staff too", async () => {
    const { school, admin, student } = await examForStudent();
    const quiz = await insertQuiz(school.id, { questions: [{ type: "single" }] });
    const draft = await insertExam(school.id, { status: "draft", sections: [{ quizId: quiz.id }] });
    for (const member of [student, admin]) expect(failure(await startExam(member, draft.id))).toEqual({ status: 400, error: "exam_not_published" });
  });

  it("an attempt in progress is answered with 200 even after the exam was unpublished; a new one is refused", async () => {
    const { school, admin, student, exam } = await examForStudent();
    const id = await startedExam(student, exam.id);
    expect((await as(admin, `/t/exams/${exam.id}/unpublish`, { method: "POST" })).status).toBe(200);
    const again = await startExam(student, exam.id);
    expect(again.status).toBe(200);
    expect(again.body.data.id).toBe(id);
    const other = await signedIn(school, { role: "student" });
    expect(failure(await startExam(other, exam.id))).toEqual({ status: 400, error: "exam_not_published" });
  });

  it("409 max_exam_attempts_reached once every allowed attempt is used; the attempt in progress is answered with 200 until then", async () => {
    const { school, student, exam } = await examForStudent({ maxAttempts: 2 });
    await insertExamAttempt(school.id, exam.id, student.id);
    const first = await startExam(student, exam.id);
    expect(first.status).toBe(201);
    const again = await startExam(student, exam.id);
    expect(again.status).toBe(200);
    expect(again.body.data.id).toBe(first.body.data.id);
    await submitExam(student, first.body.data.id);
    expect(failure(await startExam(student, exam.id))).toEqual({ status: 409, error: "max_exam_attempts_reached" });
    expect(await examAttemptsOf(exam.id)).toHaveLength(2);
    // Staff attempts count for the staff member only.
    const admin = await signedIn(school, { role: "admin" });
    expect((await startExam(admin, exam.id)).status).toBe(201);
  });

  it("403 schedule_window_closed: a lesson naming the exam that has not opened; a passed end refuses only a first attempt; staff pass", async () => {
    const { school, admin, student, exam } = await examForStudent();
    const tree = await insertCourseTree(school.id, { status: "published", blockType: "exam_ref", payload: { exam_id: exam.id }, refId: exam.id });
    await insertEnrollment(school.id, tree.courseId, student.id);
    await putWindow(admin, "modules", tree.modules[0]!.id, { starts_at: days(1) });
    expect(failure(await startExam(student, exam.id))).toEqual({ status: 403, error: "schedule_window_closed" });
    // A student not enrolled there does not meet those dates: the exam is in no lesson of theirs.
    const outsider = await signedIn(school, { role: "student" });
    expect((await startExam(outsider, exam.id)).status).toBe(201);
    expect((await startExam(admin, exam.id)).status).toBe(201);

    await putWindow(admin, "modules", tree.modules[0]!.id, { starts_at: days(-2), ends_at: days(-1) });
    expect(failure(await startExam(student, exam.id))).toEqual({ status: 403, error: "schedule_window_closed" });
    const returning = await signedIn(school, { role: "student" });
    await insertEnrollment(school.id, tree.courseId, returning.id);
    await insertExamAttempt(school.id, exam.id, returning.id);
    expect((await startExam(returning, exam.id)).status).toBe(201);
  });
});

describe("GET /exam-attempts/active", () => {
  it("400 invalid_params without a uuid exam_id; 404 exam_attempt_not_found without an attempt in progress", async () => {
    const { school, student, exam } = await examForStudent();
    for (const query of ["", "?exam_id=", "?exam_id=nope"]) {
      expect(failure(await as(student, `/t/exam-attempts/active${query}`))).toEqual({ status: 400, error: "invalid_params" });
    }
    expect(failure(await activeExam(student, exam.id))).toEqual({ status: 404, error: "exam_attempt_not_found" });
    await insertExamAttempt(school.id, exam.id, student.id);
    expect(failure(await activeExam(student, exam.id))).toEqual({ status: 404, error: "exam_attempt_not_found" });
    const id = await startedExam(student, exam.id);
    const found = await activeExam(student, exam.id);
    expect(found.status).toBe(200);
    expect(found.body.data).toMatchObject({ id, status: "in_progress" });
    // Someone else's attempt in progress is not the caller's.
    const other = await signedIn(school, { role: "student" });
    expect(failure(await activeExam(other, exam.id))).toEqual({ status: 404, error: "exam_attempt_not_found" });
  });
});

describe("GET /exam-attempts/:id", () => {
  it("the owner, the admin, the student's curators; 404 for other students and curators out of scope; 400 invalid_id_format", async () => {
    const { school, admin, student, exam } = await examForStudent();
    const id = await startedExam(student, exam.id);
    const individual = await signedIn(school, { role: "curator" });
    await assignIndividualCurator(student.id, individual.id);
    const groupCurator = await signedIn(school, { role: "curator" });
    const group = await createGroup(school.id);
    await addMember(group, student.id);
    await addGroupCurator(group, groupCurator.id);
    const wide = await signedIn(school, curatorWith({ can_manage_groups: true }));
    for (const member of [student, admin, individual, groupCurator, wide]) expect((await readExamAttempt(member, id)).status).toBe(200);

    const stranger = await signedIn(school, { role: "curator" });
    const otherStudent = await signedIn(school, { role: "student" });
    const foreign = await examForStudent();
    for (const member of [stranger, otherStudent, foreign.admin]) {
      expect(failure(await readExamAttempt(member, id))).toEqual({ status: 404, error: "exam_attempt_not_found" });
    }
    expect(failure(await readExamAttempt(student, "nope"))).toEqual({ status: 400, error: "invalid_id_format" });
  });
});

describe("POST /exam-attempts/:id/go", () => {
  it("400 invalid_section_index outside the live sections; 400 invalid_request_body; 404 for anyone but the owner; 400 invalid_id_format", async () => {
    const { school, admin, student, exam, quizzes } = await examForStudent();
    // A deleted section does not count: the live ones are A and B.
    const now = Date.now();
    await db().insert(schema.examSections).values({ id: unknownId(), tenantId: school.id, examId: exam.id, quizId: quizzes[0]!.id, title: "Gone", position: 2, weight: 1, createdAt: now, updatedAt: now, deletedAt: now });
    const id = await startedExam(student, exam.id);
    for (const index of [-1, 2, 1000]) expect(failure(await go(student, id, index))).toEqual({ status: 400, error: "invalid_section_index" });
    for (const index of [0.5, "0", null]) expect(failure(await go(student, id, index))).toEqual({ status: 400, error: "invalid_request_body" });
    expect(failure(await as(student, `/t/exam-attempts/${id}/go`, { method: "POST", body: {} }))).toEqual({ status: 400, error: "invalid_request_body" });
    const other = await signedIn(school, { role: "student" });
    for (const member of [other, admin]) expect(failure(await go(member, id, 0))).toEqual({ status: 404, error: "exam_attempt_not_found" });
    expect(failure(await go(student, "nope", 0))).toEqual({ status: 400, error: "invalid_id_format" });
  });
});

describe("POST /exam-attempts/:id/sections/:n/answers", () => {
  it("a section's quiz attempt takes answers only through its exam: the quizzes' save answers 404 attempt_not_found", async () => {
    const { student, exam, quizzes } = await examForStudent();
    const id = await startedExam(student, exam.id);
    await opened(student, id, 0);
    const [section] = await sectionAttemptRows(id);
    const question = quizzes[0]!.questions[0]!;
    const direct = await as(student, `/t/attempts/${section!.quizAttemptId}/answers`, { method: "POST", body: { answers: [single(question, true)] } });
    expect(failure(direct)).toEqual({ status: 404, error: "attempt_not_found" });
    expect((await saveSection(student, id, 0, [single(question, true)])).status).toBe(200);
  });

  it("400 invalid_section_index: n not an index, outside the sections, or a section not opened with go", async () => {
    const { student, exam, quizzes } = await examForStudent();
    const id = await startedExam(student, exam.id);
    await opened(student, id, 1);
    const answer = single(quizzes[0]!.questions[0]!, true);
    for (const n of ["x", "-1", "1.5", "2", "99999"]) expect(failure(await saveSection(student, id, n, [answer]))).toEqual({ status: 400, error: "invalid_section_index" });
    expect(failure(await saveSection(student, id, 0, [answer]))).toEqual({ status: 400, error: "invalid_section_index" });
  });

  it("400 question_not_in_section (nothing saved); 400 invalid_request_body; 404 for anyone but the owner", async () => {
    const { school, admin, student, exam, quizzes } = await examForStudent();
    const id = await startedExam(student, exam.id);
    await opened(student, id, 0);
    await opened(student, id, 1);
    const a = quizzes[0]!.questions[0]!;
    // A question of section B sent to section A.
    const res = await saveSection(student, id, 0, [single(a, true), single(quizzes[1]!.questions[0]!, true)]);
    expect(failure(res)).toEqual({ status: 400, error: "question_not_in_section" });
    for (const answers of [[], [{ question_id: a.id }], [{ question_id: a.id, payload: { text: "x" } }], [{ question_id: a.id, payload: { answer_ids: [a.answerIds[0]] }, client_seq: -1 }]]) {
      expect(failure(await saveSection(student, id, 0, answers))).toEqual({ status: 400, error: "invalid_request_body" });
    }
    expect((await saveSection(student, id, 0, [single(a, true)])).body.data).toMatchObject({ saved: 1, ignored: 0 });
    const other = await signedIn(school, { role: "student" });
    for (const member of [other, admin]) expect(failure(await saveSection(member, id, 0, [single(a, true)]))).toEqual({ status: 404, error: "exam_attempt_not_found" });
    expect(failure(await saveSection(student, "nope", 0, [single(a, true)]))).toEqual({ status: 400, error: "invalid_id_format" });
  });

  it("client_seq: the highest wins, a lower or equal one is ignored", async () => {
    const { student, exam, quizzes } = await examForStudent();
    const id = await startedExam(student, exam.id);
    await opened(student, id, 0);
    const a = quizzes[0]!.questions[0]!;
    expect((await saveSection(student, id, 0, [single(a, true, 5)])).body.data).toMatchObject({ saved: 1, ignored: 0 });
    expect((await saveSection(student, id, 0, [single(a, false, 5), single(a, false, 4)])).body.data).toMatchObject({ saved: 0, ignored: 2 });
    expect((await submitExam(student, id)).body.data).toMatchObject({ final_score: "1.00" });
  });
});

describe("POST /exam-attempts/:id/submit", () => {
  it("404 for anyone but the owner; 409 once finished; 400 invalid_id_format", async () => {
    const { school, admin, student, exam } = await examForStudent();
    const id = await startedExam(student, exam.id);
    const other = await signedIn(school, { role: "student" });
    for (const member of [other, admin]) expect(failure(await submitExam(member, id))).toEqual({ status: 404, error: "exam_attempt_not_found" });
    expect((await submitExam(student, id)).status).toBe(200);
    expect(failure(await submitExam(student, id))).toEqual({ status: 409, error: "exam_attempt_already_submitted" });
    expect(failure(await submitExam(student, "nope"))).toEqual({ status: 400, error: "invalid_id_format" });
  });

  it("a section's quiz attempt cannot be submitted on its own through the quiz endpoint", async () => {
    const { student, exam } = await examForStudent();
    const id = await startedExam(student, exam.id);
    await opened(student, id, 0);
    const quizAttemptId = (await readExamAttempt(student, id)).body.data.section_attempts[0].quiz_attempt_id as string;
    expect(failure(await as(student, `/t/attempts/${quizAttemptId}/submit`, { method: "POST" }))).toEqual({ status: 404, error: "attempt_not_found" });
    expect((await submitExam(student, id)).status).toBe(200);
  });
});
