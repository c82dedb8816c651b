import { describe, expect, it } from "vitest";
import { app } from "../../../src/app";
import { roundTripD1 } from "../../helpers/d1-counter";
import { createSchool, createUser } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { insertAttempt, insertQuiz } from "../../helpers/quizzes";
import { addGroupCurator, addMember, as, assignIndividualCurator, createGroup, curatorWith, schoolWithAdmin, signedIn, unknownId } from "../../helpers/users";
import { answerRow, attemptRow, grade, submittedAttempt } from "./grading-helpers";
import { schoolD1 } from "../../helpers/databases";
import { envWith } from "../../helpers/wrapped-d1";

/** A quiz of two questions (1.00 and 2.00 points) and a student's attempt waiting for the second one's review. */
async function gradingSchool() {
  const { school, admin } = await schoolWithAdmin();
  const student = await createUser(school.id, { role: "student" });
  const quiz = await insertQuiz(school.id, { questions: [{ type: "single" }, { type: "free_text", pointsHundredths: 200 }, { type: "free_text", deleted: true }] });
  const [choice, text, deleted] = quiz.questions;
  const attemptId = await submittedAttempt(
    school.id,
    quiz.id,
    student.id,
    [
      { questionId: choice!.id, payload: { answer_ids: [choice!.answerIds[1]] }, awarded: 0 },
      { questionId: text!.id, payload: { text: "maybe" }, awarded: null },
    ],
    { scoreHundredths: 0, maxScoreHundredths: 300, scorePctHundredths: 0, pendingReview: true, passed: null },
  );
  return { school, admin, student, quiz, choice: choice!, text: text!, deleted: deleted!, attemptId };
}

describe("POST /t/attempts/:id/grade: refusals", () => {
  it("400 invalid_request_body for a malformed body", async () => {
    const { admin, text, attemptId } = await gradingSchool();
    const ok = { question_id: text.id, awarded_points: "1.00" };
    const bodies: unknown[] = [
      {},
      { grades: [] },
      { grades: Array.from({ length: 201 }, () => ok) },
      { grades: "all" },
      { grades: [ok], extra: true },
      { grades: [{ ...ok, awarded_points: "abc" }] },
      { grades: [{ ...ok, awarded_points: "1.234" }] },
      { grades: [{ ...ok, awarded_points: null }] },
      { grades: [{ question_id: text.id }] },
      { grades: [{ ...ok, question_id: "not-a-uuid" }] },
      { grades: [{ ...ok, feedback: "x".repeat(2001) }] },
      { grades: [{ ...ok, feedback: 5 }] },
      { grades: [{ ...ok, score: 1 }] },
      { grades: [ok, { ...ok, awarded_points: "2.00" }] },
    ];
    for (const body of bodies) {
      const res = await as(admin, `/t/attempts/${attemptId}/grade`, { body });
      expect({ body: JSON.stringify(body).slice(0, 80), ...failure(res) }).toEqual({ body: JSON.stringify(body).slice(0, 80), status: 400, error: "invalid_request_body" });
    }
    const raw = await as(admin, `/t/attempts/${attemptId}/grade`, { method: "POST", raw: "{not json" });
    expect(failure(raw)).toEqual({ status: 400, error: "invalid_request_body" });
    // A feedback of exactly 2000 characters is fine.
    expect((await grade(admin, attemptId, [{ ...ok, feedback: "x".repeat(2000) }])).status).toBe(200);
  });

  it("400 question_not_in_quiz for a question of another quiz, an unknown one or a deleted one the attempt did not answer; nothing is written", async () => {
    const { school, admin, text, deleted, attemptId } = await gradingSchool();
    const other = await insertQuiz(school.id, { questions: [{ type: "free_text" }] });
    for (const questionId of [other.questions[0]!.id, unknownId(), deleted.id]) {
      const res = await grade(admin, attemptId, [
        { question_id: text.id, awarded_points: "2" },
        { question_id: questionId, awarded_points: "0" },
      ]);
      expect(failure(res)).toEqual({ status: 400, error: "question_not_in_quiz" });
    }
    expect(await answerRow(attemptId, text.id)).toMatchObject({ awardedHundredths: null, gradedBy: null });
    expect(await attemptRow(attemptId)).toMatchObject({ pendingReview: true, passed: null });
  });

  it("400 points_out_of_range below 0 or above the question's points", async () => {
    const { admin, choice, text, attemptId } = await gradingSchool();
    for (const [questionId, points] of [
      [text.id, "2.01"],
      [text.id, "-0.01"],
      [choice.id, 2],
      [choice.id, "-1"],
    ] as const) {
      const res = await grade(admin, attemptId, [{ question_id: questionId, awarded_points: points }]);
      expect({ points, ...failure(res) }).toEqual({ points, status: 400, error: "points_out_of_range" });
    }
    expect((await grade(admin, attemptId, [{ question_id: text.id, awarded_points: "2.00" }, { question_id: choice.id, awarded_points: 0 }])).status).toBe(200);
  });

  it("404 attempt_not_found for an unknown attempt, another school's, or one outside a restricted curator's students", async () => {
    const { school, admin, student, text, attemptId } = await gradingSchool();
    const body = [{ question_id: text.id, awarded_points: "1" }];
    const foreignSchool = await createSchool();
    const foreignQuiz = await insertQuiz(foreignSchool.id, { questions: [{ type: "free_text" }] });
    const foreignAttempt = await submittedAttempt(foreignSchool.id, foreignQuiz.id, (await createUser(foreignSchool.id, { role: "student" })).id, [], {});
    for (const id of [unknownId(), foreignAttempt]) {
      expect(failure(await grade(admin, id, body))).toEqual({ status: 404, error: "attempt_not_found" });
    }

    const restricted = await signedIn(school, curatorWith({ can_view_analytics: true }));
    expect(failure(await grade(restricted, attemptId, body))).toEqual({ status: 404, error: "attempt_not_found" });
    // Their own students, individually or through a group they curate, are in reach.
    await assignIndividualCurator(student.id, restricted.id);
    expect((await grade(restricted, attemptId, body)).body.data).toMatchObject({ score: "1.00", pending_review: false });
    const grouped = await createUser(school.id, { role: "student" });
    const groupedAttempt = await submittedAttempt(school.id, (await insertQuiz(school.id)).id, grouped.id, [], {});
    expect(failure(await grade(restricted, groupedAttempt, [{ question_id: unknownId(), awarded_points: "0" }]))).toEqual({ status: 404, error: "attempt_not_found" });
    const group = await createGroup(school.id);
    await addMember(group, grouped.id);
    await addGroupCurator(group, restricted.id);
    expect(failure(await grade(restricted, groupedAttempt, [{ question_id: unknownId(), awarded_points: "0" }]))).toEqual({ status: 400, error: "question_not_in_quiz" });
    // A curator with manage_groups reaches every attempt of the school.
    const manager = await signedIn(school, curatorWith({ can_view_analytics: true, can_manage_groups: true }));
    expect((await grade(manager, attemptId, body)).status).toBe(200);
  });

  it("409 attempt_not_submitted for an attempt in progress", async () => {
    const { school, admin, student, quiz, text } = await gradingSchool();
    const running = await insertAttempt(school.id, quiz.id, student.id, { status: "in_progress" });
    expect(failure(await grade(admin, running, [{ question_id: text.id, awarded_points: "1" }]))).toEqual({ status: 409, error: "attempt_not_submitted" });
  });

  it("400 invalid_id_format for a bad id; students and curators without view_analytics are refused", async () => {
    const { school, admin, text, attemptId } = await gradingSchool();
    const body = [{ question_id: text.id, awarded_points: "1" }];
    expect(failure(await grade(admin, "not-a-uuid", body))).toEqual({ status: 400, error: "invalid_id_format" });
    const student = await signedIn(school, { role: "student" });
    const curator = await signedIn(school, curatorWith({ can_manage_courses: true, can_manage_groups: true }));
    expect(failure(await grade(student, attemptId, body))).toEqual({ status: 403, error: "forbidden" });
    expect(failure(await grade(curator, attemptId, body))).toEqual({ status: 403, error: "forbidden" });
  });

  it("a grading is the guard's query, one read batch, settling's reads and one write batch", async () => {
    const { admin, text, attemptId } = await gradingSchool();
    const counter = roundTripD1(await schoolD1(admin.tenantId));
    const response = await app.request(
      `https://api.lms.localhost/api/v1/t/attempts/${attemptId}/grade`,
      {
        method: "POST",
        headers: { authorization: `Bearer ${admin.token}`, "x-tenant-subdomain": admin.subdomain, "content-type": "application/json" },
        body: JSON.stringify({ grades: [{ question_id: text.id, awarded_points: "2" }] }),
      },
      envWith(counter.db),
    );
    expect(response.status).toBe(200);
    await response.arrayBuffer();
    expect(counter.roundTrips()).toBe(4);
  });
});
