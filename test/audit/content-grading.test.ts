import { describe, expect, it } from "vitest";
import { createUser } from "../helpers/factories";
import { failure } from "../helpers/http";
import { insertQuiz } from "../helpers/quizzes";
import { curatorWith, schoolWithAdmin, signedIn } from "../helpers/users";
import { grade, submittedAttempt } from "../content/attempts/grading-helpers";
import { auditRows, byCall } from "./content-helpers";

/** A quiz of two questions (1.00 and 2.00 points) and a student's attempt waiting for the second one's review. */
async function gradingSchool() {
  const { school, admin } = await schoolWithAdmin();
  const student = await createUser(school.id, { role: "student" });
  const quiz = await insertQuiz(school.id, { questions: [{ type: "single" }, { type: "free_text", pointsHundredths: 200 }] });
  const [choice, text] = quiz.questions;
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
  return { school, admin, choice: choice!, text: text!, attemptId };
}

describe("audit entries of quiz gradings", () => {
  it("records the answers it changed and the attempt's score, percentage, pass and pending review before and after", async () => {
    const { school, admin, text, attemptId } = await gradingSchool();
    const res = await grade(admin, attemptId, [{ question_id: text.id, awarded_points: "1.5", feedback: "Half right" }]);
    expect(res.status).toBe(200);
    const after = res.body.data;
    expect(after).toMatchObject({ score: "1.50", pending_review: false });
    expect(await auditRows(school.id)).toEqual([
      {
        ...(await byCall(admin, res)),
        action: "quiz_attempt.graded",
        target_type: "quiz_attempt",
        target_id: attemptId,
        summary: "Quiz attempt graded",
        changes: {
          answers: [
            [{ question_id: text.id, awarded_points: null, feedback: null }],
            [{ question_id: text.id, awarded_points: "1.50", feedback: "Half right" }],
          ],
          score: ["0.00", "1.50"],
          score_pct: ["0.00", after.score_pct],
          ...(after.passed === null ? {} : { passed: [null, after.passed] }),
          pending_review: [true, false],
        },
      },
    ]);
  });

  it("a regrade records only what changed; the same grades again change nothing and write nothing", async () => {
    const { school, admin, choice, text, attemptId } = await gradingSchool();
    const body = [{ question_id: text.id, awarded_points: "2" }];
    expect((await grade(admin, attemptId, body)).status).toBe(200);
    expect((await grade(admin, attemptId, body)).status).toBe(200);
    expect(await auditRows(school.id)).toHaveLength(1);
    // Feedback left out keeps the stored one; the untouched question is not listed.
    const res = await grade(admin, attemptId, [
      { question_id: text.id, awarded_points: "2", feedback: "Good" },
      { question_id: choice.id, awarded_points: "0" },
    ]);
    expect(res.status).toBe(200);
    const rows = await auditRows(school.id);
    expect(rows).toHaveLength(2);
    expect(rows[1]!.changes).toEqual({
      answers: [
        [{ question_id: text.id, awarded_points: "2.00", feedback: null }, { question_id: choice.id, awarded_points: "0.00", feedback: null }],
        [{ question_id: text.id, awarded_points: "2.00", feedback: "Good" }, { question_id: choice.id, awarded_points: "0.00", feedback: null }],
      ],
    });
  });

  it("refused gradings write nothing: out of range, unknown question, no permission, another school's attempt", async () => {
    const { school, admin, text, attemptId } = await gradingSchool();
    const other = await schoolWithAdmin();
    const curator = await signedIn(school, curatorWith({ can_manage_courses: true }));
    expect(failure(await grade(admin, attemptId, [{ question_id: text.id, awarded_points: "2.01" }]))).toEqual({ status: 400, error: "points_out_of_range" });
    expect(failure(await grade(admin, attemptId, [{ question_id: other.admin.id, awarded_points: "1" }]))).toEqual({ status: 400, error: "question_not_in_quiz" });
    expect(failure(await grade(curator, attemptId, [{ question_id: text.id, awarded_points: "1" }]))).toEqual({ status: 403, error: "forbidden" });
    expect(failure(await grade(other.admin, attemptId, [{ question_id: text.id, awarded_points: "1" }]))).toEqual({ status: 404, error: "attempt_not_found" });
    expect(await auditRows(school.id)).toEqual([]);
    expect(await auditRows(other.school.id)).toEqual([]);
  });
});
