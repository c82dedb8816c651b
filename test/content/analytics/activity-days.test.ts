import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";
import { setClockForTests } from "../../../src/core/lib/clock";
import { insertCourseTree, insertEnrollment } from "../../helpers/courses";
import { insertExam, insertExamAttempt } from "../../helpers/exams";
import { db } from "../../helpers/factories";
import { insertAttempt, insertQuiz } from "../../helpers/quizzes";
import { as, assignIndividualCurator, schoolWithAdmin, signedIn, type Member } from "../../helpers/users";
import { attemptRow, quizForStudent, read, save, started, submit } from "../attempts/helpers";
import { examForStudent, opened, startedExam, submitExam } from "../exams/attempt-helpers";
import { insertAssignment } from "../assignments/helpers";
import { assignmentCourse, draftOf, reopen, review, submit as handInDraft } from "../submissions/helpers";
import { completeBlock, curatorAnalytics, handIn, march, person } from "./helpers";

/**
 * The daily activity flags (`student_activity_days`, docs/decisions/heavy-reads.md, "Fourth pass:
 * daily activity") equal a recomputation written here over the raw rows after every kind of event
 * that adds or removes activity, driven through HTTP; and the curator report reads the partial
 * days at both edges of its period from the raw rows, to the instant.
 */

afterEach(() => setClockForTests(null));

const DAY = 86_400_000;
const at = (instant: number) => setClockForTests({ now: () => instant });

type Flags = { completed: number; quiz_started: number; quiz_submitted: number; exam_started: number; exam_submitted: number; handed_in: number };
const EMPTY: Flags = { completed: 0, quiz_started: 0, quiz_submitted: 0, exam_started: 0, exam_submitted: 0, handed_in: 0 };

/** The flags as the raw rows say, per "member day", without the table. */
async function recomputed(tenantId: string): Promise<Record<string, Flags>> {
  const out: Record<string, Flags> = {};
  const mark = (member: string, instant: number | null, kind: keyof Flags) => {
    if (instant === null || instant < 0) return;
    const key = `${member} ${Math.floor(instant / DAY)}`;
    out[key] = { ...(out[key] ?? EMPTY), [kind]: 1 };
  };
  for (const row of await db().select().from(schema.blockCompletions).where(eq(schema.blockCompletions.tenantId, tenantId))) mark(row.studentId, row.completedAt, "completed");
  for (const row of await db().select().from(schema.quizAttempts).where(eq(schema.quizAttempts.tenantId, tenantId))) {
    if (row.examAttemptId !== null) continue;
    mark(row.userId, row.startedAt, "quiz_started");
    mark(row.userId, row.submittedAt, "quiz_submitted");
  }
  for (const row of await db().select().from(schema.examAttempts).where(eq(schema.examAttempts.tenantId, tenantId))) {
    mark(row.userId, row.startedAt, "exam_started");
    mark(row.userId, row.submittedAt, "exam_submitted");
  }
  for (const row of await db().select().from(schema.submissions).where(eq(schema.submissions.tenantId, tenantId))) mark(row.studentId, row.submittedAt, "handed_in");
  return out;
}

async function stored(tenantId: string): Promise<Record<string, Flags>> {
  const rows = await db().select().from(schema.studentActivityDays).where(eq(schema.studentActivityDays.tenantId, tenantId));
  return Object.fromEntries(
    rows.map((row) => [
      `${row.studentId} ${row.day}`,
      {
        completed: row.completed,
        quiz_started: row.quizStarted,
        quiz_submitted: row.quizSubmitted,
        exam_started: row.examStarted,
        exam_submitted: row.examSubmitted,
        handed_in: row.handedIn,
      },
    ]),
  );
}

/** The table equals the recomputation and holds `rows` rows (so a check never passes on an empty table by accident). */
async function expectExact(tenantId: string, rows: number) {
  const expected = await recomputed(tenantId);
  expect(await stored(tenantId)).toEqual(expected);
  expect(Object.keys(expected)).toHaveLength(rows);
}

describe("student_activity_days equals the recomputation after every event", () => {
  it("completions, hand-ins with their completion, a rejection, a reopen, a hand-in again on a later day, a permanent deletion", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    const other = await signedIn(school, { role: "student" });
    const t = school.id;
    const reading = await insertCourseTree(t, { shape: [1, 1, 2] });
    for (const member of [student, other]) await insertEnrollment(t, reading.courseId, member.id, { totalBlocks: 2 });
    const assignment = await insertAssignment(t);
    await assignmentCourse(t, assignment.id, [student.id, other.id]);
    await expectExact(t, 0);

    // A manual completion on day 1, the second block on day 2 (which completes the lesson: a second batch).
    at(march(1, 10));
    expect((await as(student, `/t/blocks/${reading.blockIds[0]}/complete`, { method: "POST" })).status).toBe(200);
    await expectExact(t, 1);
    at(march(2, 23));
    expect((await as(student, `/t/blocks/${reading.blockIds[1]}/complete`, { method: "POST" })).status).toBe(200);
    await expectExact(t, 2);

    // A hand-in on day 3 completes the assignment_ref block the same day; the other student's on day 2.
    at(march(3, 9));
    const draft = await draftOf(student, assignment.id);
    expect((await handInDraft(student, draft.id)).status).toBe(200);
    at(march(2, 1));
    const theirs = await draftOf(other, assignment.id);
    expect((await handInDraft(other, theirs.id)).status).toBe(200);
    await expectExact(t, 4);

    // A rejection keeps the hand-in; a reopen clears its time (day 3 keeps the completion); a hand-in again on day 5.
    at(march(4));
    expect((await review(admin, draft.id, { status: "rejected", feedback: "Again" })).status).toBe(200);
    await expectExact(t, 4);
    expect((await reopen(admin, draft.id)).status).toBe(200);
    expect((await db().select().from(schema.studentActivityDays).where(eq(schema.studentActivityDays.studentId, student.id))).map((row) => row.handedIn)).toEqual([0, 0, 0]);
    await expectExact(t, 4);
    at(march(5, 12));
    expect((await handInDraft(student, draft.id)).status).toBe(200);
    await expectExact(t, 5);

    // A permanent deletion takes the member's rows with their activity.
    expect((await as(admin, `/t/users/${other.id}`, { method: "DELETE" })).status).toBe(200);
    expect((await as(admin, `/t/users/${other.id}/permanent`, { method: "DELETE" })).status).toBe(200);
    await expectExact(t, 4);
  });

  it("quiz attempts: start, submit, a settle by the deadline on a later day, a staff attempt", async () => {
    const { school, admin, student, quiz } = await quizForStudent({ timeLimitSeconds: 600, questions: [{ type: "single" }] });
    const t = school.id;
    const [q1] = quiz.questions;

    at(march(6, 23) + 50 * 60_000);
    const first = await started(student, quiz.id);
    await expectExact(t, 1);
    // Saved at 23:55, the deadline passes at midnight: the settle by a read the next day dates it at the deadline.
    at(march(6, 23) + 55 * 60_000);
    await save(student, first, [{ question_id: q1!.id, payload: { answer_ids: [q1!.answerIds[0]] } }]);
    const deadline = (await attemptRow(first))!.deadlineAt!;
    at(deadline + 3 * 3_600_000);
    expect((await read(student, first)).body.data).toMatchObject({ status: "submitted", auto_finalized: true });
    await expectExact(t, 2);

    at(march(8, 8));
    const second = await started(student, quiz.id);
    await expectExact(t, 3);
    expect((await submit(student, second)).status).toBe(200);
    await expectExact(t, 3);

    const staff = await started(admin, quiz.id);
    expect((await submit(admin, staff)).status).toBe(200);
    await expectExact(t, 4);
  });

  it("exam attempts: start on one day, submit on the next; a section's quiz attempt is no quiz activity", async () => {
    const { school, student, exam, quizzes } = await examForStudent({ timeLimitSeconds: 7200 }, [{ quiz: { questions: [{ type: "single" }] }, weight: 1, title: "A" }]);
    const t = school.id;
    at(march(9, 23));
    const id = await startedExam(student, exam.id);
    await expectExact(t, 1);
    await opened(student, id, 0);
    at(march(10, 0) + 30 * 60_000);
    expect((await submitExam(student, id)).status).toBe(200);
    expect(await db().select().from(schema.quizAttempts).where(eq(schema.quizAttempts.quizId, quizzes[0]!.id))).toHaveLength(1);
    await expectExact(t, 2);
  });
});

describe("GET /analytics/curators: a period whose edges fall mid-day", () => {
  const m = (students: number, rate: string | null) => ({ students, rate_pct: rate });

  it("activity before the start instant or after the end instant of the same day does not count; inside it does", async () => {
    const { school, admin } = await schoolWithAdmin();
    const t = school.id;
    const curator: Member = await signedIn(school, { role: "curator" });
    const s: Record<string, string> = {};
    for (const n of [1, 2, 3, 4, 5, 6, 7, 8]) {
      s[n] = (await person(t, "student", `S${n}`, "Student")).id;
      await assignIndividualCurator(s[n]!, curator.id);
    }
    const reading = await insertCourseTree(t);
    for (const n of [1, 2]) await insertEnrollment(t, reading.courseId, s[n]!, { totalBlocks: 1 });
    const quiz = await insertQuiz(t);
    const exam = await insertExam(t, { sections: [{ quizId: quiz.id }] });
    const assignment = await insertAssignment(t);

    await completeBlock(t, reading, s[1]!, march(10, 6)); // the first day, before the start instant
    await completeBlock(t, reading, s[2]!, march(10, 18)); // the first day, after it
    await insertAttempt(t, quiz.id, s[3]!, { startedAt: march(20, 6), submittedAt: march(20, 7) }); // the last day, before the end instant
    await insertAttempt(t, quiz.id, s[4]!, { startedAt: march(20, 18), submittedAt: march(20, 19) }); // the last day, after it
    await insertExamAttempt(t, exam.id, s[5]!, { startedAt: march(15), submittedAt: march(15, 1) }); // a whole day
    await handIn(t, assignment.id, s[6]!, march(20, 13)); // the last day, after the end instant
    await handIn(t, assignment.id, s[6]!, march(9, 23), { attempt: 2 }); // the day before
    await handIn(t, assignment.id, s[7]!, march(12)); // a whole day
    await insertAttempt(t, quiz.id, s[8]!, { startedAt: march(10, 6), submittedAt: march(10, 13) }); // started before the start, submitted after

    const period = `?from=2025-03-10T12:00:00Z&to=2025-03-20T12:00:00Z`;
    const res = await curatorAnalytics(admin, period);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.summary).toEqual({
      curators: 1,
      students: 8,
      active: m(5, "62.50"),
      assignments_on_time: m(1, "12.50"),
      quizzes_completed: m(2, "25.00"),
      exams_completed: m(1, "12.50"),
    });

    // The end instant itself counts (both bounds inclusive); one millisecond before the start does not.
    const tight = await curatorAnalytics(admin, `?from=2025-03-10T18:00:00.001Z&to=2025-03-20T07:00:00Z`);
    expect(tight.body.data.summary).toMatchObject({ active: m(3, "37.50"), quizzes_completed: m(1, "12.50") });

    // A period inside one day reads only the raw rows.
    const oneDay = await curatorAnalytics(admin, `?from=2025-03-10T12:00:00Z&to=2025-03-10T20:00:00Z`);
    expect(oneDay.body.data.summary).toMatchObject({ active: m(2, "25.00"), quizzes_completed: m(1, "12.50"), exams_completed: m(0, "0.00") });

    // Whole days only: every figure comes from the flags, none from the raw rows.
    const whole = await curatorAnalytics(admin, `?from=2025-03-10T00:00:00Z&to=2025-03-20T23:59:59.999Z`);
    expect(whole.body.data.summary).toMatchObject({ active: m(8, "100.00"), quizzes_completed: m(3, "37.50"), exams_completed: m(1, "12.50"), assignments_on_time: m(2, "25.00") });
  });
});
