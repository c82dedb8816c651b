import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { app } from "../../../src/app";
import * as schema from "../../../src/db/schema";
import { roundTripD1 } from "../../helpers/d1-counter";
import { insertExam, insertExamAttempt } from "../../helpers/exams";
import { createSchool, createUser, db } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { insertQuiz } from "../../helpers/quizzes";
import { addGroupCurator, addMember, assignIndividualCurator, createGroup, curatorWith, schoolWithAdmin, signedIn, unknownId, type Member } from "../../helpers/users";
import { analytics, attemptWithAnswers, buckets, insertAnswers, settled, ZERO_BUCKETS } from "./analytics-helpers";
import { schoolD1 } from "../../helpers/databases";
import { envWith } from "../../helpers/wrapped-d1";

/**
 * GET /t/quizzes/:id/analytics: exact figures over the attempts counted (outside exam sections;
 * students' by default, staff ones on request, a restricted curator's own students only), results
 * over the settled attempts, per-question counts, the ten score buckets, and the failures.
 */

/**
 * Passing score 60; live questions Q1, Q2, Q3, Q5 in that order (Q4 deleted). Attempts and the
 * verdicts of their answers (✓ full points, ✗ not, ? waiting for review, – left blank):
 *
 * | attempt            | state            | score  | Q1 | Q2 | Q3 | Q4 |
 * |--------------------|------------------|--------|----|----|----|----|
 * | Anna               | settled, passed  | 100.00 | ✓  | ✓  | ✓  | ✓  |
 * | Bekzod             | settled, passed  | 62.50  | ✓  | ✗  | ✓  | –  |
 * | Dilya              | settled, failed  | 0.00   | ✗  | ✗  | –  | –  |
 * | Eldor              | in progress      |        |    |    |    |    |
 * | Farid              | pending review   | 25.00  | ✓  | –  | ?  | –  |
 * | admin (staff)      | settled, passed  | 90.00  | ✓  | ✗  | ✓  | –  |
 * | manager (staff)    | in progress      |        |    |    |    |    |
 * | Anna, exam section | submitted        | 50.00  | ✓  | ✓  | –  | –  |  never counted
 * | Gulya (deleted)    | settled, passed  | 100.00 | ✓  | ✓  | ✓  | –  |  never counted
 *
 * The restricted curator's students are Anna (individually), Bekzod and Eldor (their group).
 */
async function preparedQuiz() {
  const { school, admin } = await schoolWithAdmin();
  const student = (firstName: string) => createUser(school.id, { role: "student", firstName });
  const [anna, bekzod, dilya, eldor, farid, gulya] = [
    await student("Anna"),
    await student("Bekzod"),
    await student("Dilya"),
    await student("Eldor"),
    await student("Farid"),
    await student("Gulya"),
  ];
  const curator = await signedIn(school, curatorWith({ can_view_analytics: true }));
  const manager = await signedIn(school, curatorWith({ can_view_analytics: true, can_manage_groups: true }));
  await assignIndividualCurator(anna.id, curator.id);
  const group = await createGroup(school.id);
  await addMember(group, bekzod.id);
  await addMember(group, eldor.id);
  await addGroupCurator(group, curator.id);

  const quiz = await insertQuiz(school.id, {
    passingScore: 60,
    questions: [{ type: "single" }, { type: "multiple" }, { type: "free_text" }, { type: "single", deleted: true }, { type: "matching" }],
  });
  const [q1, q2, q3, q4, q5] = quiz.questions.map((question) => question.id) as [string, string, string, string, string];
  const attempt = (userId: string, spec: Parameters<typeof attemptWithAnswers>[3], answers: Parameters<typeof attemptWithAnswers>[4] = []) =>
    attemptWithAnswers(school.id, quiz.id, userId, spec, answers);
  await attempt(anna.id, settled(10_000), [
    [q1, true],
    [q2, true],
    [q3, true],
    [q4, true],
  ]);
  await attempt(bekzod.id, settled(6250), [
    [q1, true],
    [q2, false],
    [q3, true],
  ]);
  await attempt(dilya.id, settled(0), [
    [q1, false],
    [q2, false],
  ]);
  await attempt(eldor.id, { status: "in_progress" });
  await attempt(farid.id, { ...settled(2500, null), pendingReview: true }, [
    [q1, true],
    [q3, null],
  ]);
  await attempt(admin.id, { actorRole: "admin", ...settled(9000) }, [
    [q1, true],
    [q2, false],
    [q3, true],
  ]);
  await attempt(manager.id, { actorRole: "curator", status: "in_progress" });
  const exam = await insertExam(school.id, { sections: [{ quizId: quiz.id }] });
  const inExam = await insertExamAttempt(school.id, exam.id, anna.id, {
    finalScorePctHundredths: 5000,
    passed: true,
    sections: [{ sectionId: exam.sectionIds[0]!, quizId: quiz.id, scoreHundredths: 50, maxScoreHundredths: 100 }],
  });
  await insertAnswers(school.id, quiz.id, anna.id, inExam.sections[0]!.quizAttemptId, [
    [q1, true],
    [q2, true],
  ]);
  await attempt(gulya.id, settled(10_000), [
    [q1, true],
    [q2, true],
    [q3, true],
  ]);
  await db().update(schema.users).set({ deletedAt: Date.now() }).where(eq(schema.users.id, gulya.id));
  // Another quiz of the school: its attempts never count here.
  const other = await insertQuiz(school.id, { questions: [{ type: "single" }] });
  await attemptWithAnswers(school.id, other.id, bekzod.id, settled(10_000), [[other.questions[0]!.id, true]]);
  return { school, admin, curator, manager, quiz, questions: { q1, q2, q3, q5 } };
}

const question = (question_id: string, answered: number, correct: number, success_rate: string | null) => ({ question_id, answered, correct, success_rate });

describe("GET /t/quizzes/:id/analytics", () => {
  it("students' attempts outside exams by default: counts, results of the settled attempts, per-question counts, buckets", async () => {
    const { admin, manager, quiz, questions: q } = await preparedQuiz();
    const expected = {
      quiz_id: quiz.id,
      attempt_count: 5,
      submitted_count: 4,
      completion_rate: "80.00",
      // (100.00 + 62.50 + 0.00) / 3 = 54.1666: Farid's pending 25.00 waits for its review.
      avg_score_pct: "54.17",
      max_score_pct: "100.00",
      min_score_pct: "0.00",
      pass_rate: "66.67",
      per_question: [question(q.q1, 3, 2, "66.67"), question(q.q2, 3, 1, "33.33"), question(q.q3, 2, 2, "100.00"), question(q.q5, 0, 0, null)],
      score_distribution: buckets({ 0: 1, 6: 1, 9: 1 }),
    };
    for (const [caller, query] of [
      [admin, ""],
      [admin, "?include_admin_attempts=false"],
      [manager, ""],
    ] as const) {
      const res = await analytics(caller, quiz.id, query);
      expect({ query, status: res.status, data: res.body.data }).toEqual({ query, status: 200, data: expected });
    }
  });

  it("include_admin_attempts=true adds staff attempts", async () => {
    const { admin, quiz, questions: q } = await preparedQuiz();
    const res = await analytics(admin, quiz.id, "?include_admin_attempts=true");
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      quiz_id: quiz.id,
      attempt_count: 7,
      submitted_count: 5,
      // 5 / 7 = 71.428
      completion_rate: "71.43",
      // 252.50 / 4 = 63.125: half-up
      avg_score_pct: "63.13",
      max_score_pct: "100.00",
      min_score_pct: "0.00",
      pass_rate: "75.00",
      per_question: [question(q.q1, 4, 3, "75.00"), question(q.q2, 4, 1, "25.00"), question(q.q3, 3, 3, "100.00"), question(q.q5, 0, 0, null)],
      score_distribution: buckets({ 0: 1, 6: 1, 9: 2 }),
    });
  });

  it("a restricted curator counts their own students only, staff attempts never", async () => {
    const { curator, quiz, questions: q } = await preparedQuiz();
    const expected = {
      quiz_id: quiz.id,
      attempt_count: 3,
      submitted_count: 2,
      completion_rate: "66.67",
      avg_score_pct: "81.25",
      max_score_pct: "100.00",
      min_score_pct: "62.50",
      pass_rate: "100.00",
      per_question: [question(q.q1, 2, 2, "100.00"), question(q.q2, 2, 1, "50.00"), question(q.q3, 2, 2, "100.00"), question(q.q5, 0, 0, null)],
      score_distribution: buckets({ 6: 1, 9: 1 }),
    };
    for (const query of ["", "?include_admin_attempts=true"]) {
      const res = await analytics(curator, quiz.id, query);
      expect({ query, status: res.status, data: res.body.data }).toEqual({ query, status: 200, data: expected });
    }
  });

  it("buckets are tenths of the range: 9.99 % in bucket 0, 10 % in 1, 90 % and 100 % in 9; no passing score: pass_rate null", async () => {
    const { school, admin } = await schoolWithAdmin();
    const quiz = await insertQuiz(school.id, { passingScore: null });
    for (const pct of [0, 999, 1000, 1999, 5000, 8999, 9000, 9999, 10_000]) {
      const student = await createUser(school.id, { role: "student" });
      await attemptWithAnswers(school.id, quiz.id, student.id, settled(pct, true));
    }
    const res = await analytics(admin, quiz.id);
    expect(res.body.data).toMatchObject({
      submitted_count: 9,
      completion_rate: "100.00",
      pass_rate: null,
      max_score_pct: "100.00",
      min_score_pct: "0.00",
      // 46,996 / 9 = 5221.78 hundredths
      avg_score_pct: "52.22",
      score_distribution: buckets({ 0: 2, 1: 2, 5: 1, 8: 1, 9: 3 }),
    });
  });

  it("without settled attempts: score figures and pass_rate null, ten empty buckets; an empty quiz", async () => {
    const { school, admin } = await schoolWithAdmin();
    const quiz = await insertQuiz(school.id, { passingScore: 50, questions: [{ type: "free_text" }] });
    const questionId = quiz.questions[0]!.id;
    const [waiting, working] = [await createUser(school.id, { role: "student" }), await createUser(school.id, { role: "student" })];
    await attemptWithAnswers(school.id, quiz.id, waiting.id, { ...settled(0, null), pendingReview: true }, [[questionId, null]]);
    await attemptWithAnswers(school.id, quiz.id, working.id, { status: "in_progress" });
    expect((await analytics(admin, quiz.id)).body.data).toEqual({
      quiz_id: quiz.id,
      attempt_count: 2,
      submitted_count: 1,
      completion_rate: "50.00",
      avg_score_pct: null,
      max_score_pct: null,
      min_score_pct: null,
      pass_rate: null,
      per_question: [question(questionId, 0, 0, null)],
      score_distribution: ZERO_BUCKETS,
    });
    const empty = await insertQuiz(school.id, { passingScore: 50 });
    const res = await analytics(admin, empty.id);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      quiz_id: empty.id,
      attempt_count: 0,
      submitted_count: 0,
      completion_rate: null,
      avg_score_pct: null,
      max_score_pct: null,
      min_score_pct: null,
      pass_rate: null,
      per_question: [],
      score_distribution: ZERO_BUCKETS,
    });
  });

  it("two round trips with the guard's read, with one attempt and question as with many", async () => {
    const { school, admin, curator, quiz } = await preparedQuiz();
    const small = await insertQuiz(school.id, { questions: [{ type: "single" }] });
    const student = await createUser(school.id, { role: "student" });
    await attemptWithAnswers(school.id, small.id, student.id, settled(10_000), [[small.questions[0]!.id, true]]);
    for (const [member, quizId] of [
      [admin, small.id],
      [admin, quiz.id],
      [curator, quiz.id],
    ] as const) {
      const trips = roundTripD1(await schoolD1(member.tenantId));
      const response = await app.request(
        `https://api.lms.localhost/api/v1/t/quizzes/${quizId}/analytics?include_admin_attempts=true`,
        { headers: { authorization: `Bearer ${member.token}`, "x-tenant-subdomain": member.subdomain } },
        envWith(trips.db),
      );
      await response.arrayBuffer();
      expect({ role: member.role, status: response.status, roundTrips: trips.roundTrips() }).toEqual({ role: member.role, status: 200, roundTrips: 2 });
    }
  });
});

describe("GET /t/quizzes/:id/analytics: failures", () => {
  it("400 invalid_include_admin_attempts for anything but true or false; 400 invalid_id_format", async () => {
    const { admin } = await schoolWithAdmin();
    const quiz = await insertQuiz(admin.tenantId);
    for (const value of ["yes", "1", "0", "TRUE", "", "true,false"]) {
      const res = await analytics(admin, quiz.id, `?include_admin_attempts=${value}`);
      expect({ value, ...failure(res) }).toEqual({ value, status: 400, error: "invalid_include_admin_attempts" });
    }
    expect(failure(await analytics(admin, "not-a-uuid"))).toEqual({ status: 400, error: "invalid_id_format" });
  });

  it("404 quiz_not_found: unknown, deleted, or of another school", async () => {
    const { admin } = await schoolWithAdmin();
    const foreign = await createSchool();
    const theirs = await insertQuiz(foreign.id, { questions: [{ type: "single" }] });
    const deleted = await insertQuiz(admin.tenantId, { deleted: true });
    for (const quizId of [unknownId(), deleted.id, theirs.id]) {
      expect(failure(await analytics(admin, quizId))).toEqual({ status: 404, error: "quiz_not_found" });
    }
  });

  it("403 forbidden for students and curators without view_analytics", async () => {
    const { school, admin } = await schoolWithAdmin();
    const quiz = await insertQuiz(admin.tenantId);
    const members: Member[] = [await signedIn(school, { role: "student" }), await signedIn(school, curatorWith({ can_view_analytics: false, can_manage_courses: true }))];
    for (const member of members) {
      expect({ role: member.role, ...failure(await analytics(member, quiz.id)) }).toEqual({ role: member.role, status: 403, error: "forbidden" });
    }
  });
});
