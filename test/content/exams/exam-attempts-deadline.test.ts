import { afterEach, describe, expect, it } from "vitest";
import { setClockForTests } from "../../../src/core/lib/clock";
import { failure } from "../../helpers/http";
import { addPushDevice, outboxRows } from "../../notifications/helpers";
import {
  activeExam,
  answersOf,
  clockTo,
  examAttemptRow,
  examAttemptsOf,
  examForStudent,
  go,
  GRACE_MS,
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
 * The deadline by the server's clock: saves count until `deadline_at` + grace (15 s); after that
 * the first read, lookup, go, save, submit (or the timer's alarm, see exam-timer.test.ts) finishes
 * the attempt with what was saved before: `submitted_at` = `deadline_at`, `auto_finalized` true,
 * #42 to the student.
 */

afterEach(() => setClockForTests(null));

/** A 60-second attempt: A answered right; B answered right (first question) and wrong (second). */
async function timedAttempt(maxAttempts: number | null = null) {
  const setup = await examForStudent({ title: "Quick", timeLimitSeconds: 60, passingScore: 50, maxAttempts });
  await addPushDevice(setup.school.id, setup.student.id);
  const id = await startedExam(setup.student, setup.exam.id);
  await opened(setup.student, id, 0);
  await opened(setup.student, id, 1);
  const [a] = setup.quizzes[0]!.questions;
  const [b1, b2] = setup.quizzes[1]!.questions;
  await saveSection(setup.student, id, 0, [single(a!, true)]);
  await saveSection(setup.student, id, 1, [single(b1!, true)]);
  const deadline = (await examAttemptRow(id)).deadlineAt;
  return { ...setup, id, deadline, b2: b2! };
}

/** Finished by the deadline with the answers saved before it: 1 + 3 × ½ = 2.50 of 4.00. */
async function expectAutoFinished(setup: Awaited<ReturnType<typeof timedAttempt>>) {
  const { id, deadline, school, student } = setup;
  expect(await examAttemptRow(id)).toMatchObject({ status: "submitted", autoFinalized: true, submittedAt: deadline, finalScoreHundredths: 250, finalScorePctHundredths: 6250, passed: true });
  const sections = await sectionQuizAttempts(id);
  expect(sections.map((row) => [row.status, row.autoFinalized, row.submittedAt])).toEqual([
    ["submitted", true, deadline],
    ["submitted", true, deadline],
  ]);
  expect((await Promise.all(sections.map((row) => answersOf(row.id)))).map((rows) => rows.length)).toEqual([1, 1]);
  const pushes = (await outboxRows(school.id)).filter((row) => row.eventCode === "exam.auto_submitted");
  expect(pushes.map((row) => [row.userId, row.dedupeKey])).toEqual([[student.id, `exam.auto_submitted:${id}:${student.id}`]]);
}

describe("the exam's deadline", () => {
  it("the grace's last millisecond: a section save at deadline + 15,000 ms counts; at + 15,001 ms it is 409 and the exam finishes without it", async () => {
    const setup = await timedAttempt();
    const { student, id, deadline, b2 } = setup;
    setClockForTests({ now: () => deadline + 15_000 });
    expect((await saveSection(student, id, 1, [single(b2, false)])).body.data).toMatchObject({ saved: 1, remaining_seconds: 0 });
    expect(await examAttemptRow(id)).toMatchObject({ status: "in_progress" });

    setClockForTests({ now: () => deadline + 15_001 });
    expect(failure(await saveSection(student, id, 1, [single(b2, true)]))).toEqual({ status: 409, error: "exam_attempt_already_submitted" });
    // The wrong answer saved at + 15,000 ms counts (B: 1 of 2); the right one at + 15,001 ms does not.
    expect(await examAttemptRow(id)).toMatchObject({ status: "submitted", autoFinalized: true, submittedAt: deadline, finalScoreHundredths: 250 });
    expect((await Promise.all((await sectionQuizAttempts(id)).map((row) => answersOf(row.id)))).map((rows) => rows.length)).toEqual([1, 2]);
  });

  it("the grace's last millisecond for a submit: at deadline + 15,000 ms on time, at + 15,001 ms auto-finalized", async () => {
    const onTime = await timedAttempt();
    setClockForTests({ now: () => onTime.deadline + 15_000 });
    expect((await submitExam(onTime.student, onTime.id)).body.data).toMatchObject({ status: "submitted", auto_finalized: false, submitted_at: new Date(onTime.deadline).toISOString() });

    setClockForTests(null);
    const late = await timedAttempt();
    setClockForTests({ now: () => late.deadline + 15_001 });
    expect((await submitExam(late.student, late.id)).body.data).toMatchObject({ status: "submitted", auto_finalized: true, submitted_at: new Date(late.deadline).toISOString(), final_score: "2.50" });
    await expectAutoFinished(late);
  });

  it("saves within the grace count; a submit then is on time with submitted_at = deadline_at", async () => {
    const { student, id, deadline, b2 } = await timedAttempt();
    clockTo(deadline, GRACE_MS - 1000);
    const late = await saveSection(student, id, 1, [single(b2, true)]);
    expect(late.body.data).toMatchObject({ saved: 1, remaining_seconds: 0, deadline_at: new Date(deadline).toISOString() });
    const done = await submitExam(student, id);
    expect(done.body.data).toMatchObject({ status: "submitted", auto_finalized: false, submitted_at: new Date(deadline).toISOString(), final_score: "4.00", passed: true });
  });

  it("a save past deadline + grace: 409, the attempt finished with the earlier answers, the late one not kept", async () => {
    const setup = await timedAttempt();
    clockTo(setup.deadline, GRACE_MS + 1000);
    expect(failure(await saveSection(setup.student, setup.id, 1, [single(setup.b2, true)]))).toEqual({ status: 409, error: "exam_attempt_already_submitted" });
    await expectAutoFinished(setup);
    expect(failure(await saveSection(setup.student, setup.id, 1, [single(setup.b2, true)]))).toEqual({ status: 409, error: "exam_attempt_already_submitted" });
  });

  it("a read past deadline + grace finishes the attempt", async () => {
    const setup = await timedAttempt();
    clockTo(setup.deadline, GRACE_MS + 1000);
    const res = await readExamAttempt(setup.student, setup.id);
    expect(res.body.data).toMatchObject({ status: "submitted", auto_finalized: true, submitted_at: new Date(setup.deadline).toISOString(), final_score: "2.50", remaining_seconds: 0 });
    await expectAutoFinished(setup);
  });

  it("the active lookup past deadline + grace finishes the attempt, then 404", async () => {
    const setup = await timedAttempt();
    clockTo(setup.deadline, GRACE_MS + 1000);
    expect(failure(await activeExam(setup.student, setup.exam.id))).toEqual({ status: 404, error: "exam_attempt_not_found" });
    await expectAutoFinished(setup);
  });

  it("a go past deadline + grace: 409 and the attempt finished", async () => {
    const setup = await timedAttempt();
    clockTo(setup.deadline, GRACE_MS + 1000);
    expect(failure(await go(setup.student, setup.id, 0))).toEqual({ status: 409, error: "exam_attempt_already_submitted" });
    await expectAutoFinished(setup);
  });

  it("a submit past deadline + grace: 200 with auto_finalized true", async () => {
    const setup = await timedAttempt();
    clockTo(setup.deadline, GRACE_MS + 1000);
    expect((await submitExam(setup.student, setup.id)).body.data).toMatchObject({ status: "submitted", auto_finalized: true, final_score: "2.50" });
    await expectAutoFinished(setup);
    expect(failure(await submitExam(setup.student, setup.id))).toEqual({ status: 409, error: "exam_attempt_already_submitted" });
  });

  it("a start finding the caller's attempt past its time finishes it, then starts the next one (or 409 when none is left)", async () => {
    const setup = await timedAttempt(2);
    clockTo(setup.deadline, GRACE_MS + 1000);
    const next = await startExam(setup.student, setup.exam.id);
    expect(next.status).toBe(201);
    expect(next.body.data.id).not.toBe(setup.id);
    await expectAutoFinished(setup);

    const limited = await timedAttempt(1);
    clockTo(limited.deadline, GRACE_MS + 1000);
    expect(failure(await startExam(limited.student, limited.exam.id))).toEqual({ status: 409, error: "max_exam_attempts_reached" });
    await expectAutoFinished(limited);
    expect(await examAttemptsOf(limited.exam.id)).toHaveLength(1);
  });
});
