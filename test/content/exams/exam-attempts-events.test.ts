import { eq } from "drizzle-orm";
import { runDurableObjectAlarm } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { setClockForTests } from "../../../src/core/lib/clock";
import * as schema from "../../../src/db/schema";
import { insertCourseTree, insertEnrollment } from "../../helpers/courses";
import { insertExamAttempt } from "../../helpers/exams";
import { db } from "../../helpers/factories";
import { addGroupCurator, addMember, as, assignIndividualCurator, createGroup, signedIn, type Member } from "../../helpers/users";
import { addPushDevice, outboxRows } from "../../notifications/helpers";
import { clockTo, examForStudent, GRACE_MS, opened, saveSection, single, startedExam, submitExam, timerStub, type ExamSetup } from "./attempt-helpers";

/**
 * What a finished exam attempt does besides its figures: a passed student attempt completes the
 * student's `exam_ref` blocks (source `exam`) and recounts progress, with the course's completion
 * pushes; #44 tells the student's curators, #45 replaces it when the attempts are used up
 * without a pass; staff attempts complete nothing and notify nobody.
 */

afterEach(() => setClockForTests(null));

const examEvents = async (tenantId: string) => (await outboxRows(tenantId)).filter((row) => row.eventCode.startsWith("exam.") || row.eventCode.startsWith("course."));
const pairs = async (tenantId: string) => (await examEvents(tenantId)).map((row) => [row.eventCode, row.userId]).sort();

const completionsOf = (studentId: string) => db().select().from(schema.blockCompletions).where(eq(schema.blockCompletions.studentId, studentId));

/** A course whose only block is an `exam_ref` naming the exam. */
const examCourse = (tenantId: string, examId: string, options: { status?: "draft" | "published" } = {}) =>
  insertCourseTree(tenantId, { status: options.status ?? "published", blockType: "exam_ref", payload: { exam_id: examId }, refId: examId });

/** Takes the default exam: A right, and B both right (pass: 100 %) or both wrong (25 %). */
async function take(setup: ExamSetup, member: Member, pass: boolean) {
  const id = await startedExam(member, setup.exam.id);
  await opened(member, id, 0);
  await opened(member, id, 1);
  await saveSection(member, id, 0, [single(setup.quizzes[0]!.questions[0]!, true)]);
  await saveSection(member, id, 1, setup.quizzes[1]!.questions.map((question) => single(question, pass)));
  return id;
}

async function withCurators(setup: ExamSetup) {
  const { school, student } = setup;
  const individual = await signedIn(school, { role: "curator" });
  await assignIndividualCurator(student.id, individual.id);
  const groupCurator = await signedIn(school, { role: "curator" });
  const group = await createGroup(school.id);
  await addMember(group, student.id);
  await addGroupCurator(group, groupCurator.id);
  const unrelated = await signedIn(school, { role: "curator" });
  for (const member of [student, setup.admin, individual, groupCurator, unrelated]) await addPushDevice(school.id, member.id);
  return { individual, groupCurator };
}

describe("completion of exam_ref blocks", () => {
  it("a passed attempt completes the exam's blocks where the student is enrolled and sees the lesson, and recounts progress", async () => {
    const setup = await examForStudent({ passingScore: 60 });
    const { school, student, exam } = setup;
    const { individual, groupCurator } = await withCurators(setup);
    const tree = await examCourse(school.id, exam.id);
    await insertEnrollment(school.id, tree.courseId, student.id, { totalBlocks: 1 });
    // A second course with the exam block and a text block: the pass completes one of two.
    const second = await insertCourseTree(school.id, { status: "published", shape: [1, 1, 2] });
    const lesson = second.modules[0]!.lessons[0]!;
    await db().update(schema.blocks).set({ type: "exam_ref", refId: exam.id, payload: { exam_id: exam.id } }).where(eq(schema.blocks.id, lesson.blocks[1]!));
    await insertEnrollment(school.id, second.courseId, student.id);
    // Not enrolled; a lesson hidden by an access group; a draft course.
    const notEnrolled = await examCourse(school.id, exam.id);
    const hidden = await examCourse(school.id, exam.id);
    await insertEnrollment(school.id, hidden.courseId, student.id);
    const accessGroup = await createGroup(school.id);
    await db().insert(schema.lessonGroups).values({ tenantId: school.id, lessonId: hidden.lessonIds[0]!, groupId: accessGroup.id, createdAt: Date.now() });
    const draft = await examCourse(school.id, exam.id, { status: "draft" });
    await insertEnrollment(school.id, draft.courseId, student.id);

    const failed = await take(setup, student, false);
    expect((await submitExam(student, failed)).body.data).toMatchObject({ passed: false, final_score_pct: "25.00" });
    expect(await completionsOf(student.id)).toEqual([]);

    const passed = await take(setup, student, true);
    expect((await submitExam(student, passed)).body.data).toMatchObject({ passed: true, final_score_pct: "100.00" });
    const completions = await completionsOf(student.id);
    expect(completions.map((row) => [row.blockId, row.source]).sort()).toEqual(
      [
        [tree.blockIds[0], "exam"],
        [lesson.blocks[1], "exam"],
      ].sort(),
    );
    expect(completions.some((row) => [notEnrolled.courseId, hidden.courseId, draft.courseId].includes(row.courseId))).toBe(false);
    const enrollments = await db().select().from(schema.enrollments).where(eq(schema.enrollments.studentId, student.id));
    const progress = Object.fromEntries(enrollments.map((row) => [row.courseId, [row.blocksCompleted, row.totalBlocks, row.completedAt !== null]]));
    expect(progress[tree.courseId]).toEqual([1, 1, true]);
    expect(progress[second.courseId]).toEqual([1, 2, false]);

    // The course the pass completed: course.student_completed to both curators; course.completed not to the student who acted.
    expect((await pairs(school.id)).filter(([code]) => code!.startsWith("course."))).toEqual(
      [
        ["course.student_completed", individual.id],
        ["course.student_completed", groupCurator.id],
      ].sort(),
    );

    // Another pass completes nothing more and sends no more course pushes.
    await submitExam(student, await take(setup, student, true));
    expect(await completionsOf(student.id)).toHaveLength(2);
    expect((await pairs(school.id)).filter(([code]) => code!.startsWith("course."))).toHaveLength(2);
  });

  it("a pass finished by the deadline is nobody's action: course.completed reaches the student", async () => {
    const setup = await examForStudent({ timeLimitSeconds: 60 });
    const { school, student, exam } = setup;
    await addPushDevice(school.id, student.id);
    const tree = await examCourse(school.id, exam.id);
    await insertEnrollment(school.id, tree.courseId, student.id, { totalBlocks: 1 });
    const id = await take(setup, student, true);
    const deadline = (await db().select().from(schema.examAttempts).where(eq(schema.examAttempts.id, id)))[0]!.deadlineAt;
    clockTo(deadline, GRACE_MS + 1000);
    expect(await runDurableObjectAlarm(timerStub(id))).toBe(true);
    expect((await completionsOf(student.id)).map((row) => row.source)).toEqual(["exam"]);
    expect((await pairs(school.id)).filter(([, userId]) => userId === student.id)).toEqual([
      ["course.completed", student.id],
      ["exam.auto_submitted", student.id],
    ]);
  });

  it("a staff attempt completes nothing and notifies nobody", async () => {
    const setup = await examForStudent({ maxAttempts: 1, passingScore: 100 });
    const { school, admin, exam } = setup;
    await withCurators(setup);
    const curator = await signedIn(school, { role: "curator" });
    await addPushDevice(school.id, curator.id);
    const tree = await examCourse(school.id, exam.id);
    await insertEnrollment(school.id, tree.courseId, curator.id);
    await submitExam(admin, await take(setup, admin, true));
    await submitExam(curator, await take(setup, curator, false));
    expect(await completionsOf(curator.id)).toEqual([]);
    expect(await examEvents(school.id)).toEqual([]);
  });
});

describe("exam events", () => {
  it("#44 exam.attempt_finished: the student's individual and group curators, on every finish, with the figures", async () => {
    const setup = await examForStudent({ title: "Algebra", passingScore: 70 });
    const { school, student } = setup;
    await db().update(schema.users).set({ firstName: "Dilnoza", lastName: "Karimova" }).where(eq(schema.users.id, student.id));
    const { individual, groupCurator } = await withCurators(setup);
    const first = await take(setup, student, false);
    await submitExam(student, first);
    expect(await pairs(school.id)).toEqual(
      [
        ["exam.attempt_finished", individual.id],
        ["exam.attempt_finished", groupCurator.id],
      ].sort(),
    );
    const [row] = await examEvents(school.id);
    expect(row!.dedupeKey).toBe(`exam.attempt_finished:${first}:${row!.userId}`);
    expect(row!.body).toBe("Dilnoza Karimova, «Algebra»: 25.00% (проходной 70%).");
    expect(row!.data).toMatchObject({ student_name: "Dilnoza Karimova", exam_title: "Algebra", score_pct: "25.00", passing_score: 70, exam_attempt_id: first });

    await submitExam(student, await take(setup, student, true));
    expect((await pairs(school.id)).filter(([code]) => code === "exam.attempt_finished")).toHaveLength(4);
    expect((await examEvents(school.id)).some((event) => event.userId === student.id || event.userId === setup.admin.id)).toBe(false);
  });

  it("#45 exam.attempts_exhausted replaces #44 when the last allowed attempt fails without any pass", async () => {
    const setup = await examForStudent({ title: "Algebra", maxAttempts: 2, passingScore: 70 });
    const { school, student } = setup;
    const { individual, groupCurator } = await withCurators(setup);
    const first = await take(setup, student, false);
    await submitExam(student, first);
    const last = await take(setup, student, false);
    await submitExam(student, last);
    const events = await examEvents(school.id);
    expect(events.filter((row) => row.aggregateId === first).map((row) => row.eventCode)).toEqual(["exam.attempt_finished", "exam.attempt_finished"]);
    const exhausted = events.filter((row) => row.aggregateId === last);
    expect(exhausted.map((row) => [row.eventCode, row.userId]).sort()).toEqual(
      [
        ["exam.attempts_exhausted", individual.id],
        ["exam.attempts_exhausted", groupCurator.id],
      ].sort(),
    );
    expect(exhausted[0]!.data).toMatchObject({ exam_title: "Algebra", score_pct: "25.00", max_attempts: 2, exam_attempt_id: last });
    expect(exhausted[0]!.dedupeKey).toBe(`exam.attempts_exhausted:${last}:${exhausted[0]!.userId}`);
  });

  it("no #45 when an earlier attempt passed, and #44 when the school has #45 off", async () => {
    const passedBefore = await examForStudent({ maxAttempts: 2, passingScore: 70 });
    await withCurators(passedBefore);
    await insertExamAttempt(passedBefore.school.id, passedBefore.exam.id, passedBefore.student.id, { passed: true, finalScorePctHundredths: 10_000 });
    await submitExam(passedBefore.student, await take(passedBefore, passedBefore.student, false));
    expect((await examEvents(passedBefore.school.id)).map((row) => row.eventCode)).toEqual(["exam.attempt_finished", "exam.attempt_finished"]);

    const off = await examForStudent({ maxAttempts: 1, passingScore: 70 });
    await withCurators(off);
    const patched = await as(off.admin, "/t/notifications/admin/events/exam.attempts_exhausted", { method: "PATCH", body: { enabled: false } });
    expect(patched.status).toBe(200);
    await submitExam(off.student, await take(off, off.student, false));
    expect((await examEvents(off.school.id)).map((row) => row.eventCode)).toEqual(["exam.attempt_finished", "exam.attempt_finished"]);
  });

  it("a student without curators: nobody hears of the finish", async () => {
    const setup = await examForStudent();
    await addPushDevice(setup.school.id, setup.student.id);
    await addPushDevice(setup.school.id, setup.admin.id);
    await submitExam(setup.student, await take(setup, setup.student, true));
    expect(await examEvents(setup.school.id)).toEqual([]);
  });
});
