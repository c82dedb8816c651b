import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { barrierD1, requestWithD1 } from "../../helpers/d1-barrier";
import { schoolD1 } from "../../helpers/databases";
import { failure } from "../../helpers/http";
import * as schema from "../../../src/db/schema";
import { uuidv7 } from "../../../src/core/lib/ids";
import { db } from "../../helpers/factories";
import { giveQuizAccess, insertAttempt, insertQuiz } from "../../helpers/quizzes";
import { as, curatorWith, schoolWithAdmin, signedIn, unknownId, type Member } from "../../helpers/users";
import { auditOf } from "../../accommodations/helpers";
import { addPushDevice, outboxRows } from "../../notifications/helpers";
import { quizForStudent, save, started, submit } from "../attempts/helpers";
import {
  attemptsOf,
  expectFiguresRecomputed,
  expectTotalsConsistent,
  heldQuizPoints,
  recomputedQuizPoints,
  regrade,
  regradesOf,
  runChunk,
} from "./helpers";

/** POST /t/quiz-questions/:id/regrade (05 section 2, docs/decisions/regrade.md). */

type Question = { id: string; answerIds: string[] };

/** Submits one attempt answering the questions with the given answer index (null: left blank). */
async function attempt(student: Member, quizId: string, picks: [Question, number | null][]) {
  const id = await started(student, quizId);
  const answers = picks.filter(([, pick]) => pick !== null).map(([question, pick]) => ({ question_id: question.id, payload: { answer_ids: [question.answerIds[pick!]] } }));
  if (answers.length > 0) expect((await save(student, id, answers)).status).toBe(200);
  expect((await submit(student, id)).status).toBe(200);
  return id;
}

/**
 * A two-question quiz (passing 60 %) and three students: Ann answers both right (100 %), Ben the
 * first wrong (50 %), Cat leaves the first blank (50 %). Each has a push device.
 */
async function classroom() {
  const setup = await quizForStudent({ title: "Algebra", passingScore: 60, questions: [{ type: "single" }, { type: "single" }] });
  const { school, admin, quiz } = setup;
  const ann = setup.student;
  const ben = await signedIn(school, { role: "student" });
  const cat = await signedIn(school, { role: "student" });
  await giveQuizAccess(school.id, quiz.id, [ben.id, cat.id]);
  for (const student of [ann, ben, cat]) await addPushDevice(school.id, student.id);
  const [q1, q2] = quiz.questions as unknown as [Question, Question];
  const attempts = {
    ann: await attempt(ann, quiz.id, [[q1, 0], [q2, 0]]),
    ben: await attempt(ben, quiz.id, [[q1, 1], [q2, 0]]),
    cat: await attempt(cat, quiz.id, [[q1, null], [q2, 0]]),
  };
  return { school, admin, quiz, q1, q2, ann, ben, cat, attempts, students: [ann, ben, cat] };
}

const completionsOf = async (studentId: string) => (await db().select().from(schema.blockCompletions).where(eq(schema.blockCompletions.studentId, studentId))).length;

const change = (attemptId: string, studentId: string, oldScore: string, newScore: string, oldPassed: boolean | null, newPassed: boolean | null) => ({
  attempt_id: attemptId,
  student_id: studentId,
  old_score: oldScore,
  new_score: newScore,
  old_passed: oldPassed,
  new_passed: newPassed,
});

async function expectRatingRecomputed(c: Awaited<ReturnType<typeof classroom>>) {
  for (const student of c.students) {
    expect(await heldQuizPoints(c.school.id, c.quiz.id, student.id)).toBe(await recomputedQuizPoints(c.school.id, c.quiz.id, student.id));
    await expectTotalsConsistent(c.school.id, student.id);
  }
}

describe("regrade: dry run and real run", () => {
  it("accept_all: the dry run changes nothing and reports exactly what the real run then does; figures, rating, push, audit", async () => {
    const c = await classroom();
    const before = await attemptsOf(c.school.id, c.quiz.id);
    expect([await completionsOf(c.ann.id), await completionsOf(c.ben.id)]).toEqual([1, 0]);
    const dry = await regrade(c.admin, c.q1.id, { mode: "accept_all" });
    expect(dry.status).toBe(200);
    expect(dry.body.data).toEqual({
      dry_run: true,
      affected_attempts: 1,
      changes: [change(c.attempts.ben, c.ben.id, "50.00", "100.00", false, true)],
      truncated: false,
    });
    expect(await attemptsOf(c.school.id, c.quiz.id)).toEqual(before);
    expect(await regradesOf(c.school.id)).toEqual([]);

    const real = await regrade(c.admin, c.q1.id, { mode: "accept_all", dry_run: false });
    expect(real.status).toBe(200);
    expect(real.body.data).toEqual({ ...dry.body.data, dry_run: false });
    const after = await attemptsOf(c.school.id, c.quiz.id);
    expect(after[c.attempts.ben]).toMatchObject({ score: 200, max: 200, pct: 10000, passed: true });
    expect(after[c.attempts.ann]).toEqual(before[c.attempts.ann]);
    // Cat left the question blank: no answer, nothing to accept.
    expect(after[c.attempts.cat]).toEqual(before[c.attempts.cat]);
    expect((await regradesOf(c.school.id)).map((row) => [row.status, row.seq, row.mode])).toEqual([["done", 1, "accept_all"]]);
    // Ben's attempt now passes: it completes his quiz block as a pass at submit would have.
    expect(await completionsOf(c.ben.id)).toBe(1);

    await expectFiguresRecomputed(c.admin, c.quiz.id, c.students.map((s) => s.id));
    await expectRatingRecomputed(c);
    // Ben's points moved from 5.00 to 10.00 by one signed event keyed by the regrade.
    expect(await heldQuizPoints(c.school.id, c.quiz.id, c.ben.id)).toBe(1000);

    const pushes = (await outboxRows(c.school.id)).filter((row) => row.eventCode === "quiz.regraded");
    expect(pushes.map((row) => row.userId)).toEqual([c.ben.id]);
    expect(pushes[0]!.data).toMatchObject({ event_code: "quiz.regraded", title: "Algebra", old_score: "50.00", new_score: "100.00", quiz_attempt_id: c.attempts.ben });

    const audit = (await auditOf(c.school.id)).filter((entry) => entry.action === "regrade.applied");
    expect(audit).toEqual([
      { action: "regrade.applied", target_type: "quiz_question", target_id: c.q1.id, actor_id: c.admin.id, changes: { mode: [null, "accept_all"], affected_attempts: [null, 1] } },
    ]);

    // Again: every answer already has full points; nothing changes, the rating key of the second run is new but the difference is 0.
    const again = await regrade(c.admin, c.q1.id, { mode: "accept_all", dry_run: false });
    expect(again.body.data).toEqual({ dry_run: false, affected_attempts: 0, changes: [], truncated: false });
    await expectRatingRecomputed(c);
    expect((await outboxRows(c.school.id)).filter((row) => row.eventCode === "quiz.regraded")).toHaveLength(1);
  });

  it("new_key: the key becomes the question's, scores move both ways, the rating follows with a negative event", async () => {
    const c = await classroom();
    const dry = await regrade(c.admin, c.q1.id, { mode: "new_key", correct_answer_ids: [c.q1.answerIds[1]] });
    expect(dry.body.data).toEqual({
      dry_run: true,
      affected_attempts: 2,
      changes: [change(c.attempts.ann, c.ann.id, "100.00", "50.00", true, false), change(c.attempts.ben, c.ben.id, "50.00", "100.00", false, true)],
      truncated: false,
    });
    const real = await regrade(c.admin, c.q1.id, { mode: "new_key", correct_answer_ids: [c.q1.answerIds[1]], dry_run: false });
    expect(real.body.data).toEqual({ ...dry.body.data, dry_run: false });
    const question = await as(c.admin, `/t/quizzes/${c.quiz.id}`);
    const answers = (question.body.data.questions as { id: string; answers: { id: string; is_correct: boolean }[] }[]).find((q) => q.id === c.q1.id)!.answers;
    expect(answers.map((a) => [a.id, a.is_correct])).toEqual([
      [c.q1.answerIds[0], false],
      [c.q1.answerIds[1], true],
    ]);
    await expectFiguresRecomputed(c.admin, c.quiz.id, c.students.map((s) => s.id));
    await expectRatingRecomputed(c);
    expect(await heldQuizPoints(c.school.id, c.quiz.id, c.ann.id)).toBe(500);
    // Ann no longer passes, but a regrade never takes a completion back; Ben's new pass completes his block.
    expect([await completionsOf(c.ann.id), await completionsOf(c.ben.id)]).toEqual([1, 1]);
    const audit = (await auditOf(c.school.id)).filter((entry) => entry.action === "regrade.applied");
    expect(audit.map((entry) => entry.changes)).toEqual([
      { mode: [null, "new_key"], key: [{ correct_answer_ids: [c.q1.answerIds[0]] }, { correct_answer_ids: [c.q1.answerIds[1]] }], affected_attempts: [null, 2] },
    ]);
    // A later attempt is scored under the new key.
    const late = await signedIn(c.school, { role: "student" });
    await giveQuizAccess(c.school.id, c.quiz.id, [late.id]);
    const lateAttempt = await attempt(late, c.quiz.id, [[c.q1, 1], [c.q2, 0]]);
    expect((await attemptsOf(c.school.id, c.quiz.id))[lateAttempt]).toMatchObject({ pct: 10000, passed: true });
  });

  it("drop: the question's points leave max_score for answered and blank attempts alike, once", async () => {
    const c = await classroom();
    const dry = await regrade(c.admin, c.q1.id, { mode: "drop" });
    expect(dry.body.data).toEqual({
      dry_run: true,
      affected_attempts: 2,
      changes: [change(c.attempts.ben, c.ben.id, "50.00", "100.00", false, true), change(c.attempts.cat, c.cat.id, "50.00", "100.00", false, true)],
      truncated: false,
    });
    const real = await regrade(c.admin, c.q1.id, { mode: "drop", dry_run: false });
    expect(real.body.data).toEqual({ ...dry.body.data, dry_run: false });
    const after = await attemptsOf(c.school.id, c.quiz.id);
    expect([after[c.attempts.ann], after[c.attempts.ben], after[c.attempts.cat]].map((a) => [a!.score, a!.max, a!.pct])).toEqual([
      [100, 100, 10000],
      [100, 100, 10000],
      [100, 100, 10000],
    ]);
    await expectFiguresRecomputed(c.admin, c.quiz.id, c.students.map((s) => s.id));
    await expectRatingRecomputed(c);
    // A second drop (or any later regrade of the dropped question) re-scores nobody.
    expect((await regrade(c.admin, c.q1.id, { mode: "drop", dry_run: false })).body.data).toEqual({ dry_run: false, affected_attempts: 0, changes: [], truncated: false });
    expect((await regrade(c.admin, c.q1.id, { mode: "accept_all" })).body.data.affected_attempts).toBe(0);
    expect((await attemptsOf(c.school.id, c.quiz.id))[c.attempts.cat]).toMatchObject({ max: 100 });
    expect((await regradesOf(c.school.id)).map((row) => [row.seq, row.status]).sort()).toEqual([
      [1, "done"],
      [2, "done"],
    ]);
  });

  it("new_key on a free-text question: a matching answer gains, a credit from the old key goes, a person's grade stays", async () => {
    const { school, admin, student, quiz } = await quizForStudent({ passingScore: null, questions: [{ type: "free_text", correctText: ["paris"] }] });
    const q = quiz.questions[0]!;
    const other = await signedIn(school, { role: "student" });
    await giveQuizAccess(school.id, quiz.id, [other.id]);
    const right = await started(student, quiz.id);
    await save(student, right, [{ question_id: q.id, payload: { text: "Paris" } }]);
    await submit(student, right);
    const newly = await started(other, quiz.id);
    await save(other, newly, [{ question_id: q.id, payload: { text: "Lutetia" } }]);
    await submit(other, newly);
    expect((await as(admin, `/t/attempts/${newly}/grade`, { method: "POST", body: { grades: [{ question_id: q.id, awarded_points: "0.5" }] } })).status).toBe(200);
    const res = await regrade(admin, q.id, { mode: "new_key", correct_text: ["Lutetia"], dry_run: false });
    expect(res.body.data).toEqual({
      dry_run: false,
      affected_attempts: 2,
      changes: [change(right, student.id, "100.00", "0.00", true, true), change(newly, other.id, "50.00", "100.00", true, true)],
      truncated: false,
    });
    const question = await as(admin, `/t/quizzes/${quiz.id}`);
    expect(question.body.data.questions[0].correct_text).toEqual(["Lutetia"]);
  });
});

describe("regrade: errors", () => {
  it("400 invalid_request_body, 400 regrade_key_required, 404 question_not_found; the gate", async () => {
    const c = await classroom();
    const path = (id: string) => `/t/quiz-questions/${id}/regrade`;
    expect(failure(await regrade(c.admin, c.q1.id, { mode: "everything" }))).toEqual({ status: 400, error: "invalid_request_body" });
    expect(failure(await regrade(c.admin, c.q1.id, {}))).toEqual({ status: 400, error: "invalid_request_body" });
    expect(failure(await regrade(c.admin, c.q1.id, { mode: "drop", dry_run: "no" }))).toEqual({ status: 400, error: "invalid_request_body" });
    expect(failure(await regrade(c.admin, c.q1.id, { mode: "drop", extra: 1 }))).toEqual({ status: 400, error: "invalid_request_body" });
    expect(failure(await regrade(c.admin, c.q1.id, { mode: "accept_all", correct_answer_ids: [c.q1.answerIds[0]] }))).toEqual({ status: 400, error: "invalid_request_body" });
    expect(failure(await regrade(c.admin, c.q1.id, { mode: "new_key", correct_text: ["x"] }))).toEqual({ status: 400, error: "invalid_request_body" });
    expect(failure(await regrade(c.admin, c.q1.id, { mode: "new_key", correct_answer_ids: [unknownId()] }))).toEqual({ status: 400, error: "invalid_request_body" });
    expect(failure(await regrade(c.admin, c.q1.id, { mode: "new_key", correct_answer_ids: c.q1.answerIds }))).toEqual({ status: 400, error: "invalid_request_body" });
    expect(failure(await regrade(c.admin, c.q1.id, { mode: "new_key", correct_answer_ids: [c.q1.answerIds[0]], correct_text: ["x"] }))).toEqual({
      status: 400,
      error: "invalid_request_body",
    });
    expect(failure(await regrade(c.admin, c.q1.id, { mode: "new_key" }))).toEqual({ status: 400, error: "regrade_key_required" });
    expect(failure(await regrade(c.admin, c.q1.id, { mode: "new_key", dry_run: false }))).toEqual({ status: 400, error: "regrade_key_required" });
    expect(failure(await regrade(c.admin, unknownId(), { mode: "drop" }))).toEqual({ status: 404, error: "question_not_found" });
    // Another school's question, and a deleted one.
    const other = await schoolWithAdmin();
    const foreign = await insertQuiz(other.school.id, { questions: [{ type: "single" }] });
    expect(failure(await regrade(c.admin, foreign.questions[0]!.id, { mode: "drop" }))).toEqual({ status: 404, error: "question_not_found" });
    expect((await as(c.admin, `/t/quiz-questions/${c.q2.id}`, { method: "DELETE" })).status).toBe(204);
    expect(failure(await regrade(c.admin, c.q2.id, { mode: "drop" }))).toEqual({ status: 404, error: "question_not_found" });
    // can_manage_courses: a student and a curator without it are refused.
    expect(failure(await as(c.ann, path(c.q1.id), { method: "POST", body: { mode: "drop" } }))).toEqual({ status: 403, error: "forbidden" });
    const curator = await signedIn(c.school, curatorWith({ can_manage_students: true }));
    expect(failure(await as(curator, path(c.q1.id), { method: "POST", body: { mode: "drop" } }))).toEqual({ status: 403, error: "forbidden" });
    // Nothing of the refused calls was written.
    expect(await regradesOf(c.school.id)).toEqual([]);
  });

  it("409 regrade_in_progress: two concurrent real regrades of one quiz, exactly one runs", async () => {
    const c = await classroom();
    const barrier = barrierD1(await schoolD1(c.school.id), { held: /INSERT INTO quiz_regrades/, parties: 2, timeoutMs: 10_000 });
    const call = (questionId: string, mode: string) =>
      requestWithD1(barrier.db, `/t/quiz-questions/${questionId}/regrade`, { token: c.admin.token, tenant: c.school.subdomain, body: { mode, dry_run: false } });
    const results = await Promise.all([call(c.q1.id, "accept_all"), call(c.q2.id, "drop")]);
    expect(barrier.stats.releases).toEqual([2]);
    const statuses = results.map((res) => res.status).sort();
    expect(statuses).toEqual([200, 409]);
    const refused = results.find((res) => res.status === 409)!;
    expect(failure(refused)).toEqual({ status: 409, error: "regrade_in_progress" });
    const rows = await regradesOf(c.school.id);
    expect(rows.map((row) => row.status)).toEqual(["done"]);
    expect((await auditOf(c.school.id)).filter((entry) => entry.action === "regrade.applied")).toHaveLength(1);
  });

  it("409 regrade_in_progress while a queued regrade of the quiz runs, for a dry run too", async () => {
    const c = await classroom();
    await db()
      .insert(schema.quizRegrades)
      .values({ id: unknownId(), tenantId: c.school.id, quizId: c.quiz.id, questionId: c.q2.id, seq: 1, mode: "drop", pointsHundredths: 100, status: "running", createdAt: Date.now() });
    expect(failure(await regrade(c.admin, c.q1.id, { mode: "accept_all" }))).toEqual({ status: 409, error: "regrade_in_progress" });
    expect(failure(await regrade(c.admin, c.q1.id, { mode: "accept_all", dry_run: false }))).toEqual({ status: 409, error: "regrade_in_progress" });
  });
});

describe("regrade: chunks on the queue", () => {
  it("a quiz above one chunk is re-scored by the queue, chunk by chunk; a repeated chunk changes nothing twice; the result equals the dry run", async () => {
    const { school, admin, quiz } = await quizForStudent({ title: "Big", passingScore: 60, questions: [{ type: "single" }, { type: "single" }] });
    const [q1, q2] = quiz.questions as unknown as [Question, Question];
    const students: Member[] = [];
    for (let i = 0; i < 5; i += 1) students.push(await signedIn(school, { role: "student" }));
    // 105 attempts: 21 per student; every third answers q1 right (100 %), the others wrong (50 %).
    for (let n = 0; n < 105; n += 1) {
      const student = students[n % 5]!;
      const right = n % 3 === 0;
      const id = await insertAttempt(school.id, quiz.id, student.id, {
        scoreHundredths: right ? 200 : 100,
        maxScoreHundredths: 200,
        scorePctHundredths: right ? 10000 : 5000,
        passed: right,
      });
      const now = Date.now();
      await db()
        .insert(schema.quizAttemptAnswers)
        .values([
          { id: uuidv7(), tenantId: school.id, attemptId: id, quizId: quiz.id, userId: student.id, questionId: q1.id, payload: { answer_ids: [q1.answerIds[right ? 0 : 1]] }, awardedHundredths: right ? 100 : 0, isCorrect: right, savedAt: now },
        ]);
      await db()
        .insert(schema.quizAttemptAnswers)
        .values([{ id: uuidv7(), tenantId: school.id, attemptId: id, quizId: quiz.id, userId: student.id, questionId: q2.id, payload: { answer_ids: [q2.answerIds[0]] }, awardedHundredths: 100, isCorrect: true, savedAt: now }]);
    }
    const dry = await regrade(admin, q1.id, { mode: "accept_all" });
    expect(dry.body.data.affected_attempts).toBe(70);
    const real = await regrade(admin, q1.id, { mode: "accept_all", dry_run: false });
    expect(real.body.data).toEqual({ ...dry.body.data, dry_run: false });
    // The request only claimed it: nothing re-scored yet.
    const [row] = await regradesOf(school.id);
    expect(row!.status).toBe("running");
    const before = await attemptsOf(school.id, quiz.id);
    expect(Object.values(before).filter((a) => a.pct === 5000)).toHaveLength(70);

    await runChunk(school.id, row!.id, q1.id);
    expect(Object.values(await attemptsOf(school.id, quiz.id)).filter((a) => a.pct === 5000).length).toBeGreaterThan(0);
    await runChunk(school.id, row!.id, q1.id);
    const pushesBefore = (await outboxRows(school.id)).length;
    // Done; a repeated message changes nothing.
    await runChunk(school.id, row!.id, q1.id);
    expect((await regradesOf(school.id))[0]!.status).toBe("done");
    const after = await attemptsOf(school.id, quiz.id);
    for (const item of dry.body.data.changes as { attempt_id: string; new_score: string; new_passed: boolean }[]) {
      expect(after[item.attempt_id]).toMatchObject({ pct: 10000, passed: true });
    }
    expect(Object.values(after).every((a) => a.pct === 10000 && a.score === 200)).toBe(true);
    expect((await outboxRows(school.id)).length).toBe(pushesBefore);
    await expectFiguresRecomputed(admin, quiz.id, students.map((s) => s.id));
    for (const student of students) {
      expect(await heldQuizPoints(school.id, quiz.id, student.id)).toBe(await recomputedQuizPoints(school.id, quiz.id, student.id));
      await expectTotalsConsistent(school.id, student.id);
    }
  });
});
