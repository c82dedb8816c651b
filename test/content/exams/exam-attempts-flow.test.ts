import { afterEach, describe, expect, it } from "vitest";
import { setClockForTests } from "../../../src/core/lib/clock";
import { ISO } from "../../helpers/courses";
import { failure } from "../../helpers/http";
import { unknownId } from "../../helpers/users";
import {
  answersOf,
  examAttemptRow,
  examForStudent,
  go,
  moveClock,
  opened,
  readExamAttempt,
  saveSection,
  sectionQuizAttempts,
  single,
  startExam,
  startedExam,
  submitExam,
} from "./attempt-helpers";

/**
 * Taking an exam through HTTP: start, open sections in any order, save their answers, submit;
 * the weighted final score, the attempt's JSON in progress and finished, server time in every
 * response.
 */

afterEach(() => setClockForTests(null));

describe("taking an exam", () => {
  it("start → go → save → submit: the weighted final score, every section's figures, server time throughout", async () => {
    const { student, exam, quizzes } = await examForStudent({ timeLimitSeconds: 1800, passingScore: 60 });
    const started = await startExam(student, exam.id);
    expect(started.status).toBe(201);
    const id = started.body.data.id as string;
    const row = await examAttemptRow(id);
    expect(row.deadlineAt - row.startedAt).toBe(1_800_000);
    expect(started.body.data).toEqual({
      id,
      exam_id: exam.id,
      user_id: student.id,
      status: "in_progress",
      actor_role: "student",
      started_at: new Date(row.startedAt).toISOString(),
      deadline_at: new Date(row.deadlineAt).toISOString(),
      time_limit_seconds: 1800,
      submitted_at: null,
      auto_finalized: false,
      section_attempts: [],
      final_score: null,
      final_max_score: null,
      final_score_pct: null,
      passed: null,
      server_now: expect.stringMatching(ISO),
      remaining_seconds: expect.any(Number),
    });
    expect(started.body.data.remaining_seconds).toBeGreaterThan(1790);
    expect(started.body.data.remaining_seconds).toBeLessThanOrEqual(1800);

    // Sections in any order: B first.
    const b = await opened(student, id, 1);
    expect(b.section).toEqual({ id: exam.sectionIds[1], title: "B", position: 1 });
    expect(b.deadline_at).toBe(new Date(row.deadlineAt).toISOString());
    expect(b.quiz.id).toBe(quizzes[1]!.id);
    expect(b.quiz.questions.map((q: { id: string }) => q.id)).toEqual(quizzes[1]!.questions.map((q) => q.id));
    expect(b.quiz.questions[0]).not.toHaveProperty("is_correct");
    expect(b.quiz).not.toHaveProperty("default_scoring_mode");
    expect(b).toMatchObject({ server_now: expect.stringMatching(ISO), remaining_seconds: expect.any(Number) });
    const [b1, b2] = quizzes[1]!.questions;
    const saved = await saveSection(student, id, 1, [single(b1!, true), single(b2!, false)]);
    expect(saved.body.data).toEqual({
      saved: 2,
      ignored: 0,
      section_index: 1,
      server_now: expect.stringMatching(ISO),
      deadline_at: new Date(row.deadlineAt).toISOString(),
      remaining_seconds: expect.any(Number),
    });

    await opened(student, id, 0);
    await saveSection(student, id, 0, [single(quizzes[0]!.questions[0]!, true)]);
    // Back to B (free navigation): the same quiz attempt, the answers kept.
    await opened(student, id, 1);
    const quizAttempts = await sectionQuizAttempts(id);
    expect(quizAttempts).toHaveLength(2);
    expect(quizAttempts.every((attempt) => attempt.deadlineAt === row.deadlineAt && attempt.status === "in_progress" && attempt.actorRole === "student")).toBe(true);

    const during = await readExamAttempt(student, id);
    expect(during.body.data.section_attempts.map((s: { exam_section_id: string; position: number }) => [s.exam_section_id, s.position])).toEqual([
      [exam.sectionIds[0], 0],
      [exam.sectionIds[1], 1],
    ]);
    expect(during.body.data).not.toHaveProperty("sections");

    // A score sent by the client is ignored.
    const done = await submitExam(student, id, { final_score: "4.00", passed: true });
    expect(done.status).toBe(200);
    expect(done.body.data).toMatchObject({
      status: "submitted",
      auto_finalized: false,
      final_score: "2.50",
      final_max_score: "4.00",
      final_score_pct: "62.50",
      passed: true,
      remaining_seconds: 0,
      server_now: expect.stringMatching(ISO),
    });
    expect(done.body.data.sections).toEqual([
      { section_id: exam.sectionIds[0], title: "A", weight: 1, score: "1.00", max_score: "1.00", score_pct: "100.00" },
      { section_id: exam.sectionIds[1], title: "B", weight: 3, score: "1.50", max_score: "3.00", score_pct: "50.00" },
    ]);
    const finished = await examAttemptRow(id);
    expect(finished).toMatchObject({ status: "submitted", finalScoreHundredths: 250, finalMaxHundredths: 400, finalScorePctHundredths: 6250, passed: true, autoFinalized: false });
    expect(finished.submittedAt).toBeGreaterThanOrEqual(finished.startedAt);
    // The sections' quiz attempts are scored through the quizzes' finalize, their answers stored.
    const sections = await sectionQuizAttempts(id);
    expect(sections.map((attempt) => [attempt.quizId, attempt.status, attempt.scoreHundredths, attempt.maxScoreHundredths]).sort()).toEqual(
      [
        [quizzes[0]!.id, "submitted", 100, 100],
        [quizzes[1]!.id, "submitted", 100, 200],
      ].sort(),
    );
    expect((await Promise.all(sections.map((attempt) => answersOf(attempt.id)))).map((rows) => rows.length).sort()).toEqual([1, 2]);

    expect((await readExamAttempt(student, id)).body.data).toEqual({ ...done.body.data, server_now: expect.stringMatching(ISO) });
    expect(failure(await submitExam(student, id))).toEqual({ status: 409, error: "exam_attempt_already_submitted" });
    expect(failure(await go(student, id, 0))).toEqual({ status: 409, error: "exam_attempt_already_submitted" });
    expect(failure(await saveSection(student, id, 0, [single(quizzes[0]!.questions[0]!, false)]))).toEqual({ status: 409, error: "exam_attempt_already_submitted" });
  });

  it("a section never opened counts 0; a submit with nothing opened scores 0 of the weights", async () => {
    const { student, exam, quizzes } = await examForStudent({ passingScore: 25 });
    const id = await startedExam(student, exam.id);
    await opened(student, id, 0);
    await saveSection(student, id, 0, [single(quizzes[0]!.questions[0]!, true)]);
    const done = await submitExam(student, id);
    expect(done.body.data).toMatchObject({ final_score: "1.00", final_max_score: "4.00", final_score_pct: "25.00", passed: true });
    expect(done.body.data.sections[1]).toEqual({ section_id: exam.sectionIds[1], title: "B", weight: 3, score: "0.00", max_score: "3.00", score_pct: "0.00" });

    const other = await examForStudent();
    const empty = await startedExam(other.student, other.exam.id);
    expect((await submitExam(other.student, empty)).body.data).toMatchObject({ final_score: "0.00", final_max_score: "4.00", final_score_pct: "0.00", passed: true, section_attempts: [] });
  });

  it("the student's clock is irrelevant: every response carries the server's time, and the deadline follows it", async () => {
    const { student, exam } = await examForStudent({ timeLimitSeconds: 1200 });
    const id = await startedExam(student, exam.id);
    const row = await examAttemptRow(id);
    // The server's clock runs 10 minutes ahead of the real one; the client sends nothing about time.
    moveClock(600_000);
    const read = await readExamAttempt(student, id);
    const serverNow = Date.parse(read.body.data.server_now);
    expect(serverNow - Date.now()).toBeGreaterThan(590_000);
    expect(read.body.data.remaining_seconds).toBe(Math.ceil((row.deadlineAt - serverNow) / 1000));
    expect(read.body.data.remaining_seconds).toBeLessThanOrEqual(600);
    const section = await opened(student, id, 0);
    expect(section.remaining_seconds).toBeLessThanOrEqual(600);
    expect(Date.parse(section.server_now) - Date.now()).toBeGreaterThan(590_000);
  });

  it("a staff member takes the exam as themselves: actor_role admin, the quiz in the student view", async () => {
    const { admin, exam } = await examForStudent();
    const started = await startExam(admin, exam.id);
    expect(started.status).toBe(201);
    expect(started.body.data.actor_role).toBe("admin");
    const section = await opened(admin, started.body.data.id, 0);
    expect(section.quiz).not.toHaveProperty("default_scoring_mode");
    expect(section.quiz.questions[0]).not.toHaveProperty("is_correct");
  });

  it("unknown attempts are 404 for every verb", async () => {
    const { student } = await examForStudent();
    const id = unknownId();
    expect(failure(await readExamAttempt(student, id))).toEqual({ status: 404, error: "exam_attempt_not_found" });
    expect(failure(await go(student, id, 0))).toEqual({ status: 404, error: "exam_attempt_not_found" });
    expect(failure(await saveSection(student, id, 0, [{ question_id: unknownId(), payload: { answer_ids: [] } }]))).toEqual({ status: 404, error: "exam_attempt_not_found" });
    expect(failure(await submitExam(student, id))).toEqual({ status: 404, error: "exam_attempt_not_found" });
  });
});
