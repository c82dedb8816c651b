import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { app } from "../../src/app";
import * as schema from "../../src/db/schema";
import { ISO } from "../helpers/courses";
import { schoolD1 } from "../helpers/databases";
import { countingD1, roundTripD1 } from "../helpers/d1-counter";
import { db } from "../helpers/factories";
import { failure } from "../helpers/http";
import { as, signedIn, type Member } from "../helpers/users";
import { envWith } from "../helpers/wrapped-d1";
import { quizForStudent, started, submit } from "../content/attempts/helpers";
import { grade, submittedAttempt } from "../content/attempts/grading-helpers";
import { examForStudent, opened, saveSection, single, startedExam, submitExam } from "../content/exams/attempt-helpers";
import { assignmentCourse, draftOf, review, submit as submitSubmission, submissionSchool } from "../content/submissions/helpers";
import { giveQuizAccess, insertQuiz } from "../helpers/quizzes";
import { deliverHooks, hookOf, receiver, webhookRow } from "./helpers";
import { completeBlock, courseWithStudent, putRule } from "../certificates/helpers";
import { schoolWithAdmin } from "../helpers/users";
import { applyPlan, studentsCsv, upload } from "../imports/helpers";

/**
 * The producers of 05 section 5's events (docs/decisions/webhooks.md, "Producers"): each source
 * writes one event per occurrence, with its deliveries, in its own batch; a repeat or a refusal
 * writes none; a school without an active webhook writes no statement for it, and one with webhooks
 * no round trip more.
 */

async function eventsOf(tenantId: string, type?: string) {
  const rows = await db()
    .select()
    .from(schema.webhookEvents)
    .where(type ? and(eq(schema.webhookEvents.tenantId, tenantId), eq(schema.webhookEvents.type, type)) : eq(schema.webhookEvents.tenantId, tenantId));
  return rows.map((row) => ({ type: row.type, data: JSON.parse(row.data) as Record<string, unknown>, id: row.id }));
}

async function deliveriesOf(tenantId: string) {
  return db().select().from(schema.webhookDeliveries).where(eq(schema.webhookDeliveries.tenantId, tenantId));
}

async function schoolFlag(tenantId: string) {
  const [row] = await db().select({ active: schema.tenants.webhooksActive }).from(schema.tenants).where(eq(schema.tenants.id, tenantId));
  return row!.active;
}

/** A request through the app counting the school database's statements and round trips. */
async function measured(member: Member, path: string, init: { method?: string; body?: unknown } = {}) {
  const trips = roundTripD1(await schoolD1(member.tenantId));
  const counting = countingD1(trips.db);
  const headers: Record<string, string> = { authorization: `Bearer ${member.token}`, "x-tenant-subdomain": member.subdomain };
  if (init.body !== undefined) headers["content-type"] = "application/json";
  const response = await app.request(
    `https://api.lms.localhost/api/v1${path}`,
    { method: init.method ?? "POST", headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) },
    envWith(counting.db),
  );
  await response.arrayBuffer();
  return { status: response.status, statements: counting.counts.prepare, roundTrips: trips.roundTrips() };
}

describe("the school's webhook flag", () => {
  it("is on while the school has an active webhook: creation, disable, re-enable, delete", async () => {
    const { school, admin } = await quizForStudent();
    expect(await schoolFlag(school.id)).toBe(false);
    const first = await hookOf(admin);
    expect(await schoolFlag(school.id)).toBe(true);
    expect((await as(admin, `/t/webhooks/${first.id}`, { method: "PATCH", body: { status: "disabled" } })).status).toBe(200);
    expect(await schoolFlag(school.id)).toBe(false);
    expect((await as(admin, `/t/webhooks/${first.id}`, { method: "PATCH", body: { status: "active" } })).status).toBe(200);
    expect(await schoolFlag(school.id)).toBe(true);
    const second = await hookOf(admin);
    expect((await as(admin, `/t/webhooks/${first.id}`, { method: "DELETE" })).status).toBe(204);
    expect(await schoolFlag(school.id)).toBe(true);
    expect((await as(admin, `/t/webhooks/${second.id}`, { method: "DELETE" })).status).toBe(204);
    expect(await schoolFlag(school.id)).toBe(false);
    expect(failure(await as(admin, `/t/webhooks/${second.id}`, { method: "DELETE" }))).toEqual({ status: 404, error: "webhook_not_found" });
    expect(await schoolFlag(school.id)).toBe(false);
  });
});

describe("the school's webhook flag after an auto-disable", () => {
  it("goes off when 20 failed tries disable the school's last active webhook", async () => {
    const { school, admin } = await schoolWithAdmin();
    const hook = await hookOf(admin);
    for (let i = 0; i < 20; i++) expect((await as(admin, `/t/webhooks/${hook.id}/test`, { method: "POST" })).status).toBe(200);
    await deliverHooks(school.id, receiver([500]).fetch);
    expect((await webhookRow(hook.id))!.status).toBe("disabled");
    expect(await schoolFlag(school.id)).toBe(false);
  });
});

describe("quiz and exam attempts", () => {
  it("a submit writes quiz_attempt.submitted and (nothing to review) quiz_attempt.graded once; a repeated submit none", async () => {
    const { school, admin, student, quiz } = await quizForStudent();
    const hook = await hookOf(admin, { events: ["quiz_attempt.submitted", "quiz_attempt.graded"] });
    const attemptId = await started(student, quiz.id);
    expect((await submit(student, attemptId)).status).toBe(200);
    const data = {
      id: attemptId,
      quiz_id: quiz.id,
      student_id: student.id,
      status: "submitted",
      score: "0.00",
      max_score: "1.00",
      score_pct: "0.00",
      passed: true,
      pending_review: false,
      auto_finalized: false,
      submitted_at: expect.stringMatching(ISO),
    };
    expect(await eventsOf(school.id)).toEqual([
      { type: "quiz_attempt.submitted", data, id: expect.any(String) },
      { type: "quiz_attempt.graded", data, id: expect.any(String) },
    ]);
    const deliveries = await deliveriesOf(school.id);
    expect(deliveries.map((row) => [row.webhookId, row.type, row.status])).toEqual([
      [hook.id, "quiz_attempt.submitted", "pending"],
      [hook.id, "quiz_attempt.graded", "pending"],
    ]);
    await submit(student, attemptId);
    expect(await eventsOf(school.id)).toHaveLength(2);
  });

  it("a grading that clears the last pending answer writes quiz_attempt.graded; the submit before it none", async () => {
    const { school, admin } = await quizForStudent();
    const student = await signedIn(school, { role: "student" });
    const quiz = await insertQuiz(school.id, { questions: [{ type: "free_text", pointsHundredths: 200 }] });
    await giveQuizAccess(school.id, quiz.id, [student.id]);
    await hookOf(admin, { events: ["*"] });
    const [text] = quiz.questions;
    const attemptId = await submittedAttempt(school.id, quiz.id, student.id, [{ questionId: text!.id, payload: { text: "sugar" }, awarded: null }], {
      scoreHundredths: 0,
      maxScoreHundredths: 200,
      scorePctHundredths: 0,
      pendingReview: true,
      passed: null,
    });
    expect((await grade(admin, attemptId, [{ question_id: text!.id, awarded_points: "2" }])).status).toBe(200);
    await grade(admin, attemptId, [{ question_id: text!.id, awarded_points: "2" }]);
    const graded = await eventsOf(school.id, "quiz_attempt.graded");
    expect(graded.map((event) => event.data)).toEqual([expect.objectContaining({ id: attemptId, score: "2.00", score_pct: "100.00", passed: true, pending_review: false })]);
  });

  it("an exam's finish writes exam_attempt.submitted once", async () => {
    const { school, admin, student, exam, quizzes } = await examForStudent({ passingScore: 25 });
    await hookOf(admin, { events: ["exam_attempt.submitted"] });
    const id = await startedExam(student, exam.id);
    await opened(student, id, 0);
    await saveSection(student, id, 0, [single(quizzes[0]!.questions[0]!, true)]);
    expect((await submitExam(student, id)).status).toBe(200);
    expect((await eventsOf(school.id)).map((event) => [event.type, event.data])).toEqual([
      [
        "exam_attempt.submitted",
        { id, exam_id: exam.id, student_id: student.id, status: "submitted", score: "1.00", max_score: "4.00", score_pct: "25.00", passed: true, auto_finalized: false, submitted_at: expect.stringMatching(ISO) },
      ],
    ]);
    await submitExam(student, id);
    expect(await eventsOf(school.id)).toHaveLength(1);
  });

  it("a passed quiz that completes the course writes course.completed once", async () => {
    const { school, admin, student, quiz, tree } = await quizForStudent();
    await hookOf(admin, { events: ["course.completed"] });
    const attemptId = await started(student, quiz.id);
    await as(student, `/t/attempts/${attemptId}/answers`, { method: "POST", body: { answers: [single(quiz.questions[0]!, true)] } });
    expect((await submit(student, attemptId)).status).toBe(200);
    const events = await eventsOf(school.id);
    expect(events.map((event) => [event.type, event.data])).toEqual([
      ["course.completed", { enrollment_id: expect.any(String), course_id: tree.courseId, student_id: student.id, completed_at: expect.stringMatching(ISO) }],
    ]);
  });
});

describe("submissions", () => {
  it("submission.submitted per hand-in and submission.reviewed per verdict; repeats none", async () => {
    const { school, admin, student, assignment } = await submissionSchool();
    await assignmentCourse(school.id, assignment.id, [student.id]);
    await hookOf(admin, { events: ["submission.submitted", "submission.reviewed"] });
    const draft = await draftOf(student, assignment.id);
    expect((await submitSubmission(student, draft.id)).status).toBe(200);
    expect((await submitSubmission(student, draft.id)).status).not.toBe(200);
    const submitted = await eventsOf(school.id, "submission.submitted");
    expect(submitted.map((event) => event.data)).toEqual([
      expect.objectContaining({ id: draft.id, assignment_id: assignment.id, student_id: student.id, status: "submitted", submitted_at: expect.stringMatching(ISO) }),
    ]);
    expect((await review(admin, draft.id, { status: "accepted", score: "8.5", feedback: "Good" })).status).toBe(200);
    await review(admin, draft.id, { status: "accepted", score: "8.5", feedback: "Good" });
    const reviewed = await eventsOf(school.id, "submission.reviewed");
    expect(reviewed.map((event) => event.data)).toEqual([expect.objectContaining({ id: draft.id, status: "accepted", score: "8.50", feedback: "Good", graded_by_id: admin.id })]);
  });
});

describe("enrollments", () => {
  it("one enrollment.created per student given access, one enrollment.removed per removal; repeats none", async () => {
    const { school, admin, tree } = await quizForStudent();
    await hookOf(admin, { events: ["enrollment.created", "enrollment.removed"] });
    const [a, b] = [await signedIn(school, { role: "student" }), await signedIn(school, { role: "student" })];
    expect((await as(admin, `/t/courses/${tree.courseId}/enroll/bulk`, { body: { student_ids: [a.id, b.id] } })).status).toBe(200);
    await as(admin, `/t/courses/${tree.courseId}/enroll/bulk`, { body: { student_ids: [a.id, b.id] } });
    const created = await eventsOf(school.id, "enrollment.created");
    expect(created.map((event) => event.data).sort((x, y) => String(x.student_id).localeCompare(String(y.student_id)))).toEqual(
      [a, b]
        .map((student) => ({ student_id: student.id, course_id: tree.courseId, via: "direct", group_id: null, enrolled_at: expect.stringMatching(ISO) }))
        .sort((x, y) => x.student_id.localeCompare(y.student_id)),
    );
    expect(new Set(created.map((event) => event.id)).size).toBe(2);
    expect(await deliveriesOf(school.id)).toHaveLength(2);
    expect((await as(admin, `/t/courses/${tree.courseId}/enrollments/${a.id}`, { method: "DELETE" })).status).toBe(204);
    await as(admin, `/t/courses/${tree.courseId}/enrollments/${a.id}`, { method: "DELETE" });
    expect((await eventsOf(school.id, "enrollment.removed")).map((event) => event.data)).toEqual([
      { student_id: a.id, course_id: tree.courseId, via: "direct", group_id: null, removed_at: expect.stringMatching(ISO) },
    ]);
  });
});

describe("certificates", () => {
  it("certificate.issued by the completing request and certificate.revoked by the revoke, with the certificate as the API shows it; repeats none", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    const tree = await courseWithStudent(school.id, student, "Physics");
    await putRule(admin, tree.courseId, { enabled: true });
    await hookOf(admin, { events: ["certificate.issued", "certificate.revoked"] });
    expect((await completeBlock(student, tree.blockIds[0]!)).status).toBe(200);
    await completeBlock(student, tree.blockIds[0]!);
    const [issued, ...more] = await eventsOf(school.id, "certificate.issued");
    expect(more).toEqual([]);
    const shown = (await as(admin, `/t/certificates/${issued!.data.id}`)).body.data;
    const { token: _token, pdf_url: _pdf, ...api } = shown;
    expect(issued!.data).toEqual(api);

    expect((await as(admin, `/t/certificates/${api.id}/revoke`, { body: { reason: "Issued by mistake" } })).status).toBe(200);
    expect(failure(await as(admin, `/t/certificates/${api.id}/revoke`, { body: { reason: "again" } }))).toEqual({ status: 409, error: "certificate_already_revoked" });
    const revoked = await eventsOf(school.id, "certificate.revoked");
    const { token: _t, pdf_url: _p, ...after } = (await as(admin, `/t/certificates/${api.id}`)).body.data;
    expect(revoked.map((event) => event.data)).toEqual([after]);
    expect(after).toMatchObject({ status: "revoked", revoke_reason: "Issued by mistake" });
  });
});

describe("roster imports", () => {
  it("import.applied once, with the import as the apply answers it; a second apply is refused and writes none", async () => {
    const { school, admin } = await schoolWithAdmin();
    await hookOf(admin, { events: ["import.applied"] });
    const plan = (await upload(admin, "users", studentsCsv(2))).body.data;
    const res = await applyPlan(admin, plan.id, { plan_hash: plan.plan_hash });
    expect(res.status).toBe(200);
    expect(failure(await applyPlan(admin, plan.id, { plan_hash: plan.plan_hash }))).toEqual({ status: 409, error: "import_already_applied" });
    expect((await eventsOf(school.id)).map((event) => [event.type, event.data])).toEqual([["import.applied", res.body.data]]);
  });
});

describe("statements", () => {
  it("a school without an active webhook writes no outbox statement; one with webhooks adds no round trip", async () => {
    const plain = await quizForStudent();
    const cleared = await quizForStudent();
    const hooked = await quizForStudent();
    const gone = await hookOf(cleared.admin);
    await as(cleared.admin, `/t/webhooks/${gone.id}`, { method: "DELETE" });
    await hookOf(hooked.admin, { events: ["*"] });
    const runs = [];
    for (const setup of [plain, cleared, hooked]) {
      const attemptId = await started(setup.student, setup.quiz.id);
      runs.push(await measured(setup.student, `/t/attempts/${attemptId}/submit`));
    }
    const [none, afterDelete, withHooks] = runs;
    expect(afterDelete).toEqual(none);
    expect(await eventsOf(plain.school.id)).toEqual([]);
    expect(withHooks!.roundTrips).toBe(none!.roundTrips);
    // quiz_attempt.submitted, .graded, and (the quiz passed, the course's one block) course.completed and certificate.issued, and
    // rating.points_changed for the quiz's award and for the completion awards: two statements each.
    expect(withHooks!.statements).toBe(none!.statements + 12);
    expect([...new Set((await eventsOf(hooked.school.id)).map((event) => event.type))].sort()).toEqual([
      "course.completed",
      "quiz_attempt.graded",
      "quiz_attempt.submitted",
      "rating.points_changed",
    ]);
  });
});
