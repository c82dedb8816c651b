import { describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";
import { uuidv7 } from "../../../src/core/lib/ids";
import { barrierD1 } from "../../helpers/d1-barrier";
import { fixtureD1, schoolD1 } from "../../helpers/databases";
import { db } from "../../helpers/factories";
import { envWith } from "../../helpers/wrapped-d1";
import { as, signedIn, type Member } from "../../helpers/users";
import { auditOf } from "../../accommodations/helpers";
import { certificateRows, completeBlock, courseWithStudent, putRule } from "../../certificates/helpers";
import { insertEnrollment } from "../../helpers/courses";
import { addPushDevice, outboxRows } from "../../notifications/helpers";
import { answersOf, examAttemptRow, examForStudent, opened, readExamAttempt, saveSection, sectionQuizAttempts, single, startedExam, submitExam } from "../exams/attempt-helpers";
import {
  expectExamFiguresRecomputed,
  expectTotalsConsistent,
  heldExamPoints,
  heldQuizPoints,
  recomputedExamPoints,
  regrade,
  regradesOf,
  runChunk,
} from "./helpers";

/**
 * A regrade of a question inside exam sections (docs/decisions/regrade.md, "Exam sections"): the
 * sections' quiz attempts are re-scored, and each finished exam attempt whose section moved gets
 * its result re-derived as the exam's finish computes it.
 */

type Question = { id: string; answerIds: string[] };

/**
 * A finished exam, passing score 50, of two sections: "Algebra" (weight 1) and "Geometry" (weight
 * 3), each a quiz of two single-choice questions of 1 point whose first answer is keyed right.
 * Algebra's first question has a wrong key: its second answer is the right one.
 *
 * | student | Algebra q1, q2  | Geometry | final before    | after the new key (Algebra)      |
 * |---------|-----------------|----------|-----------------|----------------------------------|
 * | Ann     | first, right    | 2 of 2   | 100.00 passed   | 50 % → (0.5 + 3) / 4 = 87.50     |
 * | Ben     | second, wrong   | 1 of 2   | 37.50 failed    | 50 % → (0.5 + 1.5) / 4 = 50.00   |
 * | Cat     | second, right   | 1 of 2   | 50.00 passed    | 100 % → (1 + 1.5) / 4 = 62.50    |
 *
 * Dan's attempt is in progress: Algebra opened, its first question answered with the second answer.
 */
async function examRoom() {
  const setup = await examForStudent({ title: "Final exam", passingScore: 50 }, [
    { quiz: { title: "Algebra quiz", questions: [{ type: "single" }, { type: "single" }] }, weight: 1, title: "Algebra" },
    { quiz: { title: "Geometry quiz", questions: [{ type: "single" }, { type: "single" }] }, weight: 3, title: "Geometry" },
  ]);
  const { school, admin, exam, quizzes } = setup;
  const ann = setup.student;
  const ben = await signedIn(school, { role: "student" });
  const cat = await signedIn(school, { role: "student" });
  const dan = await signedIn(school, { role: "student" });
  for (const student of [ann, ben, cat, dan]) await addPushDevice(school.id, student.id);
  const [a1, a2] = quizzes[0]!.questions as unknown as [Question, Question];
  const [g1, g2] = quizzes[1]!.questions as unknown as [Question, Question];
  async function take(student: Member, algebra: [boolean, boolean], geometry: [boolean, boolean]) {
    const id = await startedExam(student, exam.id);
    await opened(student, id, 0);
    expect((await saveSection(student, id, 0, [single(a1, algebra[0]), single(a2, algebra[1])])).status).toBe(200);
    await opened(student, id, 1);
    expect((await saveSection(student, id, 1, [single(g1, geometry[0]), single(g2, geometry[1])])).status).toBe(200);
    expect((await submitExam(student, id)).status).toBe(200);
    return id;
  }
  const attempts = {
    ann: await take(ann, [true, true], [true, true]),
    ben: await take(ben, [false, false], [true, false]),
    cat: await take(cat, [false, true], [true, false]),
  };
  const danAttempt = await startedExam(dan, exam.id);
  await opened(dan, danAttempt, 0);
  expect((await saveSection(dan, danAttempt, 0, [single(a1, false)])).status).toBe(200);
  return { school, admin, exam, algebra: quizzes[0]!, a1, a2, ann, ben, cat, dan, attempts, danAttempt, students: [ann, ben, cat] };
}

const change = (attemptId: string, studentId: string, oldScore: string, newScore: string, oldPassed: boolean, newPassed: boolean) => ({
  attempt_id: attemptId,
  student_id: studentId,
  old_score: oldScore,
  new_score: newScore,
  old_passed: oldPassed,
  new_passed: newPassed,
});

const finals = async (ids: readonly string[]) =>
  Promise.all(
    ids.map(async (id) => {
      const row = await examAttemptRow(id);
      return [row.finalScoreHundredths, row.finalMaxHundredths, row.finalScorePctHundredths, row.passed];
    }),
  );

async function expectExamRatingRecomputed(c: Awaited<ReturnType<typeof examRoom>>) {
  for (const student of c.students) {
    expect(await heldExamPoints(c.school.id, c.exam.id, student.id)).toBe(await recomputedExamPoints(c.school.id, c.exam.id, student.id));
    // A section's quiz earns no quiz points, before or after.
    expect(await heldQuizPoints(c.school.id, c.algebra.id, student.id)).toBe(0);
    await expectTotalsConsistent(c.school.id, student.id);
  }
}

const regradedPushes = async (tenantId: string) => (await outboxRows(tenantId)).filter((row) => row.eventCode === "quiz.regraded");

describe("regrade inside exam sections", () => {
  it("new_key: the dry run lists the exam attempts the real run re-derives; figures, analytics, rating, pushes, audit; an exam in progress is untouched", async () => {
    const c = await examRoom();
    expect(await finals([c.attempts.ann, c.attempts.ben, c.attempts.cat])).toEqual([
      [400, 400, 10000, true],
      [150, 400, 3750, false],
      [200, 400, 5000, true],
    ]);
    const danBefore = { row: await examAttemptRow(c.danAttempt), sections: await sectionQuizAttempts(c.danAttempt) };
    const danAnswers = await answersOf(danBefore.sections[0]!.id);
    const body = { mode: "new_key", correct_answer_ids: [c.a1.answerIds[1]] };

    const dry = await regrade(c.admin, c.a1.id, body);
    expect(dry.status).toBe(200);
    expect(dry.body.data).toEqual({
      dry_run: true,
      affected_attempts: 3,
      changes: [
        change(c.attempts.ann, c.ann.id, "100.00", "87.50", true, true),
        change(c.attempts.ben, c.ben.id, "37.50", "50.00", false, true),
        change(c.attempts.cat, c.cat.id, "50.00", "62.50", true, true),
      ],
      truncated: false,
    });
    expect(await finals([c.attempts.ann, c.attempts.ben, c.attempts.cat])).toEqual([
      [400, 400, 10000, true],
      [150, 400, 3750, false],
      [200, 400, 5000, true],
    ]);

    const real = await regrade(c.admin, c.a1.id, { ...body, dry_run: false });
    expect(real.status).toBe(200);
    expect(real.body.data).toEqual({ ...dry.body.data, dry_run: false });
    expect((await regradesOf(c.school.id)).map((row) => row.status)).toEqual(["done"]);
    // The exam's own figures, computed by hand in the table above.
    expect(await finals([c.attempts.ann, c.attempts.ben, c.attempts.cat])).toEqual([
      [350, 400, 8750, true],
      [200, 400, 5000, true],
      [250, 400, 6250, true],
    ]);
    const annView = (await readExamAttempt(c.ann, c.attempts.ann)).body.data;
    expect(annView).toMatchObject({ final_score: "3.50", final_max_score: "4.00", final_score_pct: "87.50", passed: true });
    expect(annView.sections).toEqual([
      { section_id: c.exam.sectionIds[0], title: "Algebra", weight: 1, score: "0.50", max_score: "1.00", score_pct: "50.00" },
      { section_id: c.exam.sectionIds[1], title: "Geometry", weight: 3, score: "3.00", max_score: "3.00", score_pct: "100.00" },
    ]);
    const [annAlgebra] = (await sectionQuizAttempts(c.attempts.ann)).filter((row) => row.quizId === c.algebra.id);
    expect([annAlgebra!.scoreHundredths, annAlgebra!.maxScoreHundredths, annAlgebra!.scorePctHundredths]).toEqual([100, 200, 5000]);

    // Dan's exam is in progress: neither it nor its section's quiz attempt is touched; its finish scores under the new key.
    expect(await examAttemptRow(c.danAttempt)).toEqual(danBefore.row);
    expect(await sectionQuizAttempts(c.danAttempt)).toEqual(danBefore.sections);
    expect(await answersOf(danBefore.sections[0]!.id)).toEqual(danAnswers);

    const analytics = (await as(c.admin, `/t/exams/${c.exam.id}/analytics`)).body.data;
    expect(analytics).toMatchObject({ submitted_count: 3, passed_count: 3, avg_score_pct: "66.67", max_score_pct: "87.50", min_score_pct: "50.00" });
    await expectExamFiguresRecomputed(c.admin, c.exam.id, [...c.students, c.dan].map((s) => s.id));
    await expectExamRatingRecomputed(c);
    // Default exam rule: raw 20.00 points; Ann's 20.00 went down to 17.50 by a negative event.
    expect(await Promise.all(c.students.map((s) => heldExamPoints(c.school.id, c.exam.id, s.id)))).toEqual([1750, 1000, 1250]);

    const pushes = await regradedPushes(c.school.id);
    expect(pushes.map((row) => row.userId).sort()).toEqual(c.students.map((s) => s.id).sort());
    expect(pushes.find((row) => row.userId === c.ben.id)!.data).toMatchObject({ event_code: "quiz.regraded", title: "Final exam", old_score: "37.50", new_score: "50.00" });

    const audit = (await auditOf(c.school.id)).filter((entry) => entry.action === "regrade.applied");
    expect(audit.map((entry) => entry.changes)).toEqual([
      { mode: [null, "new_key"], key: [{ correct_answer_ids: [c.a1.answerIds[0]] }, { correct_answer_ids: [c.a1.answerIds[1]] }], affected_attempts: [null, 3] },
    ]);

    // Dan finishes later: his Algebra is scored under the new key (q1 right, q2 blank: 50 %), Geometry unopened.
    expect((await submitExam(c.dan, c.danAttempt)).status).toBe(200);
    expect(await finals([c.danAttempt])).toEqual([[50, 400, 1250, false]]);
  });

  it("drop: the question's point leaves the sections' maxima; only exam attempts whose result moves are listed; a second drop re-scores nobody", async () => {
    const c = await examRoom();
    // Algebra without its first question: Ann 1 of 1 (100 %, as before), Ben 0 of 1 (0 %, as before), Cat 1 of 1 (100 %, was 50 %).
    const dry = await regrade(c.admin, c.a1.id, { mode: "drop" });
    expect(dry.body.data).toEqual({ dry_run: true, affected_attempts: 1, changes: [change(c.attempts.cat, c.cat.id, "50.00", "62.50", true, true)], truncated: false });
    const real = await regrade(c.admin, c.a1.id, { mode: "drop", dry_run: false });
    expect(real.body.data).toEqual({ ...dry.body.data, dry_run: false });
    expect(await finals([c.attempts.ann, c.attempts.ben, c.attempts.cat])).toEqual([
      [400, 400, 10000, true],
      [150, 400, 3750, false],
      [250, 400, 6250, true],
    ]);
    const algebra = async (examAttempt: string) => {
      const [row] = (await sectionQuizAttempts(examAttempt)).filter((attempt) => attempt.quizId === c.algebra.id);
      return [row!.scoreHundredths, row!.maxScoreHundredths, row!.scorePctHundredths];
    };
    expect([await algebra(c.attempts.ann), await algebra(c.attempts.ben), await algebra(c.attempts.cat)]).toEqual([
      [100, 100, 10000],
      [0, 100, 0],
      [100, 100, 10000],
    ]);
    expect((await regradedPushes(c.school.id)).map((row) => row.userId)).toEqual([c.cat.id]);
    await expectExamRatingRecomputed(c);
    await expectExamFiguresRecomputed(c.admin, c.exam.id, [...c.students, c.dan].map((s) => s.id));
    expect((await regrade(c.admin, c.a1.id, { mode: "drop", dry_run: false })).body.data).toEqual({ dry_run: false, affected_attempts: 0, changes: [], truncated: false });
    expect(await finals([c.attempts.cat])).toEqual([[250, 400, 6250, true]]);
  });

  it("accept_all from the queue: two copies of a chunk at once write each change once; a chunk run again changes nothing", async () => {
    const c = await examRoom();
    const dry = await regrade(c.admin, c.a1.id, { mode: "accept_all" });
    expect(dry.body.data).toEqual({
      dry_run: true,
      affected_attempts: 2,
      changes: [change(c.attempts.ben, c.ben.id, "37.50", "50.00", false, true), change(c.attempts.cat, c.cat.id, "50.00", "62.50", true, true)],
      truncated: false,
    });
    // The regrade as a real run claims it, left to the queue: its row and its items (the three finished sections that answered the question).
    const regradeId = uuidv7();
    await db().insert(schema.quizRegrades).values({ id: regradeId, tenantId: c.school.id, quizId: c.algebra.id, questionId: c.a1.id, seq: 1, mode: "accept_all", pointsHundredths: 100, status: "running", createdAt: Date.now() });
    for (const [student, examAttempt] of [[c.ann, c.attempts.ann], [c.ben, c.attempts.ben], [c.cat, c.attempts.cat]] as const) {
      const [section] = (await sectionQuizAttempts(examAttempt)).filter((row) => row.quizId === c.algebra.id);
      await db().insert(schema.quizRegradeItems).values({ tenantId: c.school.id, regradeId, attemptId: section!.id, userId: student.id, oldScorePctHundredths: section!.scorePctHundredths, oldPassed: section!.passed });
    }
    const events = async () =>
      (await fixtureD1.prepare("SELECT count(*) AS n FROM point_events WHERE tenant_id = ? AND source_key LIKE 'regrade:%'").bind(c.school.id).first<{ n: number }>())!.n;

    const barrier = barrierD1(await schoolD1(c.school.id), { held: /UPDATE exam_attempts SET final_score_hundredths/, parties: 2, timeoutMs: 10_000 });
    await Promise.all([runChunk(c.school.id, regradeId, c.a1.id, envWith(barrier.db)), runChunk(c.school.id, regradeId, c.a1.id, envWith(barrier.db))]);
    expect(barrier.stats.releases).toEqual([2]);

    expect(await finals([c.attempts.ann, c.attempts.ben, c.attempts.cat])).toEqual([
      [400, 400, 10000, true],
      [200, 400, 5000, true],
      [250, 400, 6250, true],
    ]);
    expect((await regradesOf(c.school.id)).map((row) => row.status)).toEqual(["done"]);
    const pushes = await regradedPushes(c.school.id);
    expect(pushes.map((row) => row.userId).sort()).toEqual([c.ben.id, c.cat.id].sort());
    // One signed event each for Ben and Cat (20 % of 20.00 points more, half-up shares of 50.00 and 62.50 against 37.50 and 50.00).
    expect(await events()).toBe(2);
    await expectExamRatingRecomputed(c);
    await expectExamFiguresRecomputed(c.admin, c.exam.id, [...c.students, c.dan].map((s) => s.id));

    const outbox = (await outboxRows(c.school.id)).length;
    await runChunk(c.school.id, regradeId, c.a1.id);
    expect(await finals([c.attempts.ben, c.attempts.cat])).toEqual([
      [200, 400, 5000, true],
      [250, 400, 6250, true],
    ]);
    expect((await outboxRows(c.school.id)).length).toBe(outbox);
    expect(await events()).toBe(2);
    await expectExamRatingRecomputed(c);
  });

  it("certificates: a pass the regrade gives issues the exam's certificate as a pass at the finish would; a pass it takes keeps the certificate", async () => {
    const c = await examRoom();
    const tree = await courseWithStudent(c.school.id, c.ben);
    await insertEnrollment(c.school.id, tree.courseId, c.cat.id);
    expect((await putRule(c.admin, tree.courseId, { enabled: true, require_exam_id: c.exam.id })).status).toBe(200);
    for (const student of [c.ben, c.cat]) expect((await completeBlock(student, tree.blockIds[0]!)).status).toBe(200);
    // Cat passed the exam and completed the course: certified. Ben failed it: not yet.
    expect(await certificateRows(c.cat.id)).toHaveLength(1);
    expect(await certificateRows(c.ben.id)).toHaveLength(0);

    // Algebra's second question keyed to its second answer: Ben 37.50 → 50.00 passes, Cat 50.00 → 37.50 fails.
    const res = await regrade(c.admin, c.a2.id, { mode: "new_key", correct_answer_ids: [c.a2.answerIds[1]], dry_run: false });
    expect(res.body.data).toEqual({
      dry_run: false,
      affected_attempts: 3,
      changes: [
        change(c.attempts.ann, c.ann.id, "100.00", "87.50", true, true),
        change(c.attempts.ben, c.ben.id, "37.50", "50.00", false, true),
        change(c.attempts.cat, c.cat.id, "50.00", "37.50", true, false),
      ],
      truncated: false,
    });
    const [issued] = await certificateRows(c.ben.id);
    expect(issued).toMatchObject({ courseId: tree.courseId, studentId: c.ben.id, revokedAt: null });
    expect(await certificateRows(c.cat.id)).toEqual([expect.objectContaining({ revokedAt: null })]);
    const pushes = (await outboxRows(c.school.id)).filter((row) => row.eventCode === "certificate.issued");
    expect(pushes.map((row) => row.userId).sort()).toEqual([c.ben.id, c.cat.id].sort());
    await expectExamRatingRecomputed(c);

    // Run again: nothing more is issued.
    await runChunk(c.school.id, (await regradesOf(c.school.id))[0]!.id, c.a2.id);
    expect(await certificateRows(c.ben.id)).toHaveLength(1);
  });
});
