import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import type { ExamAttemptTimer } from "../../durable-objects/exam-attempt-timer";
import { setClockForTests } from "../../src/core/lib/clock";
import { countedRequest } from "../helpers/counted";
import { barrierD1, requestWithD1 } from "../helpers/d1-barrier";
import { schoolD1 } from "../helpers/databases";
import { wrapD1 } from "../helpers/wrapped-d1";
import { failure } from "../helpers/http";
import { as, curatorWith, signedIn, unknownId, type Member } from "../helpers/users";
import { addPushDevice, outboxRows } from "../notifications/helpers";
import {
  clockTo,
  examAttemptRow,
  examForStudent,
  GRACE_MS,
  opened,
  readExamAttempt,
  saveSection,
  sectionQuizAttempts,
  single,
  startExam,
  startedExam,
  submitExam,
  timerStub,
} from "../content/exams/attempt-helpers";
import { auditOf, putProfile } from "./helpers";

/** Effective limits of exam attempts and POST /t/exam-attempts/:id/extend (05 section 1). */

afterEach(() => setClockForTests(null));

const extend = (member: Member, id: string, body: unknown) => as(member, `/t/exam-attempts/${id}/extend`, { method: "POST", body });
const alarmOf = (id: string) => runInDurableObject(timerStub(id), (_instance: ExamAttemptTimer, state) => state.storage.getAlarm());

describe("effective limits at exam attempt start", () => {
  it("time limit × multiplier + extra seconds, max_attempts + extra_attempts; the note never reaches the student", async () => {
    const setup = await examForStudent({ timeLimitSeconds: 660, maxAttempts: 1 });
    await putProfile(setup.admin, setup.student.id, { time_multiplier: "1.50", extra_time_seconds: 30, extra_attempts: 1, note: "Confidential note" });
    const first = await startExam(setup.student, setup.exam.id);
    expect(first.status).toBe(201);
    expect(first.body.data.time_limit_seconds).toBe(1020);
    expect(Date.parse(first.body.data.deadline_at) - Date.parse(first.body.data.started_at)).toBe(1_020_000);
    expect(JSON.stringify(first.body)).not.toContain("Confidential");
    expect((await submitExam(setup.student, first.body.data.id)).status).toBe(200);
    expect((await startExam(setup.student, setup.exam.id)).status).toBe(201);
  });
});

describe("POST /t/exam-attempts/:id/extend", () => {
  it("a running exam extended by 10 minutes finishes by its alarm at the new deadline, not at the old; a save in between counts", async () => {
    const setup = await examForStudent({ title: "Timed exam", timeLimitSeconds: 660 });
    await addPushDevice(setup.school.id, setup.student.id);
    const id = await startedExam(setup.student, setup.exam.id);
    await opened(setup.student, id, 0);
    const old = (await examAttemptRow(id)).deadlineAt;
    const res = await extend(setup.admin, id, { add_seconds: 600, reason: "Power cut" });
    expect(res.status).toBe(200);
    const deadline = old + 600_000;
    expect(res.body.data).toMatchObject({ id, status: "in_progress", deadline_at: new Date(deadline).toISOString(), time_limit_seconds: 1260 });
    expect((await examAttemptRow(id)).deadlineAt).toBe(deadline);
    expect((await sectionQuizAttempts(id)).map((row) => row.deadlineAt)).toEqual([deadline]);
    // The warning follows the new deadline.
    expect(await alarmOf(id)).toBe(deadline - 300_000);

    // Past the old deadline and its grace: the alarm finishes nothing, a save counts.
    clockTo(old, GRACE_MS + 5_000);
    expect(await runDurableObjectAlarm(timerStub(id))).toBe(true);
    expect(await examAttemptRow(id)).toMatchObject({ status: "in_progress" });
    const saved = await saveSection(setup.student, id, 0, [single(setup.quizzes[0]!.questions[0]!, true)]);
    expect(saved.status).toBe(200);
    expect(saved.body.data.deadline_at).toBe(new Date(deadline).toISOString());

    // At the new deadline plus grace the alarm finishes it, with the saved answer.
    clockTo(deadline, GRACE_MS + 1_000);
    await runInDurableObject(timerStub(id), (instance: ExamAttemptTimer) => instance.alarm());
    expect(await examAttemptRow(id)).toMatchObject({ status: "submitted", autoFinalized: true, submittedAt: deadline, finalScoreHundredths: 100 });

    expect(await auditOf(setup.school.id)).toEqual([
      {
        action: "exam_attempt.extended",
        target_type: "exam_attempt",
        target_id: id,
        actor_id: setup.admin.id,
        changes: { deadline_at: [new Date(old).toISOString(), new Date(deadline).toISOString()] },
      },
    ]);
    const pushes = (await outboxRows(setup.school.id)).filter((row) => row.eventCode === "attempt.time_extended");
    expect(pushes.map((row) => [row.userId, row.dedupeKey])).toEqual([[setup.student.id, `attempt.time_extended:${id}:${deadline}:${setup.student.id}`]]);
    expect(pushes[0]!.data).toMatchObject({ title: "Timed exam", added_minutes: 10, deadline_at: new Date(deadline).toISOString(), exam_attempt_id: id });
  });

  it("after the deadline plus grace: 409 and the attempt finishes then; finished: 409; unknown or out of scope: 404; bad bodies: 400", async () => {
    const setup = await examForStudent({ timeLimitSeconds: 600 });
    const id = await startedExam(setup.student, setup.exam.id);
    const row = await examAttemptRow(id);
    clockTo(row.deadlineAt, GRACE_MS + 2_000);
    expect(failure(await extend(setup.admin, id, { add_seconds: 60, reason: "late" }))).toEqual({ status: 409, error: "exam_attempt_already_submitted" });
    expect(await examAttemptRow(id)).toMatchObject({ status: "submitted", autoFinalized: true, submittedAt: row.deadlineAt, deadlineAt: row.deadlineAt });
    expect(failure(await extend(setup.admin, id, { add_seconds: 60, reason: "again" }))).toEqual({ status: 409, error: "exam_attempt_already_submitted" });
    setClockForTests(null);

    expect(failure(await extend(setup.admin, unknownId(), { add_seconds: 60, reason: "x" }))).toEqual({ status: 404, error: "exam_attempt_not_found" });
    const restricted = await signedIn(setup.school, curatorWith({ can_manage_exams: true }));
    const open = await startedExam(await signedIn(setup.school, { role: "student" }), setup.exam.id);
    expect(failure(await extend(restricted, open, { add_seconds: 60, reason: "x" }))).toEqual({ status: 404, error: "exam_attempt_not_found" });
    for (const body of [{ add_seconds: 59, reason: "x" }, { add_seconds: 14401, reason: "x" }, { add_seconds: 60, reason: "" }, { reason: "x" }]) {
      expect(failure(await extend(setup.admin, open, body))).toEqual({ status: 400, error: "invalid_request_body" });
    }
    expect(failure(await extend(setup.student, open, { add_seconds: 60, reason: "x" }))).toEqual({ status: 403, error: "forbidden" });
    expect(await auditOf(setup.school.id)).toEqual([]);
  });

  it("3 round trips with the auth check", async () => {
    const setup = await examForStudent({ timeLimitSeconds: 600 });
    const id = await startedExam(setup.student, setup.exam.id);
    await opened(setup.student, id, 0);
    const run = await countedRequest(setup.admin, `/t/exam-attempts/${id}/extend`, { method: "POST", body: { add_seconds: 60, reason: "x" } });
    expect(run.status).toBe(200);
    // Besides the auth check's one read: the read batch and the write batch.
    expect({ batch: run.counts.batch, exec: run.counts.exec }).toEqual({ batch: 2, exec: 0 });
    expect((await readExamAttempt(setup.student, id)).body.data.time_limit_seconds).toBe(660);
  });

  // The race forced each way, then left to the scheduler: every time one of the two outcomes, whole.
  for (const order of ["extension first", "submit first", undefined] as const) {
    it(`racing the student's submit (${order ?? "either order"}): one consistent outcome`, async () => {
      const setup = await examForStudent({ timeLimitSeconds: 600 });
      await addPushDevice(setup.school.id, setup.student.id);
      const id = await startedExam(setup.student, setup.exam.id);
      await opened(setup.student, id, 0);
      const before = await examAttemptRow(id);
      const { extended, submitted, releases } = await raceExtendAndSubmit(setup, id, order);
      expect(releases).toEqual({ reads: [2], heldTimedOut: false });
      if (order === "extension first") expect(extended.status).toBe(200);
      if (order === "submit first") expect(extended.status).toBe(409);

      expect(submitted.status).toBe(200);
      expect(submitted.body.data).toMatchObject({ id, status: "submitted", auto_finalized: false });
      const after = await examAttemptRow(id);
      expect(after).toMatchObject({ status: "submitted", autoFinalized: false });
      expect(after.submittedAt).toBeLessThanOrEqual(after.deadlineAt);
      const sections = await sectionQuizAttempts(id);
      expect(sections.map((row) => row.status)).toEqual(["submitted"]);
      // Forced, the loser's write comes after the winner's: the opened section's deadline is the exam's.
      if (order !== undefined) expect(sections.map((row) => row.deadlineAt)).toEqual([after.deadlineAt]);
      const audit = await auditOf(setup.school.id);
      const pushes = (await outboxRows(setup.school.id)).filter((row) => row.eventCode === "attempt.time_extended");
      if (extended.status === 200) {
        const deadline = before.deadlineAt + 300_000;
        expect(extended.body.data).toMatchObject({ id, deadline_at: new Date(deadline).toISOString(), time_limit_seconds: 900 });
        expect(after.deadlineAt).toBe(deadline);
        expect(audit).toEqual([
          {
            action: "exam_attempt.extended",
            target_type: "exam_attempt",
            target_id: id,
            actor_id: setup.admin.id,
            changes: { deadline_at: [new Date(before.deadlineAt).toISOString(), new Date(deadline).toISOString()] },
          },
        ]);
        expect(pushes.map((row) => [row.userId, row.dedupeKey])).toEqual([[setup.student.id, `attempt.time_extended:${id}:${deadline}:${setup.student.id}`]]);
      } else {
        expect(failure(extended)).toEqual({ status: 409, error: "exam_attempt_already_submitted" });
        expect(after.deadlineAt).toBe(before.deadlineAt);
        expect(audit).toEqual([]);
        expect(pushes).toEqual([]);
      }
      // Whichever won, the finished attempt answers the same afterwards.
      expect(failure(await extend(setup.admin, id, { add_seconds: 60, reason: "again" }))).toEqual({ status: 409, error: "exam_attempt_already_submitted" });
      expect((await readExamAttempt(setup.student, id)).body.data).toMatchObject({ status: "submitted", deadline_at: new Date(after.deadlineAt).toISOString() });
      expect(await auditOf(setup.school.id)).toEqual(audit);
    });
  }
});

describe("the exam time warning (04 #43) after an extension", () => {
  const warnings = async (tenantId: string) => (await outboxRows(tenantId)).filter((row) => row.eventCode === "exam.time_warning");

  it("moves with the deadline: nothing at the old warning time, one warning 5 minutes before the new deadline", async () => {
    const setup = await examForStudent({ title: "Timed exam", timeLimitSeconds: 660 });
    await addPushDevice(setup.school.id, setup.student.id);
    const id = await startedExam(setup.student, setup.exam.id);
    const old = (await examAttemptRow(id)).deadlineAt;
    expect(await alarmOf(id)).toBe(old - 300_000);
    expect((await extend(setup.admin, id, { add_seconds: 600, reason: "Power cut" })).status).toBe(200);
    const deadline = old + 600_000;
    expect(await alarmOf(id)).toBe(deadline - 300_000);

    clockTo(old, -299_000);
    expect(await runDurableObjectAlarm(timerStub(id))).toBe(true);
    expect(await warnings(setup.school.id)).toEqual([]);
    expect(await examAttemptRow(id)).toMatchObject({ status: "in_progress", warnedAt: null });
    expect(await alarmOf(id)).toBe(deadline - 300_000);

    clockTo(deadline, -299_000);
    expect(await runDurableObjectAlarm(timerStub(id))).toBe(true);
    const sent = await warnings(setup.school.id);
    expect(sent.map((row) => [row.userId, row.dedupeKey])).toEqual([[setup.student.id, `exam.time_warning:${id}:${setup.student.id}`]]);
    expect(sent[0]!.data).toMatchObject({ exam_title: "Timed exam", minutes_left: 5, deadline: new Date(deadline).toISOString(), exam_attempt_id: id });
    expect((await examAttemptRow(id)).warnedAt).not.toBeNull();
    expect(await alarmOf(id)).toBe(deadline + GRACE_MS + 1);
  });

  it("a 10-minute exam extended past 10 minutes gets its warning; one already sent is not sent again", async () => {
    const setup = await examForStudent({ timeLimitSeconds: 600 });
    await addPushDevice(setup.school.id, setup.student.id);
    const id = await startedExam(setup.student, setup.exam.id);
    const old = (await examAttemptRow(id)).deadlineAt;
    expect(await alarmOf(id)).toBe(old + GRACE_MS + 1);
    expect((await extend(setup.admin, id, { add_seconds: 60, reason: "Late start" })).status).toBe(200);
    const deadline = old + 60_000;
    expect(await alarmOf(id)).toBe(deadline - 300_000);
    clockTo(deadline, -299_000);
    expect(await runDurableObjectAlarm(timerStub(id))).toBe(true);
    expect((await warnings(setup.school.id)).map((row) => row.userId)).toEqual([setup.student.id]);

    // Warned, then extended again: the next alarm is the finish at the newest deadline, no second warning.
    expect((await extend(setup.admin, id, { add_seconds: 600, reason: "Power cut" })).status).toBe(200);
    expect(await alarmOf(id)).toBe(deadline + 600_000 + GRACE_MS + 1);
    clockTo(deadline + 600_000, -299_000);
    expect(await runDurableObjectAlarm(timerStub(id))).toBe(true);
    expect(await warnings(setup.school.id)).toHaveLength(1);
    expect(await examAttemptRow(id)).toMatchObject({ status: "in_progress", deadlineAt: deadline + 600_000 });
  });
});

// The first read of each request: the extension's joins the exam, the submit's is the owner's.
const EXTEND_READ = /FROM exam_attempts ea JOIN exams ex/;
const SUBMIT_READ = /FROM exam_attempts ea WHERE ea\.id = \?.* AND ea\.user_id = \?$/s;
const EXTEND_WRITE = /^UPDATE exam_attempts SET deadline_at/;
const SUBMIT_WRITE = /^UPDATE exam_attempts SET status = 'submitted'/;
const sqlOf = (statement: D1PreparedStatement) => String((statement as unknown as { statement?: unknown }).statement);

/**
 * POST extend (admin, 300 s) and the student's POST submit at once. Both reads of the attempt are
 * held at a barrier until both are in flight, so each request saw it in progress. `order` then
 * forces who reaches the timer first: the other request gets its read back only once the first
 * one's write (the new deadline, or the finish) is stored.
 */
async function raceExtendAndSubmit(setup: Awaited<ReturnType<typeof examForStudent>>, id: string, order?: "extension first" | "submit first") {
  const barrier = barrierD1(await schoolD1(setup.school.id), { held: new RegExp(`${EXTEND_READ.source}|${SUBMIT_READ.source}`, "s"), parties: 2, timeoutMs: 10_000 });
  const [heldRead, awaitedWrite] = order === "extension first" ? [SUBMIT_READ, EXTEND_WRITE] : [EXTEND_READ, SUBMIT_WRITE];
  let timedOut = false;
  let written!: () => void;
  const writtenOrTimeout = new Promise<void>((go) => {
    const timer = setTimeout(() => {
      timedOut = true;
      go();
    }, 10_000);
    written = () => {
      clearTimeout(timer);
      go();
    };
  });
  if (order === undefined) written();
  const db =
    order === undefined
      ? barrier.db
      : wrapD1(barrier.db, {
          get(target, property) {
            const value = Reflect.get(target, property, target);
            if (property !== "batch") return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
            return async (statements: D1PreparedStatement[]) => {
              const results = await target.batch(statements);
              if (statements.some((statement) => awaitedWrite.test(sqlOf(statement)))) written();
              if (statements.some((statement) => heldRead.test(sqlOf(statement)))) await writtenOrTimeout;
              return results;
            };
          },
        });
  const [extended, submitted] = await Promise.all([
    requestWithD1(db, `/t/exam-attempts/${id}/extend`, { token: setup.admin.token, tenant: setup.school.subdomain, body: { add_seconds: 300, reason: "race" } }),
    requestWithD1(db, `/t/exam-attempts/${id}/submit`, { token: setup.student.token, tenant: setup.school.subdomain }),
  ]);
  return { extended, submitted, releases: { reads: barrier.stats.releases, heldTimedOut: timedOut } };
}
