import { afterEach, describe, expect, it } from "vitest";
import { setClockForTests } from "../../src/core/lib/clock";
import { countedRequest } from "../helpers/counted";
import { barrierD1, requestWithD1 } from "../helpers/d1-barrier";
import { schoolD1 } from "../helpers/databases";
import { failure } from "../helpers/http";
import { addGroupCurator, addMember, as, createGroup, curatorWith, signedIn, unknownId } from "../helpers/users";
import { addPushDevice, outboxRows } from "../notifications/helpers";
import { attemptRow, moveClock, quizForStudent, read, save, start, started, submit } from "../content/attempts/helpers";
import { auditOf, putProfile } from "./helpers";

/** Effective limits of quiz attempts and POST /t/attempts/:id/extend (05 section 1). */

afterEach(() => setClockForTests(null));

const GRACE_MS = 15_000;
const profile = { time_multiplier: "1.50", extra_time_seconds: 30, extra_attempts: 1, note: "Confidential: medical certificate" };
const extend = (member: Parameters<typeof as>[0], id: string, body: unknown) => as(member, `/t/attempts/${id}/extend`, { method: "POST", body });
const answer = (question: { id: string; answerIds: string[] }) => ({ question_id: question.id, payload: { answer_ids: [question.answerIds[0]] } });

describe("effective limits at quiz attempt start", () => {
  it("a 100 s quiz with multiplier 1.5 and 30 s extra gives 180 s; one extra attempt; the student never sees the note", async () => {
    const setup = await quizForStudent({ timeLimitSeconds: 100, maxAttempts: 1, questions: [{ type: "single" }] });
    await putProfile(setup.admin, setup.student.id, profile);
    const first = await start(setup.student, setup.quiz.id);
    expect(first.status).toBe(201);
    expect(first.body.data.time_limit_seconds).toBe(180);
    expect(Date.parse(first.body.data.deadline_at) - Date.parse(first.body.data.started_at)).toBe(180_000);
    expect(first.body.data.remaining_seconds).toBeGreaterThan(170);
    expect(JSON.stringify(first.body)).not.toContain("Confidential");
    // A later profile change does not touch the running attempt.
    await putProfile(setup.admin, setup.student.id, { ...profile, time_multiplier: "3.00" });
    expect((await read(setup.student, first.body.data.id)).body.data.time_limit_seconds).toBe(180);
    expect((await submit(setup.student, first.body.data.id)).status).toBe(200);
    const second = await start(setup.student, setup.quiz.id);
    expect(second.status).toBe(201);
    expect(second.body.data.time_limit_seconds).toBe(330);
    expect((await submit(setup.student, second.body.data.id)).status).toBe(200);
    expect(failure(await start(setup.student, setup.quiz.id))).toEqual({ status: 409, error: "max_attempts_reached" });
    // The student cannot read the profile itself.
    expect(failure(await as(setup.student, `/t/users/${setup.student.id}/accommodation`))).toEqual({ status: 403, error: "forbidden" });
  });

  it("untimed stays untimed", async () => {
    const setup = await quizForStudent({ timeLimitSeconds: null, maxAttempts: null, questions: [{ type: "single" }] });
    await putProfile(setup.admin, setup.student.id, profile);
    const res = await start(setup.student, setup.quiz.id);
    expect(res.body.data).toMatchObject({ time_limit_seconds: null, deadline_at: null, remaining_seconds: null });
  });

  it("reads the profile in the start's own statements: the same count with and without a profile", async () => {
    const setup = await quizForStudent({ timeLimitSeconds: 100, questions: [{ type: "single" }] });
    const other = await signedIn(setup.school, { role: "student" });
    const { giveQuizAccess } = await import("../helpers/quizzes");
    await giveQuizAccess(setup.school.id, setup.quiz.id, [other.id]);
    await putProfile(setup.admin, setup.student.id, profile);
    const withProfile = await countedRequest(setup.student, "/t/attempts", { method: "POST", body: { quiz_id: setup.quiz.id } });
    const without = await countedRequest(other, "/t/attempts", { method: "POST", body: { quiz_id: setup.quiz.id } });
    expect([withProfile.status, without.status]).toEqual([201, 201]);
    expect(withProfile.counts).toEqual(without.counts);
  });
});

describe("POST /t/attempts/:id/extend", () => {
  it("moves the deadline and the journal's alarm: a save between the old and the new deadline counts; audit and push exact", async () => {
    const setup = await quizForStudent({ title: "Timed quiz", timeLimitSeconds: 120, questions: [{ type: "single" }] });
    await addPushDevice(setup.school.id, setup.student.id);
    const id = await started(setup.student, setup.quiz.id);
    const before = await attemptRow(id);
    const res = await extend(setup.admin, id, { add_seconds: 600, reason: "Fire alarm in the room" });
    expect(res.status).toBe(200);
    const deadline = before!.deadlineAt! + 600_000;
    expect(res.body.data).toMatchObject({ id, status: "in_progress", deadline_at: new Date(deadline).toISOString(), time_limit_seconds: 720 });
    expect((await attemptRow(id))!.deadlineAt).toBe(deadline);

    // Past the old deadline and its grace, before the new one: the save counts.
    moveClock(120_000 + GRACE_MS + 5_000);
    const saved = await save(setup.student, id, [answer(setup.quiz.questions[0]!)]);
    expect(saved.status).toBe(200);
    expect(saved.body.data.saved).toBe(1);
    const submitted = await submit(setup.student, id);
    expect(submitted.body.data).toMatchObject({ status: "submitted", auto_finalized: false, score: "1.00" });

    expect(await auditOf(setup.school.id)).toEqual([
      {
        action: "attempt.extended",
        target_type: "quiz_attempt",
        target_id: id,
        actor_id: setup.admin.id,
        changes: { deadline_at: [new Date(before!.deadlineAt!).toISOString(), new Date(deadline).toISOString()] },
      },
    ]);
    const pushes = (await outboxRows(setup.school.id)).filter((row) => row.eventCode === "attempt.time_extended");
    expect(pushes.map((row) => [row.userId, row.dedupeKey, row.category])).toEqual([[setup.student.id, `attempt.time_extended:${id}:${deadline}:${setup.student.id}`, "quiz"]]);
    expect(pushes[0]!.data).toMatchObject({ event_code: "attempt.time_extended", title: "Timed quiz", added_minutes: 10, deadline_at: new Date(deadline).toISOString(), quiz_attempt_id: id });
    expect(pushes[0]!.title).toBe("Время продлено");
    expect(pushes[0]!.body).not.toContain("Fire alarm");
  });

  it("after the deadline plus grace: 409 and the attempt finishes then; submitted: 409; untimed: 409 attempt_not_timed; unknown or out of scope: 404", async () => {
    const setup = await quizForStudent({ timeLimitSeconds: 60, questions: [{ type: "single" }] });
    const id = await started(setup.student, setup.quiz.id);
    await save(setup.student, id, [answer(setup.quiz.questions[0]!)]);
    const row = await attemptRow(id);
    moveClock(60_000 + GRACE_MS + 2_000);
    expect(failure(await extend(setup.admin, id, { add_seconds: 60, reason: "late" }))).toEqual({ status: 409, error: "attempt_already_submitted" });
    expect(await attemptRow(id)).toMatchObject({ status: "submitted", autoFinalized: true, submittedAt: row!.deadlineAt, deadlineAt: row!.deadlineAt, scoreHundredths: 100 });
    expect(failure(await extend(setup.admin, id, { add_seconds: 60, reason: "again" }))).toEqual({ status: 409, error: "attempt_already_submitted" });
    setClockForTests(null);

    const untimed = await quizForStudent({ timeLimitSeconds: null, questions: [{ type: "single" }] });
    const open = await started(untimed.student, untimed.quiz.id);
    expect(failure(await extend(untimed.admin, open, { add_seconds: 60, reason: "x" }))).toEqual({ status: 409, error: "attempt_not_timed" });
    expect(failure(await extend(untimed.admin, unknownId(), { add_seconds: 60, reason: "x" }))).toEqual({ status: 404, error: "attempt_not_found" });
    expect(failure(await extend(setup.admin, open, { add_seconds: 60, reason: "x" }))).toEqual({ status: 404, error: "attempt_not_found" });

    for (const body of [{ add_seconds: 59, reason: "x" }, { add_seconds: 14401, reason: "x" }, { add_seconds: 60.5, reason: "x" }, { add_seconds: 60, reason: "" }, { add_seconds: 60, reason: "x".repeat(501) }, { add_seconds: 60 }]) {
      expect(failure(await extend(untimed.admin, open, body))).toEqual({ status: 400, error: "invalid_request_body" });
    }
    expect(await auditOf(setup.school.id)).toEqual([]);
  });

  it("a restricted curator extends their own students' attempts only", async () => {
    const setup = await quizForStudent({ timeLimitSeconds: 600, questions: [{ type: "single" }] });
    const curator = await signedIn(setup.school, curatorWith({ can_manage_courses: true }));
    const id = await started(setup.student, setup.quiz.id);
    expect(failure(await extend(curator, id, { add_seconds: 60, reason: "x" }))).toEqual({ status: 404, error: "attempt_not_found" });
    const group = await createGroup(setup.school.id);
    await addMember(group, setup.student.id);
    await addGroupCurator(group, curator.id);
    expect((await extend(curator, id, { add_seconds: 60, reason: "x" })).status).toBe(200);
    expect(failure(await extend(setup.student, id, { add_seconds: 60, reason: "x" }))).toEqual({ status: 403, error: "forbidden" });
  });

  it("3 round trips with the auth check", async () => {
    const setup = await quizForStudent({ timeLimitSeconds: 600, questions: [{ type: "single" }] });
    const id = await started(setup.student, setup.quiz.id);
    const run = await countedRequest(setup.admin, `/t/attempts/${id}/extend`, { method: "POST", body: { add_seconds: 60, reason: "x" } });
    expect(run.status).toBe(200);
    // Besides the auth check's one read: the read batch and the write batch.
    expect({ batch: run.counts.batch, exec: run.counts.exec }).toEqual({ batch: 2, exec: 0 });
  });

  it("racing the student's submit: one consistent outcome", async () => {
    const setup = await quizForStudent({ timeLimitSeconds: 600, questions: [{ type: "single" }] });
    const id = await started(setup.student, setup.quiz.id);
    const before = (await attemptRow(id))!;
    const barrier = barrierD1(await schoolD1(setup.school.id), { held: /FROM quiz_attempts a JOIN quizzes q/, parties: 2, timeoutMs: 10_000 });
    const [extended, submitted] = await Promise.all([
      requestWithD1(barrier.db, `/t/attempts/${id}/extend`, { token: setup.admin.token, tenant: setup.school.subdomain, body: { add_seconds: 300, reason: "race" } }),
      requestWithD1(barrier.db, `/t/attempts/${id}/submit`, { token: setup.student.token, tenant: setup.school.subdomain }),
    ]);
    expect(barrier.stats.releases).toEqual([2]);
    expect(submitted.status).toBe(200);
    const after = (await attemptRow(id))!;
    expect(after.status).toBe("submitted");
    const audit = await auditOf(setup.school.id);
    if (extended.status === 200) {
      expect(after.deadlineAt).toBe(before.deadlineAt! + 300_000);
      expect(audit.map((entry) => entry.action)).toEqual(["attempt.extended"]);
    } else {
      expect(failure(extended)).toEqual({ status: 409, error: "attempt_already_submitted" });
      expect(after.deadlineAt).toBe(before.deadlineAt);
      expect(audit).toEqual([]);
    }
    expect(after.submittedAt).toBeLessThanOrEqual(after.deadlineAt!);
  });
});
