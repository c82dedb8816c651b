import { describe, expect, it } from "vitest";
import { ISO } from "../../helpers/courses";
import { superadmin } from "../../helpers/billing";
import { api, failure } from "../../helpers/http";
import { giveQuizAccess, insertAttempt, insertQuiz } from "../../helpers/quizzes";
import { signedIn } from "../../helpers/users";
import { answerRows, attemptRow, quizForStudent, read, save, start, started, submit, tokenFor } from "./helpers";

/**
 * The student flow through HTTP: start, save, read, submit, with the attempt's exact shape at each
 * step and the score the server computes.
 */

describe("quiz attempts: the student flow", () => {
  it("start → save → read → submit: the attempt at each step", async () => {
    const { school, student, quiz } = await quizForStudent({
      timeLimitSeconds: 600,
      passingScore: 50,
      defaultScoringMode: "partial",
      questions: [
        { type: "single", pointsHundredths: 150 },
        {
          type: "multiple",
          answers: [{ text: "a", isCorrect: true }, { text: "b", isCorrect: true }, { text: "c", isCorrect: true }, { text: "d" }],
        },
        { type: "matching", pointsHundredths: 200 },
        { type: "free_text", correctText: ["Paris"] },
      ],
    });
    const [single, multiple, matching, freeText] = quiz.questions;

    const begun = await start(student, quiz.id);
    expect(begun.status).toBe(201);
    const attempt = begun.body.data;
    expect(attempt).toEqual({
      id: expect.any(String),
      quiz_id: quiz.id,
      user_id: student.id,
      status: "in_progress",
      actor_role: "student",
      score: null,
      max_score: "5.50",
      score_pct: null,
      passed: null,
      pending_review: false,
      started_at: expect.stringMatching(ISO),
      deadline_at: expect.stringMatching(ISO),
      time_limit_seconds: 600,
      submitted_at: null,
      auto_finalized: false,
      server_now: expect.stringMatching(ISO),
      remaining_seconds: 600,
    });
    expect(Date.parse(attempt.deadline_at) - Date.parse(attempt.started_at)).toBe(600_000);

    const right = await tokenFor(school.id, matching!.id, matching!.matchIds[0]!);
    const crossed = await tokenFor(school.id, matching!.id, matching!.matchIds[0]!);
    const saved = await save(student, attempt.id, [
      { question_id: single!.id, payload: { selected_answer_id: single!.answerIds[0] } },
      { question_id: multiple!.id, payload: { answer_ids: multiple!.answerIds.slice(0, 2) }, client_seq: 1 },
      { question_id: matching!.id, payload: { pairs: [{ left_id: matching!.matchIds[0], right_id: right }, { left_id: matching!.matchIds[1], right_id: crossed }] } },
      { question_id: freeText!.id, payload: { text: "Lyon" } },
    ]);
    expect(saved.status).toBe(200);
    expect(saved.body.data).toEqual({ saved: 4, ignored: 0, server_now: expect.stringMatching(ISO), remaining_seconds: expect.any(Number) });

    // In progress: the saved answers as sent, verdicts hidden.
    const during = (await read(student, attempt.id)).body.data;
    expect(during).toMatchObject({ status: "in_progress", score: null, max_score: "5.50" });
    expect(during.saved_answers).toEqual([
      { question_id: single!.id, payload: { selected_answer_id: single!.answerIds[0] }, awarded_points: "0.00", is_correct: false },
      { question_id: multiple!.id, payload: { answer_ids: multiple!.answerIds.slice(0, 2) }, awarded_points: "0.00", is_correct: false },
      { question_id: matching!.id, payload: { pairs: [{ left_id: matching!.matchIds[0], right_id: right }, { left_id: matching!.matchIds[1], right_id: crossed }] }, awarded_points: "0.00", is_correct: false },
      { question_id: freeText!.id, payload: { text: "Lyon" }, awarded_points: "0.00", is_correct: false },
    ]);
    expect(await answerRows(attempt.id)).toEqual([]);

    // The body of a submit is ignored, a client-sent score included.
    const done = await submit(student, attempt.id, { score: "100.00", answers: [] });
    expect(done.status).toBe(200);
    // 1.50 + 0.67 (2 of 3, partial) + 1.00 (1 of 2 pairs, partial) + pending = 3.17 of 5.50 = 57.64 %.
    expect(done.body.data).toEqual({
      ...attempt,
      status: "submitted",
      score: "3.17",
      max_score: "5.50",
      score_pct: "57.64",
      passed: null,
      pending_review: true,
      submitted_at: expect.stringMatching(ISO),
      server_now: expect.stringMatching(ISO),
      time_limit_seconds: 600,
      remaining_seconds: 0,
      saved_answers: [
        { question_id: single!.id, payload: { selected_answer_id: single!.answerIds[0] }, awarded_points: "1.50", is_correct: true, feedback: null },
        { question_id: multiple!.id, payload: { answer_ids: multiple!.answerIds.slice(0, 2) }, awarded_points: "0.67", is_correct: false, feedback: null },
        {
          question_id: matching!.id,
          // Once scored, the right sides are kept as their row ids.
          payload: { pairs: [{ left_id: matching!.matchIds[0], right_id: matching!.matchIds[0] }, { left_id: matching!.matchIds[1], right_id: matching!.matchIds[0] }] },
          awarded_points: "1.00",
          is_correct: false,
          feedback: null,
        },
        { question_id: freeText!.id, payload: { text: "Lyon" }, awarded_points: null, is_correct: null, feedback: null },
      ],
    });
    expect(await read(student, attempt.id)).toMatchObject({ status: 200, body: { data: { ...done.body.data, server_now: expect.any(String) } } });
    expect(await attemptRow(attempt.id)).toMatchObject({ status: "submitted", scoreHundredths: 317, maxScoreHundredths: 550, scorePctHundredths: 5764, pendingReview: true, passed: null });
    expect(await answerRows(attempt.id)).toHaveLength(4);

    expect(failure(await submit(student, attempt.id))).toEqual({ status: 409, error: "attempt_already_submitted" });
    expect(failure(await save(student, attempt.id, [{ question_id: single!.id, payload: { answer_ids: [] } }]))).toEqual({ status: 409, error: "attempt_already_submitted" });
  });

  it("an untimed attempt: no deadline, remaining_seconds null; submitting nothing scores 0 and passes without a passing score", async () => {
    const { student, quiz } = await quizForStudent({ questions: [{ type: "single" }, { type: "multiple" }] });
    const id = await started(student, quiz.id);
    expect((await read(student, id)).body.data).toMatchObject({ deadline_at: null, remaining_seconds: null, max_score: "2.00" });
    const done = await submit(student, id);
    expect(done.body.data).toMatchObject({ score: "0.00", max_score: "2.00", score_pct: "0.00", passed: true, pending_review: false, remaining_seconds: null, auto_finalized: false });
    expect(done.body.data).not.toHaveProperty("saved_answers");
  });

  it("a second start answers the attempt in progress (200); after submitting, a new one (201)", async () => {
    const { student, quiz } = await quizForStudent();
    const first = await start(student, quiz.id);
    const again = await start(student, quiz.id);
    expect([first.status, again.status]).toEqual([201, 200]);
    expect(again.body.data.id).toBe(first.body.data.id);
    await submit(student, first.body.data.id);
    const next = await start(student, quiz.id);
    expect(next.status).toBe(201);
    expect(next.body.data.id).not.toBe(first.body.data.id);
  });

  it("staff start any quiz of the school, their role stored as actor_role", async () => {
    const { school, admin, quiz } = await quizForStudent();
    const curator = await signedIn(school, { role: "curator" });
    const unreferenced = await insertQuiz(school.id, { questions: [{ type: "single" }] });
    for (const [member, role] of [[admin, "admin"], [curator, "curator"]] as const) {
      for (const id of [quiz.id, unreferenced.id]) {
        const res = await start(member, id);
        expect(res.status).toBe(201);
        expect(res.body.data).toMatchObject({ actor_role: role, user_id: member.id });
      }
    }
  });

  it("400 invalid_actor_role: the superadmin acting on the school is no member who can take a quiz", async () => {
    const { school, quiz } = await quizForStudent();
    const platform = await superadmin();
    const res = await api("/t/attempts", { method: "POST", token: platform.token, tenant: school.subdomain, body: { quiz_id: quiz.id } });
    expect(failure(res)).toEqual({ status: 400, error: "invalid_actor_role" });
  });

  it("404 quiz_not_found: unknown, deleted, another school's, or not reachable by the student", async () => {
    const { school, student, quiz } = await quizForStudent();
    const other = await quizForStudent();
    const deleted = await insertQuiz(school.id, { deleted: true, questions: [{ type: "single" }] });
    await giveQuizAccess(school.id, deleted.id, [student.id]);
    const unreachable = await insertQuiz(school.id, { questions: [{ type: "single" }] });
    const draft = await insertQuiz(school.id, { questions: [{ type: "single" }] });
    await giveQuizAccess(school.id, draft.id, [student.id], { status: "draft" });
    for (const id of [other.quiz.id, deleted.id, unreachable.id, draft.id, "0190d0a4-5b6c-7d8e-9f00-112233445566"]) {
      expect(failure(await start(student, id))).toEqual({ status: 404, error: "quiz_not_found" });
    }
    expect((await start(student, quiz.id)).status).toBe(201);
  });

  it("400 invalid_request_body on a start without a quiz id", async () => {
    const { student } = await quizForStudent();
    expect(failure(await start(student, "nope"))).toEqual({ status: 400, error: "invalid_request_body" });
  });

  it("409 max_attempts_reached once every attempt is used", async () => {
    const { school, student, quiz } = await quizForStudent({ maxAttempts: 2, questions: [{ type: "single" }] });
    await insertAttempt(school.id, quiz.id, student.id);
    const id = await started(student, quiz.id);
    await submit(student, id);
    expect(failure(await start(student, quiz.id))).toEqual({ status: 409, error: "max_attempts_reached" });
    // Attempts inside exam sections do not count.
    const open = await quizForStudent({ maxAttempts: 1, questions: [{ type: "single" }] });
    await insertAttempt(open.school.id, open.quiz.id, open.student.id, { examAttemptId: "0190d0a4-5b6c-7d8e-9f00-112233445566" });
    expect((await start(open.student, open.quiz.id)).status).toBe(201);
  });
});
