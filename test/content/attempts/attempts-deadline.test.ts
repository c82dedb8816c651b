import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { AttemptJournal } from "../../../durable-objects/attempt-journal";
import { alarmWithD1, barrierD1, requestWithD1 } from "../../helpers/d1-barrier";
import { failure } from "../../helpers/http";
import { addPushDevice, outboxRows } from "../../notifications/helpers";
import { answerRows, attemptRow, clockAt, moveClock, quizForStudent, read, save, started, submit } from "./helpers";
import { schoolD1 } from "../../helpers/databases";

/**
 * The deadline: saves count until `deadline_at` + grace (15 s); after that the first read, save,
 * submit or the journal's alarm finalizes the attempt with what was saved, `submitted_at` =
 * `deadline_at` and `auto_finalized` true, and #37 tells the student.
 */

afterEach(() => vi.restoreAllMocks());

const LIMIT_S = 60;
const GRACE_MS = 15_000;

async function timedAttempt() {
  const setup = await quizForStudent({ title: "Timed", timeLimitSeconds: LIMIT_S, questions: [{ type: "single" }, { type: "free_text", correctText: ["yes"] }] });
  await addPushDevice(setup.school.id, setup.student.id);
  const id = await started(setup.student, setup.quiz.id);
  const [single, text] = setup.quiz.questions;
  await save(setup.student, id, [{ question_id: single!.id, payload: { answer_ids: [single!.answerIds[0]] } }]);
  const deadline = (await attemptRow(id))!.deadlineAt!;
  return { ...setup, id, single: single!, text: text!, deadline };
}

/** Moves the services' clock to `deadline + ms` (relative to the real clock, so it keeps running). */
const toDeadline = (deadline: number, ms: number) => moveClock(deadline + ms - Date.now());

function journalStub(id: string) {
  return env.ATTEMPT_JOURNAL.get(env.ATTEMPT_JOURNAL.idFromName(id)) as DurableObjectStub<AttemptJournal>;
}

async function expectAutoFinalized(id: string, deadline: number, tenantId: string, studentId: string) {
  expect(await attemptRow(id)).toMatchObject({ status: "submitted", autoFinalized: true, submittedAt: deadline, scoreHundredths: 100, maxScoreHundredths: 200 });
  const answers = await answerRows(id);
  expect(answers.map((row) => [row.awardedHundredths, row.isCorrect])).toEqual([[100, true]]);
  const pushes = (await outboxRows(tenantId)).filter((row) => row.eventCode === "quiz.auto_submitted");
  expect(pushes.map((row) => [row.userId, row.dedupeKey, row.body])).toEqual([
    [studentId, `quiz.auto_submitted:${id}:${studentId}`, "Попытка по тесту «Timed» отправлена автоматически с сохранёнными ответами."],
  ]);
  expect(pushes[0]!.data).toMatchObject({ quiz_title: "Timed", score: "1.00", max_score: "2.00", quiz_attempt_id: id });
}

describe("the attempt's deadline", () => {
  it("the grace's last millisecond: a save at deadline + 15,000 ms counts; at + 15,001 ms it is 409 and finalizes with the saves before", async () => {
    const { school, student, id, single, text, deadline } = await timedAttempt();
    clockAt(deadline + 15_000);
    expect((await save(student, id, [{ question_id: text.id, payload: { text: "yes" }, client_seq: 1 }])).body.data).toMatchObject({ saved: 1, ignored: 0, remaining_seconds: 0 });
    expect(await attemptRow(id)).toMatchObject({ status: "in_progress" });

    clockAt(deadline + 15_001);
    const late = await save(student, id, [{ question_id: single.id, payload: { answer_ids: [single.answerIds[1]] }, client_seq: 2 }]);
    expect(failure(late)).toEqual({ status: 409, error: "attempt_already_submitted" });
    // Both answers saved in time are scored (2 of 2); the one after the grace did not replace the first.
    expect(await attemptRow(id)).toMatchObject({ status: "submitted", autoFinalized: true, submittedAt: deadline, scoreHundredths: 200, maxScoreHundredths: 200 });
    expect((await answerRows(id)).map((row) => [row.questionId, row.awardedHundredths]).sort()).toEqual([[single.id, 100], [text.id, 100]].sort());
    expect((await outboxRows(school.id)).filter((row) => row.eventCode === "quiz.auto_submitted")).toHaveLength(1);
  });

  it("the grace's last millisecond for a submit: at deadline + 15,000 ms on time (auto_finalized false), at + 15,001 ms auto-finalized", async () => {
    const onTime = await timedAttempt();
    clockAt(onTime.deadline + 15_000);
    expect((await submit(onTime.student, onTime.id)).body.data).toMatchObject({ status: "submitted", auto_finalized: false, submitted_at: new Date(onTime.deadline).toISOString() });

    moveClock(0);
    const late = await timedAttempt();
    clockAt(late.deadline + 15_001);
    expect((await submit(late.student, late.id)).body.data).toMatchObject({ status: "submitted", auto_finalized: true, submitted_at: new Date(late.deadline).toISOString() });
    await expectAutoFinalized(late.id, late.deadline, late.school.id, late.student.id);
  });

  it("saves within the grace count; a submit then is on time, submitted_at = deadline_at", async () => {
    const { student, id, text, deadline } = await timedAttempt();
    toDeadline(deadline, GRACE_MS - 1000);
    const late = await save(student, id, [{ question_id: text.id, payload: { text: "yes" }, client_seq: 1 }]);
    expect(late.body.data).toMatchObject({ saved: 1, remaining_seconds: 0 });
    const done = await submit(student, id);
    expect(done.body.data).toMatchObject({ status: "submitted", auto_finalized: false, submitted_at: new Date(deadline).toISOString(), score: "2.00" });
  });

  it("auto-finalize by a read: the attempt is submitted with what was saved", async () => {
    const { school, student, id, deadline } = await timedAttempt();
    toDeadline(deadline, GRACE_MS + 1000);
    const res = await read(student, id);
    expect(res.body.data).toMatchObject({ status: "submitted", auto_finalized: true, submitted_at: new Date(deadline).toISOString(), score: "1.00", remaining_seconds: 0 });
    await expectAutoFinalized(id, deadline, school.id, student.id);
  });

  it("auto-finalize by a save: 409 attempt_already_submitted, the late answer is not kept, the earlier ones are", async () => {
    const { school, student, id, text, deadline } = await timedAttempt();
    toDeadline(deadline, GRACE_MS + 1000);
    expect(failure(await save(student, id, [{ question_id: text.id, payload: { text: "yes" } }]))).toEqual({ status: 409, error: "attempt_already_submitted" });
    await expectAutoFinalized(id, deadline, school.id, student.id);
    expect(failure(await save(student, id, [{ question_id: text.id, payload: { text: "yes" } }]))).toEqual({ status: 409, error: "attempt_already_submitted" });
  });

  it("auto-finalize by a submit past the grace: 200 with auto_finalized true", async () => {
    const { school, student, id, deadline } = await timedAttempt();
    toDeadline(deadline, GRACE_MS + 1000);
    expect((await submit(student, id)).body.data).toMatchObject({ status: "submitted", auto_finalized: true, submitted_at: new Date(deadline).toISOString() });
    await expectAutoFinalized(id, deadline, school.id, student.id);
    expect(failure(await submit(student, id))).toEqual({ status: 409, error: "attempt_already_submitted" });
  });

  it("auto-finalize by the journal's alarm, set at deadline_at + grace; the journal keeps no answers afterwards", async () => {
    const { school, student, id, deadline } = await timedAttempt();
    const stub = journalStub(id);
    expect(await runInDurableObject(stub, (_instance: AttemptJournal, state) => state.storage.getAlarm())).toBe(deadline + GRACE_MS + 1);
    // Early: the alarm only sets itself again.
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await attemptRow(id)).toMatchObject({ status: "in_progress" });

    // The alarm is still due at deadline_at + grace on the real clock; the test runs it now, with the services' clock moved past it.
    toDeadline(deadline, GRACE_MS + 1000);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    await expectAutoFinalized(id, deadline, school.id, student.id);
    const keys = await runInDurableObject(stub, async (_instance: AttemptJournal, state) => [...(await state.storage.list()).keys()]);
    expect(keys).toEqual(["meta"]);
    expect(await runInDurableObject(stub, (_instance: AttemptJournal, state) => state.storage.getAlarm())).toBeNull();
    expect((await read(student, id)).body.data).toMatchObject({ status: "submitted", auto_finalized: true });
  });

  it("a journal closed without its D1 write is written by its retry alarm", async () => {
    const { school, student, id } = await timedAttempt();
    const stub = journalStub(id);
    // The submit's close happened, its worker never wrote (a crash between the two).
    const closed = await runInDurableObject(stub, (instance: AttemptJournal) => instance.close({ tenantId: school.id, userId: student.id }));
    expect(closed.outcome).toBe("closed_now");
    expect(await attemptRow(id)).toMatchObject({ status: "in_progress" });
    const alarm = await runInDurableObject(stub, (_instance: AttemptJournal, state) => state.storage.getAlarm());
    expect(alarm).toBeGreaterThan(Date.now());
    expect(failure(await submit(student, id))).toEqual({ status: 409, error: "attempt_already_submitted" });

    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await attemptRow(id)).toMatchObject({ status: "submitted", autoFinalized: false, scoreHundredths: 100 });
    expect((await answerRows(id)).map((row) => row.awardedHundredths)).toEqual([100]);
    expect(await runInDurableObject(stub, (_instance: AttemptJournal, state) => state.storage.getAlarm())).toBeNull();
  });

  it("a read finds a closed journal not yet written and writes it", async () => {
    const { school, student, id } = await timedAttempt();
    await runInDurableObject(journalStub(id), (instance: AttemptJournal) => instance.close({ tenantId: school.id, userId: student.id }));
    expect((await read(student, id)).body.data).toMatchObject({ status: "submitted", score: "1.00", auto_finalized: false });
  });
});

const alarmWith = (id: string, db: D1Database) => alarmWithD1(journalStub(id), db);

describe("the deadline's finalize racing the journal's alarm", () => {
  // Held: each finalize's write batch. The request closes the journal and waits at its write; the
  // alarm then finds the journal closed but not confirmed, and writes the same finalize: both
  // batches go to D1 together.
  const finalizeWrites = async (tenantId: string) => barrierD1(await schoolD1(tenantId), { held: /UPDATE quiz_attempts SET status = 'submitted'/, parties: 2, timeoutMs: 10_000 });

  it("a submit at deadline + 15,001 ms and the alarm: one 200, one finalize, one answer row, one #37", async () => {
    const { school, student, id, deadline } = await timedAttempt();
    clockAt(deadline + 15_001);
    const errors = vi.spyOn(console, "error");
    const barrier = await finalizeWrites(school.id);
    const submitting = requestWithD1(barrier.db, `/t/attempts/${id}/submit`, { token: student.token, tenant: student.subdomain });
    await barrier.arrivals(1);
    const [res] = await Promise.all([submitting, alarmWith(id, barrier.db)]);
    expect(barrier.stats.releases).toEqual([2]);
    // Neither finish failed (the alarm would log it and try again later).
    expect(errors.mock.calls).toEqual([]);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: "submitted", auto_finalized: true, submitted_at: new Date(deadline).toISOString(), score: "1.00" });
    await expectAutoFinalized(id, deadline, school.id, student.id);
    expect(await runInDurableObject(journalStub(id), (_instance: AttemptJournal, state) => state.storage.getAlarm())).toBeNull();
  });

  it("a save at deadline + 15,001 ms and the alarm: the save 409 and not kept, one finalize, one #37", async () => {
    const { school, student, id, text, deadline } = await timedAttempt();
    clockAt(deadline + 15_001);
    const errors = vi.spyOn(console, "error");
    const barrier = await finalizeWrites(school.id);
    const saving = requestWithD1(barrier.db, `/t/attempts/${id}/answers`, {
      token: student.token,
      tenant: student.subdomain,
      body: { answers: [{ question_id: text.id, payload: { text: "yes" } }] },
    });
    await barrier.arrivals(1);
    const [res] = await Promise.all([saving, alarmWith(id, barrier.db)]);
    expect(barrier.stats.releases).toEqual([2]);
    // Neither finish failed (the alarm would log it and try again later).
    expect(errors.mock.calls).toEqual([]);
    expect(failure(res)).toEqual({ status: 409, error: "attempt_already_submitted" });
    await expectAutoFinalized(id, deadline, school.id, student.id);
  });
});
