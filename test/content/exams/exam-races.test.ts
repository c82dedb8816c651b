import { runInDurableObject } from "cloudflare:test";
import type { ExamAttemptTimer } from "../../../durable-objects/exam-attempt-timer";
import { afterEach, describe, expect, it } from "vitest";
import { setClockForTests } from "../../../src/core/lib/clock";
import { barrierD1, requestWithD1 } from "../../helpers/d1-barrier";
import { failure } from "../../helpers/http";
import { assignIndividualCurator, signedIn, type Member } from "../../helpers/users";
import { addPushDevice, outboxRows } from "../../notifications/helpers";
import {
  examAttemptRow,
  examAttemptsOf,
  examForStudent,
  opened,
  saveSection,
  sectionAttemptRows,
  sectionQuizAttempts,
  single,
  startedExam,
  timerStub,
} from "./attempt-helpers";
import { schoolD1 } from "../../helpers/databases";

/**
 * Races with real concurrent requests. The barrier holds each request's D1 batch until all of
 * them have reached it, so every request has read before any writes: the worst interleaving,
 * every run.
 */

afterEach(() => setClockForTests(null));

const call = (db: D1Database, member: Member, path: string, body?: unknown) => requestWithD1(db, path, { token: member.token, tenant: member.subdomain, body });

describe("concurrent starts", () => {
  it("30 students start one exam at once: 30 attempts, each 201 with its own timer", async () => {
    const { school, exam } = await examForStudent({ maxAttempts: 1 });
    const students = await Promise.all(Array.from({ length: 30 }, () => signedIn(school, { role: "student" })));
    const barrier = barrierD1(await schoolD1(school.id), { held: /^insert into "exam_attempts"/i, parties: 30 });
    const responses = await Promise.all(students.map((student) => call(barrier.db, student, "/t/exam-attempts", { exam_id: exam.id })));
    expect(barrier.stats.releases).toEqual([30]);
    expect(responses.map((res) => res.status)).toEqual(Array<number>(30).fill(201));
    expect(new Set(responses.map((res) => res.body.data.user_id))).toEqual(new Set(students.map((student) => student.id)));
    const rows = await examAttemptsOf(exam.id);
    expect(rows).toHaveLength(30);
    expect(rows.map((row) => [row.status, row.deadlineAt - row.startedAt])).toEqual(Array(30).fill(["in_progress", 3_600_000]));
    const alarms = await Promise.all(rows.map((row) => runInDurableObject(timerStub(row.id), (_instance: ExamAttemptTimer, state) => state.storage.getAlarm())));
    expect(alarms).toEqual(rows.map((row) => row.deadlineAt - 300_000));
  });

  it("one student starting twice at once with max_attempts 1: exactly one attempt; the other request gets 200 with the same attempt", async () => {
    const { student, exam } = await examForStudent({ maxAttempts: 1 });
    const barrier = barrierD1(await schoolD1(student.tenantId), { held: /^insert into "exam_attempts"/i, parties: 2 });
    const responses = await Promise.all([0, 1].map(() => call(barrier.db, student, "/t/exam-attempts", { exam_id: exam.id })));
    expect(barrier.stats.releases).toEqual([2]);
    expect(responses.map((res) => res.status).sort()).toEqual([200, 201]);
    expect(responses[0]!.body.data.id).toBe(responses[1]!.body.data.id);
    expect(await examAttemptsOf(exam.id)).toHaveLength(1);
  });
});

describe("concurrent go", () => {
  it("10 go for one section at once: one quiz attempt, every answer names it, and saves go to it", async () => {
    const { student, exam, quizzes } = await examForStudent();
    const id = await startedExam(student, exam.id);
    const barrier = barrierD1(await schoolD1(student.tenantId), { held: /^insert into "quiz_attempts"/i, parties: 10 });
    const responses = await Promise.all(Array.from({ length: 10 }, () => call(barrier.db, student, `/t/exam-attempts/${id}/go`, { section_index: 1 })));
    expect(barrier.stats.releases).toEqual([10]);
    expect(responses.map((res) => res.status)).toEqual(Array<number>(10).fill(200));
    const quizAttempts = await sectionQuizAttempts(id);
    expect(quizAttempts).toHaveLength(1);
    expect(await sectionAttemptRows(id)).toEqual([expect.objectContaining({ examSectionId: exam.sectionIds[1], quizAttemptId: quizAttempts[0]!.id, position: 1 })]);
    expect((await saveSection(student, id, 1, [single(quizzes[1]!.questions[0]!, true)])).body.data).toMatchObject({ saved: 1 });
  });
});

describe("concurrent submits", () => {
  it("20 submits of one attempt: one 200, nineteen 409, one finish, one #44", async () => {
    const { school, student, exam, quizzes } = await examForStudent();
    const curator = await signedIn(school, { role: "curator" });
    await assignIndividualCurator(student.id, curator.id);
    await addPushDevice(school.id, curator.id);
    const id = await startedExam(student, exam.id);
    await opened(student, id, 0);
    await saveSection(student, id, 0, [single(quizzes[0]!.questions[0]!, true)]);
    // Held: the read every submit makes before closing the timer.
    const barrier = barrierD1(await schoolD1(student.tenantId), { held: /FROM exam_attempts ea WHERE ea\.id = \? AND ea\.tenant_id = \? AND ea\.user_id = \?/, parties: 20 });
    const responses = await Promise.all(Array.from({ length: 20 }, () => call(barrier.db, student, `/t/exam-attempts/${id}/submit`)));
    expect(barrier.stats.releases).toEqual([20]);
    expect(responses.map((res) => res.status).sort()).toEqual([200, ...Array<number>(19).fill(409)]);
    for (const res of responses.filter((r) => r.status === 409)) expect(failure(res)).toEqual({ status: 409, error: "exam_attempt_already_submitted" });
    expect(await examAttemptRow(id)).toMatchObject({ status: "submitted", finalScoreHundredths: 100, finalMaxHundredths: 400 });
    expect((await sectionQuizAttempts(id)).map((row) => [row.status, row.scoreHundredths])).toEqual([["submitted", 100]]);
    expect((await outboxRows(school.id)).map((row) => [row.eventCode, row.userId])).toEqual([["exam.attempt_finished", curator.id]]);
  });
});
