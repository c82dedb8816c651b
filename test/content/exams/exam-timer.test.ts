import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ExamAttemptTimer } from "../../../durable-objects/exam-attempt-timer";
import { sendTimeWarning } from "../../../src/content/exams/exam-events";
import { jobContext } from "../../../src/contributors";
import type { Env } from "../../../src/core/env";
import { setClockForTests } from "../../../src/core/lib/clock";
import { alarmWithD1, barrierD1, requestWithD1 } from "../../helpers/d1-barrier";
import { failure } from "../../helpers/http";
import { assignIndividualCurator, signedIn, type Member } from "../../helpers/users";
import { addPushDevice, outboxRows } from "../../notifications/helpers";
import {
  answersOf,
  clockTo,
  examAttemptRow,
  examForStudent,
  GRACE_MS,
  opened,
  readExamAttempt,
  saveSection,
  sectionQuizAttempts,
  single,
  startedExam,
  submitExam,
  timerStub,
  type ExamSetup,
} from "./attempt-helpers";
import { schoolD1 } from "../../helpers/databases";

/**
 * The ExamAttemptTimer through its own methods and alarms: the warning 5 minutes before the
 * deadline (once; never for 10-minute exams), the finish at deadline + grace with no client
 * connected (once, however many times the alarm runs, and once when a submit races it), the
 * retry of a close whose D1 write never happened.
 */

afterEach(() => {
  setClockForTests(null);
  vi.restoreAllMocks();
});

const examEvents = async (tenantId: string) => (await outboxRows(tenantId)).filter((row) => row.eventCode.startsWith("exam."));
const alarmOf = (id: string) => runInDurableObject(timerStub(id), (_instance: ExamAttemptTimer, state) => state.storage.getAlarm());

/**
 * A student's attempt with one right answer saved in section A, a curator and push devices for both.
 * 11 minutes by default: warned, and short enough that HTTP calls past its deadline still carry a
 * valid access token (15 minutes).
 */
async function attemptInProgress(timeLimitSeconds = 660): Promise<ExamSetup & { id: string; deadline: number; curatorId: string; curator: Member }> {
  const setup = await examForStudent({ title: "Timed exam", timeLimitSeconds, passingScore: 50 });
  const curator = await signedIn(setup.school, { role: "curator" });
  await assignIndividualCurator(setup.student.id, curator.id);
  await addPushDevice(setup.school.id, setup.student.id);
  await addPushDevice(setup.school.id, curator.id);
  const id = await startedExam(setup.student, setup.exam.id);
  await opened(setup.student, id, 0);
  await saveSection(setup.student, id, 0, [single(setup.quizzes[0]!.questions[0]!, true)]);
  return { ...setup, id, deadline: (await examAttemptRow(id)).deadlineAt, curatorId: curator.id, curator };
}

/** One finish: the row auto-finalized with A's answer (1 of weight 1, B never opened: 1.00 of 4.00), one set of section rows. */
async function expectFinishedOnce(setup: Awaited<ReturnType<typeof attemptInProgress>>) {
  const { school, student, id, deadline, curatorId } = setup;
  expect(await examAttemptRow(id)).toMatchObject({
    status: "submitted",
    autoFinalized: true,
    submittedAt: deadline,
    finalScoreHundredths: 100,
    finalMaxHundredths: 400,
    finalScorePctHundredths: 2500,
    passed: false,
  });
  const sections = await sectionQuizAttempts(id);
  expect(sections.map((row) => [row.status, row.autoFinalized, row.submittedAt, row.scoreHundredths])).toEqual([["submitted", true, deadline, 100]]);
  expect(await answersOf(sections[0]!.id)).toHaveLength(1);
  const events = (await examEvents(school.id)).filter((row) => row.eventCode !== "exam.time_warning").sort((a, b) => a.eventCode.localeCompare(b.eventCode));
  expect(events.map((row) => [row.eventCode, row.userId, row.dedupeKey])).toEqual([
    ["exam.attempt_finished", curatorId, `exam.attempt_finished:${id}:${curatorId}`],
    ["exam.auto_submitted", student.id, `exam.auto_submitted:${id}:${student.id}`],
  ]);
  expect(events[1]!.data).toMatchObject({ exam_title: "Timed exam", score_pct: "25.00", exam_attempt_id: id });
  expect(events[1]!.body).toBe("Экзамен «Timed exam» завершён автоматически. Результат: 25.00%.");
  expect(events[0]!.data).toMatchObject({ exam_title: "Timed exam", score_pct: "25.00", passing_score: 50 });
  // No push about the section's quiz attempt.
  expect((await outboxRows(school.id)).filter((row) => row.eventCode.startsWith("quiz."))).toEqual([]);
}

describe("the warning alarm", () => {
  it("is set 5 minutes before the deadline and sends exam.time_warning once", async () => {
    const { school, student, id, deadline } = await attemptInProgress(660);
    expect(await alarmOf(id)).toBe(deadline - 300_000);

    clockTo(deadline, -299_000);
    expect(await runDurableObjectAlarm(timerStub(id))).toBe(true);
    const warnings = (await examEvents(school.id)).filter((row) => row.eventCode === "exam.time_warning");
    expect(warnings.map((row) => [row.userId, row.dedupeKey, row.title])).toEqual([[student.id, `exam.time_warning:${id}:${student.id}`, "Осталось 5 минут"]]);
    expect(warnings[0]!.data).toMatchObject({ exam_title: "Timed exam", minutes_left: 5, deadline: new Date(deadline).toISOString(), exam_attempt_id: id });
    expect((await examAttemptRow(id)).warnedAt).not.toBeNull();
    // The next alarm is the finish.
    expect(await alarmOf(id)).toBe(deadline + GRACE_MS + 1);

    // Run again (at-least-once delivery), and the warning's write itself twice: nothing more.
    await runInDurableObject(timerStub(id), (instance: ExamAttemptTimer) => instance.alarm());
    const start = { tenantId: school.id, examAttemptId: id, examId: (await examAttemptRow(id)).examId, userId: student.id, actorRole: "student" as const, startedAt: deadline - 660_000, deadlineAt: deadline, graceMs: GRACE_MS, timeLimitSeconds: 660 };
    await sendTimeWarning(jobContext(env as Env), start);
    await sendTimeWarning(jobContext(env as Env), start);
    expect((await examEvents(school.id)).filter((row) => row.eventCode === "exam.time_warning")).toHaveLength(1);
    expect(await examAttemptRow(id)).toMatchObject({ status: "in_progress" });
  });

  it("a limit of 601 s is warned (alarm 5 minutes before the deadline), 600 s is not", async () => {
    const warned = await attemptInProgress(601);
    expect(await alarmOf(warned.id)).toBe(warned.deadline - 300_000);
    clockTo(warned.deadline, -299_000);
    expect(await runDurableObjectAlarm(timerStub(warned.id))).toBe(true);
    expect((await examEvents(warned.school.id)).map((row) => [row.eventCode, row.userId])).toEqual([["exam.time_warning", warned.student.id]]);

    setClockForTests(null);
    const silent = await attemptInProgress(600);
    expect(await alarmOf(silent.id)).toBe(silent.deadline + GRACE_MS + 1);
  });

  it("is not set for a 10-minute exam, and nothing is sent 4 minutes before its deadline", async () => {
    const { school, id, deadline } = await attemptInProgress(600);
    expect(await alarmOf(id)).toBe(deadline + GRACE_MS + 1);
    clockTo(deadline, -240_000);
    expect(await runDurableObjectAlarm(timerStub(id))).toBe(true);
    expect(await examEvents(school.id)).toEqual([]);
    expect(await examAttemptRow(id)).toMatchObject({ status: "in_progress", warnedAt: null });
    expect(await alarmOf(id)).toBe(deadline + GRACE_MS + 1);
  });

  it("a finished attempt is not warned", async () => {
    const { school, student, id, deadline } = await attemptInProgress(660);
    await submitExam(student, id);
    clockTo(deadline, -299_000);
    const start = { tenantId: school.id, examAttemptId: id, examId: (await examAttemptRow(id)).examId, userId: student.id, actorRole: "student" as const, startedAt: deadline - 660_000, deadlineAt: deadline, graceMs: GRACE_MS, timeLimitSeconds: 660 };
    await sendTimeWarning(jobContext(env as Env), start);
    expect((await examEvents(school.id)).filter((row) => row.eventCode === "exam.time_warning")).toEqual([]);
  });
});

/**
 * Held: each finish's final write (the exam attempt's UPDATE). The request closes the timer and
 * waits at that write; the alarm then finds the timer closed but not confirmed and finishes too:
 * both final batches go to D1 together.
 */
const finishWrites = async (tenantId: string) => barrierD1(await schoolD1(tenantId), { held: /UPDATE exam_attempts SET status = 'submitted'/, parties: 2, timeoutMs: 10_000 });

const alarmWith = (id: string, db: D1Database) => alarmWithD1(timerStub(id), db);

describe("the finishing alarm", () => {
  it("finishes the attempt at deadline + grace with no client connected, then nothing is scheduled", async () => {
    const setup = await attemptInProgress();
    // Early (after the warning), the alarm only sets the next one.
    clockTo(setup.deadline, -60_000);
    await runInDurableObject(timerStub(setup.id), (instance: ExamAttemptTimer) => instance.alarm());
    expect(await examAttemptRow(setup.id)).toMatchObject({ status: "in_progress" });
    expect(await alarmOf(setup.id)).toBe(setup.deadline + GRACE_MS + 1);

    clockTo(setup.deadline, GRACE_MS + 1000);
    expect(await runDurableObjectAlarm(timerStub(setup.id))).toBe(true);
    await expectFinishedOnce(setup);
    expect(await alarmOf(setup.id)).toBeNull();
    expect(await runDurableObjectAlarm(timerStub(setup.id))).toBe(false);
  });

  it("run 7 times at once, it finishes once and scores once: one set of rows, one #42, one #44", async () => {
    const setup = await attemptInProgress();
    clockTo(setup.deadline, GRACE_MS + 1000);
    await runInDurableObject(timerStub(setup.id), (instance: ExamAttemptTimer) => Promise.all(Array.from({ length: 7 }, () => instance.alarm())));
    await expectFinishedOnce(setup);
    // Seven more runs, one after the other: confirmed, nothing to do.
    for (let i = 0; i < 7; i++) await runInDurableObject(timerStub(setup.id), (instance: ExamAttemptTimer) => instance.alarm());
    await expectFinishedOnce(setup);
    expect(await alarmOf(setup.id)).toBeNull();
  });

  it("a submit at deadline + grace and the alarm, both writing the finish together: the submit 200, one final score, one #42, one #44", async () => {
    const setup = await attemptInProgress();
    clockTo(setup.deadline, GRACE_MS + 1000);
    const errors = vi.spyOn(console, "error");
    const barrier = await finishWrites(setup.school.id);
    const submitting = requestWithD1(barrier.db, `/t/exam-attempts/${setup.id}/submit`, { token: setup.student.token, tenant: setup.student.subdomain });
    await barrier.arrivals(1);
    const [submitted] = await Promise.all([submitting, alarmWith(setup.id, barrier.db)]);
    expect(barrier.stats.releases).toEqual([2]);
    // Neither finish failed (the alarm would log it and try again later).
    expect(errors.mock.calls).toEqual([]);
    expect(submitted.status).toBe(200);
    expect(submitted.body.data).toMatchObject({ status: "submitted", auto_finalized: true, final_score: "1.00", final_score_pct: "25.00" });
    await expectFinishedOnce(setup);
    expect(await alarmOf(setup.id)).toBeNull();
  });

  it("a go at deadline + grace and the alarm, both writing the finish together: the go 409, one final score, one #42, one #44", async () => {
    const setup = await attemptInProgress();
    clockTo(setup.deadline, GRACE_MS + 1000);
    const errors = vi.spyOn(console, "error");
    const barrier = await finishWrites(setup.school.id);
    const going = requestWithD1(barrier.db, `/t/exam-attempts/${setup.id}/go`, { token: setup.student.token, tenant: setup.student.subdomain, body: { section_index: 1 } });
    await barrier.arrivals(1);
    const [went] = await Promise.all([going, alarmWith(setup.id, barrier.db)]);
    expect(barrier.stats.releases).toEqual([2]);
    // Neither finish failed (the alarm would log it and try again later).
    expect(errors.mock.calls).toEqual([]);
    expect(failure(went)).toEqual({ status: 409, error: "exam_attempt_already_submitted" });
    await expectFinishedOnce(setup);
  });

  it("a submit racing the alarm before the deadline: the submit finishes it, the alarm changes nothing", async () => {
    const setup = await attemptInProgress();
    const [submitted] = await Promise.all([submitExam(setup.student, setup.id), runDurableObjectAlarm(timerStub(setup.id))]);
    expect(submitted.body.data).toMatchObject({ status: "submitted", auto_finalized: false, final_score: "1.00" });
    expect((await examEvents(setup.school.id)).map((row) => row.eventCode)).toEqual(["exam.attempt_finished"]);
  });

  it("a section's journal finishing first on its own alarm: the section is scored quietly, and the exam's finish counts it", async () => {
    const setup = await attemptInProgress();
    const [section] = await sectionQuizAttempts(setup.id);
    clockTo(setup.deadline, GRACE_MS + 1000);
    const journal = env.ATTEMPT_JOURNAL.get(env.ATTEMPT_JOURNAL.idFromName(section!.id));
    expect(await runDurableObjectAlarm(journal)).toBe(true);
    expect((await sectionQuizAttempts(setup.id))[0]).toMatchObject({ status: "submitted", autoFinalized: true, scoreHundredths: 100 });
    expect(await examAttemptRow(setup.id)).toMatchObject({ status: "in_progress" });
    expect(await runDurableObjectAlarm(timerStub(setup.id))).toBe(true);
    await expectFinishedOnce(setup);
  });

  it("a timer closed without its D1 write is finished by the next read, even one by a curator, who still hears of it", async () => {
    const setup = await attemptInProgress();
    const { school, student, id, curatorId } = setup;
    await runInDurableObject(timerStub(id), (instance: ExamAttemptTimer) => instance.close({ tenantId: school.id, userId: student.id }));
    const read = await readExamAttempt(setup.curator, id);
    expect(read.body.data).toMatchObject({ status: "submitted", auto_finalized: false, final_score: "1.00" });
    expect((await examEvents(school.id)).map((row) => [row.eventCode, row.userId])).toEqual([["exam.attempt_finished", curatorId]]);
    expect(await alarmOf(id)).toBeNull();
  });

  it("a timer closed without its D1 write is finished by its retry alarm", async () => {
    const setup = await attemptInProgress();
    const { school, student, id } = setup;
    // The submit's close happened; its worker never wrote (a crash between the two).
    const closed = await runInDurableObject(timerStub(id), (instance: ExamAttemptTimer) => instance.close({ tenantId: school.id, userId: student.id }));
    expect(closed.outcome).toBe("closed_now");
    expect(await examAttemptRow(id)).toMatchObject({ status: "in_progress" });
    expect(await alarmOf(id)).toBeGreaterThan(Date.now());
    expect(failure(await submitExam(student, id))).toEqual({ status: 409, error: "exam_attempt_already_submitted" });

    expect(await runDurableObjectAlarm(timerStub(id))).toBe(true);
    expect(await examAttemptRow(id)).toMatchObject({ status: "submitted", autoFinalized: false, finalScoreHundredths: 100 });
    expect(await alarmOf(id)).toBeNull();
    // The close came from the student's submit, but the retry is nobody's action: #44 to the curator, no #42.
    expect((await examEvents(school.id)).map((row) => [row.eventCode, row.userId])).toEqual([["exam.attempt_finished", setup.curatorId]]);
  });
});
