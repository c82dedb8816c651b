import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { app } from "../../../src/app";
import * as schema from "../../../src/db/schema";
import { roundTripD1 } from "../../helpers/d1-counter";
import { insertExam, insertExamAttempt, type SectionAttemptSpec } from "../../helpers/exams";
import { createSchool, createUser, db } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { insertQuiz } from "../../helpers/quizzes";
import { addGroupCurator, addMember, as, assignIndividualCurator, createGroup, curatorWith, schoolWithAdmin, signedIn, unknownId, type Member } from "../../helpers/users";
import { schoolD1 } from "../../helpers/databases";
import { envWith } from "../../helpers/wrapped-d1";

/**
 * GET /t/exams/:id/analytics: exact figures over the attempts counted (students' by default, staff
 * ones on request, a restricted curator's own students only), per-section means where a section
 * an attempt never opened counts 0 %, the ten score buckets, and the failures.
 */

const ZERO_BUCKETS = Array.from({ length: 10 }, (_, bucket) => ({ bucket, count: 0 }));

function buckets(counts: Record<number, number>) {
  return ZERO_BUCKETS.map(({ bucket }) => ({ bucket, count: counts[bucket] ?? 0 }));
}

const analytics = (member: Member, examId: string, query = "") => as(member, `/t/exams/${examId}/analytics${query}`);

/**
 * Three sections (weights 2, 1, 1; section quiz maxima 200, 100 and 300 points) and a deleted
 * fourth. Submitted students' attempts, with each section's percent and the final percent:
 *
 * | attempt   | S1 (w2)     | S2 (w1)    | S3 (w1)         | final  | passed |
 * |-----------|-------------|------------|-----------------|--------|--------|
 * | Anna #1   | 100.00      | 100.00     | 100.00          | 100.00 | yes    |
 * | Anna #2   | 0.00        | 10.00      | not opened (0)  | 2.50   | no     |
 * | Bekzod    | 75.00       | not opened | 33.33 (100/300) | 45.83  | no     |
 * | Dilya     | max 0 → 0   | 90.00      | not opened      | 22.50  | no     |
 * | Farid     | 60.00       | 60.00      | 60.00           | 60.00  | yes (= passing score) |
 *
 * Eldor has an attempt in progress; the admin a submitted 95.00; Gulya (deleted since) a 10.00.
 * The restricted curator's students are Anna (individually), Bekzod and Eldor (their group).
 */
async function preparedExam() {
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

  const [q1, q2, q3] = [await insertQuiz(school.id), await insertQuiz(school.id), await insertQuiz(school.id)];
  const exam = await insertExam(school.id, {
    passingScore: 60,
    sections: [
      { quizId: q1.id, weight: 2, title: "Reading" },
      { quizId: q2.id, weight: 1, title: "Writing" },
      { quizId: q3.id, weight: 1, title: "Listening" },
      { quizId: q1.id, weight: 5, title: "Removed", deleted: true },
    ],
  });
  const [s1, s2, s3, removed] = exam.sectionIds as [string, string, string, string];
  const s = (sectionId: string, scoreHundredths: number, maxScoreHundredths: number): SectionAttemptSpec => ({
    sectionId,
    quizId: sectionId === s1 || sectionId === removed ? q1.id : sectionId === s2 ? q2.id : q3.id,
    scoreHundredths,
    maxScoreHundredths,
  });
  const submitted = (pct: number, passed: boolean, sections: SectionAttemptSpec[]) => ({
    finalScoreHundredths: pct * 4,
    finalMaxHundredths: 400,
    finalScorePctHundredths: pct,
    passed,
    sections,
  });
  await insertExamAttempt(school.id, exam.id, anna.id, submitted(10_000, true, [s(s1, 20_000, 20_000), s(s2, 10_000, 10_000), s(s3, 30_000, 30_000)]));
  await insertExamAttempt(school.id, exam.id, anna.id, submitted(250, false, [s(s1, 0, 20_000), s(s2, 1000, 10_000)]));
  await insertExamAttempt(school.id, exam.id, bekzod.id, submitted(4583, false, [s(s1, 15_000, 20_000), s(s3, 10_000, 30_000)]));
  // A section the student opened once in a deleted section also left a row: it never shows.
  await insertExamAttempt(school.id, exam.id, dilya.id, submitted(2250, false, [s(s1, 0, 0), s(s2, 9000, 10_000), s(removed, 500, 500)]));
  await insertExamAttempt(school.id, exam.id, farid.id, submitted(6000, true, [s(s1, 12_000, 20_000), s(s2, 6000, 10_000), s(s3, 18_000, 30_000)]));
  await insertExamAttempt(school.id, exam.id, eldor.id, { status: "in_progress", sections: [s(s1, 0, 20_000)] });
  await insertExamAttempt(school.id, exam.id, admin.id, { actorRole: "admin", ...submitted(9500, true, [s(s1, 19_000, 20_000), s(s2, 9500, 10_000), s(s3, 28_500, 30_000)]) });
  await insertExamAttempt(school.id, exam.id, gulya.id, submitted(1000, false, [s(s1, 2000, 20_000)]));
  await db().update(schema.users).set({ deletedAt: Date.now() }).where(eq(schema.users.id, gulya.id));
  // Another exam of the school: its attempts never count here.
  const other = await insertExam(school.id, { sections: [{ quizId: q1.id }] });
  await insertExamAttempt(school.id, other.id, bekzod.id, submitted(10_000, true, []));
  return { school, admin, curator, manager, exam, sections: { s1, s2, s3 } };
}

describe("GET /t/exams/:id/analytics", () => {
  it("students' attempts by default: counts, exact means rounded once, per-section means with unopened sections at 0 %, buckets", async () => {
    const { admin, manager, exam, sections } = await preparedExam();
    const expected = {
      exam_id: exam.id,
      attempt_count: 6,
      submitted_count: 5,
      passed_count: 2,
      pass_rate: "40.00",
      // (100.00 + 2.50 + 45.83 + 22.50 + 60.00) / 5 = 46.166
      avg_score_pct: "46.17",
      max_score_pct: "100.00",
      min_score_pct: "2.50",
      per_section: [
        // (100 + 0 + 75 + 0 + 60) / 5
        { section_id: sections.s1, title: "Reading", weight: 2, avg_score_pct: "47.00" },
        // (100 + 10 + 0 + 90 + 60) / 5
        { section_id: sections.s2, title: "Writing", weight: 1, avg_score_pct: "52.00" },
        // (100 + 0 + 33.33 + 0 + 60) / 5 = 38.666
        { section_id: sections.s3, title: "Listening", weight: 1, avg_score_pct: "38.67" },
      ],
      score_distribution: buckets({ 0: 1, 2: 1, 4: 1, 6: 1, 9: 1 }),
    };
    for (const [caller, query] of [
      [admin, ""],
      [admin, "?include_admin_attempts=false"],
      [manager, ""],
    ] as const) {
      const res = await analytics(caller, exam.id, query);
      expect({ query, status: res.status, data: res.body.data }).toEqual({ query, status: 200, data: expected });
    }
  });

  it("include_admin_attempts=true adds staff attempts", async () => {
    const { admin, exam, sections } = await preparedExam();
    const res = await analytics(admin, exam.id, "?include_admin_attempts=true");
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      exam_id: exam.id,
      attempt_count: 7,
      submitted_count: 6,
      passed_count: 3,
      pass_rate: "50.00",
      // 325.83 / 6 = 54.305: half-up
      avg_score_pct: "54.31",
      max_score_pct: "100.00",
      min_score_pct: "2.50",
      per_section: [
        { section_id: sections.s1, title: "Reading", weight: 2, avg_score_pct: "55.00" },
        // 355 / 6 = 59.166
        { section_id: sections.s2, title: "Writing", weight: 1, avg_score_pct: "59.17" },
        // 288.33 / 6 = 48.055
        { section_id: sections.s3, title: "Listening", weight: 1, avg_score_pct: "48.06" },
      ],
      score_distribution: buckets({ 0: 1, 2: 1, 4: 1, 6: 1, 9: 2 }),
    });
  });

  it("a restricted curator counts their own students only, staff attempts never", async () => {
    const { curator, exam, sections } = await preparedExam();
    const expected = {
      exam_id: exam.id,
      attempt_count: 4,
      submitted_count: 3,
      passed_count: 1,
      pass_rate: "33.33",
      // (100.00 + 2.50 + 45.83) / 3 = 49.443
      avg_score_pct: "49.44",
      max_score_pct: "100.00",
      min_score_pct: "2.50",
      per_section: [
        { section_id: sections.s1, title: "Reading", weight: 2, avg_score_pct: "58.33" },
        { section_id: sections.s2, title: "Writing", weight: 1, avg_score_pct: "36.67" },
        { section_id: sections.s3, title: "Listening", weight: 1, avg_score_pct: "44.44" },
      ],
      score_distribution: buckets({ 0: 1, 4: 1, 9: 1 }),
    };
    for (const query of ["", "?include_admin_attempts=true"]) {
      const res = await analytics(curator, exam.id, query);
      expect({ query, status: res.status, data: res.body.data }).toEqual({ query, status: 200, data: expected });
    }
  });

  it("buckets are tenths of the range, 100 % in bucket 9", async () => {
    const { school, admin } = await schoolWithAdmin();
    const exam = await insertExam(school.id, { sections: [{ quizId: (await insertQuiz(school.id)).id }] });
    for (const pct of [0, 999, 1000, 1999, 4999, 5000, 8999, 9000, 9999, 10_000]) {
      const student = await createUser(school.id, { role: "student" });
      await insertExamAttempt(school.id, exam.id, student.id, { finalScoreHundredths: pct, finalMaxHundredths: 100, finalScorePctHundredths: pct, passed: true });
    }
    const res = await analytics(admin, exam.id);
    expect(res.body.data.score_distribution).toEqual(buckets({ 0: 2, 1: 2, 4: 1, 5: 1, 8: 1, 9: 3 }));
    expect(res.body.data).toMatchObject({ submitted_count: 10, passed_count: 10, pass_rate: null, max_score_pct: "100.00", min_score_pct: "0.00" });
  });

  it("a section's percent per attempt is score / max rounded half-up, a score above the max counting as the max", async () => {
    const { school, admin } = await schoolWithAdmin();
    const quiz = await insertQuiz(school.id);
    const exam = await insertExam(school.id, { sections: [{ quizId: quiz.id }] });
    const sectionId = exam.sectionIds[0]!;
    for (const [score, max] of [
      [200, 300],
      [150, 100],
    ]) {
      const student = await createUser(school.id, { role: "student" });
      await insertExamAttempt(school.id, exam.id, student.id, { finalScorePctHundredths: 5000, passed: true, sections: [{ sectionId, quizId: quiz.id, scoreHundredths: score, maxScoreHundredths: max }] });
    }
    // (66.67 + 100.00) / 2 = 83.335
    expect((await analytics(admin, exam.id)).body.data.per_section).toEqual([{ section_id: sectionId, title: "Section 1", weight: 1, avg_score_pct: "83.34" }]);
  });

  it("without submitted attempts: counts 0, percentages null, ten empty buckets", async () => {
    const { school, admin } = await schoolWithAdmin();
    const quiz = await insertQuiz(school.id);
    const exam = await insertExam(school.id, { passingScore: 50, sections: [{ quizId: quiz.id, weight: 3, title: "Only" }] });
    const student = await createUser(school.id, { role: "student" });
    await insertExamAttempt(school.id, exam.id, student.id, { status: "in_progress", sections: [{ sectionId: exam.sectionIds[0]!, quizId: quiz.id }] });
    const res = await analytics(admin, exam.id);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      exam_id: exam.id,
      attempt_count: 1,
      submitted_count: 0,
      passed_count: 0,
      pass_rate: null,
      avg_score_pct: null,
      max_score_pct: null,
      min_score_pct: null,
      per_section: [{ section_id: exam.sectionIds[0], title: "Only", weight: 3, avg_score_pct: null }],
      score_distribution: ZERO_BUCKETS,
    });
    // A draft exam without sections or attempts.
    const draft = await insertExam(school.id, { status: "draft" });
    expect((await analytics(admin, draft.id)).body.data).toEqual({
      exam_id: draft.id,
      attempt_count: 0,
      submitted_count: 0,
      passed_count: 0,
      pass_rate: null,
      avg_score_pct: null,
      max_score_pct: null,
      min_score_pct: null,
      per_section: [],
      score_distribution: ZERO_BUCKETS,
    });
  });

  it("pass_rate: null without a passing score; a passing score of 0 is set", async () => {
    const { school, admin } = await schoolWithAdmin();
    const quiz = await insertQuiz(school.id);
    const rates: [number | null, string | null][] = [
      [null, null],
      [0, "100.00"],
    ];
    for (const [passingScore, passRate] of rates) {
      const exam = await insertExam(school.id, { passingScore, sections: [{ quizId: quiz.id }] });
      for (const pct of [0, 5000]) {
        const student = await createUser(school.id, { role: "student" });
        await insertExamAttempt(school.id, exam.id, student.id, { finalScoreHundredths: pct, finalMaxHundredths: 100, finalScorePctHundredths: pct, passed: true });
      }
      const res = await analytics(admin, exam.id);
      expect({ passingScore, data: res.body.data }).toMatchObject({
        passingScore,
        data: { submitted_count: 2, passed_count: 2, pass_rate: passRate, avg_score_pct: "25.00", score_distribution: buckets({ 0: 1, 5: 1 }) },
      });
    }
  });

  it("two round trips with the guard's read, whatever the number of attempts", async () => {
    const { admin, curator, exam } = await preparedExam();
    for (const member of [admin, curator]) {
      const trips = roundTripD1(await schoolD1(member.tenantId));
      const response = await app.request(
        `https://api.lms.localhost/api/v1/t/exams/${exam.id}/analytics?include_admin_attempts=true`,
        { headers: { authorization: `Bearer ${member.token}`, "x-tenant-subdomain": member.subdomain } },
        envWith(trips.db),
      );
      await response.arrayBuffer();
      expect({ role: member.role, status: response.status, roundTrips: trips.roundTrips() }).toEqual({ role: member.role, status: 200, roundTrips: 2 });
    }
  });

  it("400 invalid_params for include_admin_attempts other than true or false; 400 invalid_id_format", async () => {
    const { admin, exam } = await preparedExam();
    for (const value of ["yes", "1", "TRUE", "", "true,false"]) {
      const res = await analytics(admin, exam.id, `?include_admin_attempts=${value}`);
      expect({ value, ...failure(res) }).toEqual({ value, status: 400, error: "invalid_params" });
    }
    expect(failure(await analytics(admin, "not-a-uuid"))).toEqual({ status: 400, error: "invalid_id_format" });
  });

  it("404 exam_not_found: unknown, deleted, or of another school", async () => {
    const { admin } = await schoolWithAdmin();
    const foreign = await createSchool();
    const quiz = await insertQuiz(foreign.id);
    const theirs = await insertExam(foreign.id, { sections: [{ quizId: quiz.id }] });
    const deleted = await insertExam(admin.tenantId, { deleted: true });
    for (const examId of [unknownId(), deleted.id, theirs.id]) {
      expect(failure(await analytics(admin, examId))).toEqual({ status: 404, error: "exam_not_found" });
    }
  });

  it("403 forbidden for students and curators without view_analytics", async () => {
    const { school, exam } = await preparedExam();
    const student = await signedIn(school, { role: "student" });
    const curator = await signedIn(school, curatorWith({ can_view_analytics: false, can_manage_exams: true }));
    for (const member of [student, curator]) {
      expect({ role: member.role, ...failure(await analytics(member, exam.id)) }).toEqual({ role: member.role, status: 403, error: "forbidden" });
    }
  });
});
