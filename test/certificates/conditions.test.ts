import { describe, expect, it } from "vitest";
import { insertExam, insertExamAttempt } from "../helpers/exams";
import { barrierD1, requestWithD1 } from "../helpers/d1-barrier";
import { roundTripD1 } from "../helpers/d1-counter";
import { schoolD1 } from "../helpers/databases";
import { as, schoolWithAdmin, signedIn } from "../helpers/users";
import { certificateRows, completeBlock, courseWithStudent, putRule } from "./helpers";
import { insertEnrollment } from "../helpers/courses";
import { addPushDevice, outboxRows } from "../notifications/helpers";
import { examForStudent, opened, saveSection, single, startedExam, submitExam, type ExamSetup } from "../content/exams/attempt-helpers";
import type { Member } from "../helpers/users";

/** The exam condition of the rule, concurrency and the cost of issuance (05 section 4). */

describe("the rule's exam condition", () => {
  it("with min_exam_pct, a submitted attempt at or above it; without, a passed one; issue-missing applies the same rule", async () => {
    const { school, admin } = await schoolWithAdmin();
    const exam = await insertExam(school.id);
    const draft = await insertExam(school.id, { status: "draft" });
    const [low, high, passed, none] = [await signedIn(school, { role: "student" }), await signedIn(school, { role: "student" }), await signedIn(school, { role: "student" }), await signedIn(school, { role: "student" })];
    const tree = await courseWithStudent(school.id, low);
    for (const student of [high, passed, none]) await insertEnrollment(school.id, tree.courseId, student.id);
    await insertExamAttempt(school.id, exam.id, low.id, { status: "submitted", finalScorePctHundredths: 6999, passed: true });
    await insertExamAttempt(school.id, exam.id, high.id, { status: "submitted", finalScorePctHundredths: 7000, passed: false });
    await insertExamAttempt(school.id, exam.id, passed.id, { status: "submitted", finalScorePctHundredths: 10, passed: true });
    await insertExamAttempt(school.id, exam.id, none.id, { status: "in_progress" });

    expect((await putRule(admin, tree.courseId, { enabled: true, require_exam_id: draft.id })).status).toBe(400);
    expect((await putRule(admin, tree.courseId, { enabled: true, require_exam_id: exam.id, min_exam_pct: 70 })).body.data).toMatchObject({ require_exam_id: exam.id, min_exam_pct: 70 });
    for (const student of [low, high, passed, none]) expect((await completeBlock(student, tree.blockIds[0]!)).status).toBe(200);
    expect((await certificateRows(low.id)).length).toBe(0);
    expect((await certificateRows(high.id)).length).toBe(1);
    expect((await certificateRows(passed.id)).length).toBe(0);
    expect((await certificateRows(none.id)).length).toBe(0);

    // Without a minimum, a passed attempt qualifies: the two that passed get theirs now.
    await putRule(admin, tree.courseId, { enabled: true, require_exam_id: exam.id });
    expect((await as(admin, `/t/courses/${tree.courseId}/certificates/issue-missing`, { method: "POST" })).body.data).toEqual({ issued: 2 });
    expect((await certificateRows(low.id)).length).toBe(1);
    expect((await certificateRows(passed.id)).length).toBe(1);
    expect((await certificateRows(none.id)).length).toBe(0);
    const codes = (await Promise.all([low, high, passed].map((student) => certificateRows(student.id)))).map(([row]) => row!.code);
    expect(new Set(codes).size).toBe(3);
  });
});

describe("an exam passed after the course was completed", () => {
  async function take(setup: ExamSetup, member: Member, pass: boolean) {
    const id = await startedExam(member, setup.exam.id);
    await opened(member, id, 0);
    await opened(member, id, 1);
    await saveSection(member, id, 0, [single(setup.quizzes[0]!.questions[0]!, pass)]);
    await saveSection(member, id, 1, setup.quizzes[1]!.questions.map((question) => single(question, pass)));
    const res = await submitExam(member, id);
    expect(res.status).toBe(200);
    return id;
  }

  it("issues the certificate in the exam's finishing batch, once: not for a failed attempt, not again on a retried submit", async () => {
    const setup = await examForStudent({ title: "Final", passingScore: 60 });
    const { school, admin, student } = setup;
    const tree = await courseWithStudent(school.id, student);
    expect((await putRule(admin, tree.courseId, { enabled: true, require_exam_id: setup.exam.id })).status).toBe(200);
    await addPushDevice(school.id, student.id);
    expect((await completeBlock(student, tree.blockIds[0]!)).status).toBe(200);
    expect(await certificateRows(student.id)).toHaveLength(0);

    await take(setup, student, false);
    expect(await certificateRows(student.id)).toHaveLength(0);

    const passed = await take(setup, student, true);
    const [certificate] = await certificateRows(student.id);
    expect(certificate).toMatchObject({ courseId: tree.courseId, studentId: student.id, revokedAt: null });
    // A repeated submit is refused (the attempt is already submitted) and issues nothing more.
    expect((await submitExam(student, passed)).status).toBe(409);
    expect(await certificateRows(student.id)).toHaveLength(1);
    const pushes = (await outboxRows(school.id)).filter((row) => row.eventCode === "certificate.issued");
    expect(pushes.map((row) => row.userId)).toEqual([student.id]);
  });
});

describe("issuance under concurrency and its cost", () => {
  it("8 concurrent completions of the last block: exactly one certificate and one push", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    const tree = await courseWithStudent(school.id, student);
    await putRule(admin, tree.courseId, { enabled: true });
    await addPushDevice(school.id, student.id);
    const barrier = barrierD1(await schoolD1(school.id), { held: /^INSERT INTO block_completions/i, parties: 8 });
    const results = await Promise.all(
      Array.from({ length: 8 }, () => requestWithD1(barrier.db, `/t/blocks/${tree.blockIds[0]}/complete`, { token: student.token, tenant: student.subdomain })),
    );
    expect(results.map((res) => res.status)).toEqual(Array(8).fill(200));
    expect(await certificateRows(student.id)).toHaveLength(1);
    expect((await outboxRows(school.id)).filter((row) => row.eventCode === "certificate.issued").map((row) => row.userId)).toEqual([student.id]);
  });

  it("the completing request makes the same round trips with and without a rule", async () => {
    const { school, admin } = await schoolWithAdmin();
    const trips = async (withRule: boolean) => {
      const student = await signedIn(school, { role: "student" });
      const tree = await courseWithStudent(school.id, student);
      if (withRule) await putRule(admin, tree.courseId, { enabled: true });
      const counted = roundTripD1(await schoolD1(school.id));
      const res = await requestWithD1(counted.db, `/t/blocks/${tree.blockIds[0]}/complete`, { token: student.token, tenant: student.subdomain });
      expect(res.status).toBe(200);
      expect((await certificateRows(student.id)).length).toBe(withRule ? 1 : 0);
      return counted.stats;
    };
    expect(await trips(true)).toEqual(await trips(false));
  });
});
