import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { app } from "../../../src/app";
import { uuidv7 } from "../../../src/core/lib/ids";
import * as schema from "../../../src/db/schema";
import { insertCourseTree, insertEnrollment } from "../../helpers/courses";
import { roundTripD1 } from "../../helpers/d1-counter";
import { db } from "../../helpers/factories";
import { giveQuizAccess, insertQuiz } from "../../helpers/quizzes";
import { as, schoolWithAdmin, signedIn, type Member } from "../../helpers/users";
import { addPushDevice, outboxRows } from "../../notifications/helpers";
import { insertAssignment } from "../assignments/helpers";
import { save, started, submit } from "../attempts/helpers";
import { examForStudent, opened, saveSection, single, startedExam, submitExam, type ExamSetup } from "../exams/attempt-helpers";
import { assignmentCourse, draftOf, review, submit as submitSubmission } from "../submissions/helpers";
import { attemptScoring, completionRulesOff, eventsOf, pointsOn, scoredQuiz, setRule, sumOf, totalOf } from "./awards-helpers";
import { fixtureD1, schoolD1 } from "../../helpers/databases";
import { envWith } from "../../helpers/wrapped-d1";

/**
 * Each source of rule points, through the endpoints that make the source event, with the school's
 * built-in rules unless a test sets its own: lesson 1.00, module 5.00, course 20.00 (fixed,
 * ignore); quiz 10.00, assignment 10.00, exam 20.00 (raw, overwrite_if_higher).
 */

const complete = (member: Member, blockId: string) => as(member, `/t/blocks/${blockId}/complete`, { method: "POST" });

/** A request through the app with D1 counted: batches and statements run on their own. */
async function measured(member: Member, path: string, init: { method?: string; body?: unknown } = {}) {
  const trips = roundTripD1(await schoolD1(member.tenantId));
  const headers: Record<string, string> = { authorization: `Bearer ${member.token}`, "x-tenant-subdomain": member.subdomain };
  if (init.body !== undefined) headers["content-type"] = "application/json";
  const response = await app.request(
    `https://api.lms.localhost/api/v1${path}`,
    { method: init.method ?? "POST", headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) },
    envWith(trips.db),
  );
  const body = (await response.json()) as { data: Record<string, unknown> };
  return { status: response.status, body, stats: { ...trips.stats } };
}

const summary = (events: Awaited<ReturnType<typeof eventsOf>>) => events.map((event) => [event.source_type, event.source_key, event.points, event.rule_id]);

describe("lesson, module and course points: POST /t/blocks/:id/complete", () => {
  it("the block that completes a lesson awards it (and its module and course when they complete too), once; only that block costs a second batch", async () => {
    const { school } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    const tree = await insertCourseTree(school.id, { shape: [2, 1, 2], title: "Algebra" });
    await insertEnrollment(school.id, tree.courseId, student.id);
    const [m1, m2] = tree.modules;
    const [l1, l2] = tree.lessonIds;
    const key = (type: string, id: string) => `${type}:${id}:${student.id}`;

    // Authentication, then one batch; the lesson's last block: a second batch carrying the awards.
    const first = await measured(student, `/t/blocks/${tree.blockIds[0]}/complete`);
    expect({ status: first.status, stats: first.stats }).toEqual({ status: 200, stats: { batches: 1, statements: 1 } });
    expect(await eventsOf(school.id, student.id)).toEqual([]);
    const lessonDone = await measured(student, `/t/blocks/${tree.blockIds[1]}/complete`);
    expect({ status: lessonDone.status, stats: lessonDone.stats }).toEqual({ status: 200, stats: { batches: 2, statements: 1 } });
    expect(summary(await eventsOf(school.id, student.id))).toEqual([
      ["lesson", key("lesson", l1!), "1.00", null],
      ["module", key("module", m1!.id), "5.00", null],
    ]);
    expect(await totalOf(school.id, student.id)).toBe("6.00");

    // A repeat of the lesson's last block: one batch, no new event.
    const repeat = await measured(student, `/t/blocks/${tree.blockIds[1]}/complete`);
    expect({ status: repeat.status, stats: repeat.stats }).toEqual({ status: 200, stats: { batches: 1, statements: 1 } });

    expect((await complete(student, tree.blockIds[2]!)).status).toBe(200);
    // Concurrent completions of the last block: one completion, one set of awards.
    const last = await Promise.all(Array.from({ length: 5 }, () => complete(student, tree.blockIds[3]!)));
    expect(last.map((res) => res.status)).toEqual([200, 200, 200, 200, 200]);
    const events = await eventsOf(school.id, student.id);
    expect(summary(events)).toEqual([
      ["lesson", key("lesson", l1!), "1.00", null],
      ["module", key("module", m1!.id), "5.00", null],
      ["lesson", key("lesson", l2!), "1.00", null],
      ["module", key("module", m2!.id), "5.00", null],
      ["course", key("course", tree.courseId), "20.00", null],
    ]);
    expect(events.map((event) => event.target_id)).toEqual([l1, m1!.id, l2, m2!.id, tree.courseId]);
    expect(await totalOf(school.id, student.id)).toBe("32.00");
    expect(await sumOf(school.id, student.id)).toBe("32.00");
  });

  it("a school's default wins over the built-in one and carries its id; a disabled source awards nothing", async () => {
    const { school } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    const lessonRule = await setRule(school.id, "lesson", null, { points: 250 });
    await setRule(school.id, "module", null, { enabled: false });
    const tree = await insertCourseTree(school.id, { shape: [1, 1, 1] });
    await insertEnrollment(school.id, tree.courseId, student.id);
    expect((await complete(student, tree.blockIds[0]!)).status).toBe(200);
    expect(summary(await eventsOf(school.id, student.id))).toEqual([
      ["lesson", `lesson:${tree.lessonIds[0]}:${student.id}`, "2.50", lessonRule],
      ["course", `course:${tree.courseId}:${student.id}`, "20.00", null],
    ]);
  });
});

describe("quiz points: submit", () => {
  it("a submit awards by the rule in its batch, with the completions its pass brings; a retake scores the difference; a retried submit writes nothing", async () => {
    const { school } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    const { quiz, tree } = await scoredQuiz(school.id, [student.id]);
    const firstId = await attemptScoring(student, quiz, 50);
    expect(summary(await eventsOf(school.id, student.id))).toEqual([
      ["quiz", `quiz_attempt:${firstId}`, "5.00", null],
      ["lesson", `lesson:${tree.lessonIds[0]}:${student.id}`, "1.00", null],
      ["module", `module:${tree.modules[0]!.id}:${student.id}`, "5.00", null],
      ["course", `course:${tree.courseId}:${student.id}`, "20.00", null],
    ]);
    // overwrite_if_higher: 8.00 − 5.00, then nothing for 70 %.
    const secondId = await attemptScoring(student, quiz, 80);
    await attemptScoring(student, quiz, 70);
    expect((await eventsOf(school.id, student.id, "quiz")).map((event) => [event.source_key, event.points])).toEqual([
      [`quiz_attempt:${firstId}`, "5.00"],
      [`quiz_attempt:${secondId}`, "3.00"],
    ]);

    // Five concurrent submits of one attempt: one settle, one event.
    const id = await started(student, quiz.id);
    await save(student, id, [{ question_id: quiz.questions[0]!.id, payload: { answer_ids: [quiz.questions[0]!.answerIds[0]] } }, { question_id: quiz.questions[1]!.id, payload: { answer_ids: [quiz.questions[1]!.answerIds[0]] } }, { question_id: quiz.questions[2]!.id, payload: { answer_ids: [quiz.questions[2]!.answerIds[0]] } }]);
    const statuses = (await Promise.all(Array.from({ length: 5 }, () => submit(student, id)))).map((res) => res.status);
    // One submit settles; the others find the attempt submitted.
    expect(statuses.sort()).toEqual([200, 409, 409, 409, 409]);
    expect((await submit(student, id)).status).toBe(409);
    expect(await pointsOn(school.id, student.id, quiz.id)).toEqual(["5.00", "3.00", "2.00"]);
    expect(await totalOf(school.id, student.id)).toBe("36.00");
  });

  it("no points for a staff member's attempt, nor for a quiz whose rule is off", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    await completionRulesOff(school.id);
    const { quiz } = await scoredQuiz(school.id, [student.id]);
    const { quiz: other } = await scoredQuiz(school.id, [student.id]);
    await attemptScoring(admin, quiz, 100);
    expect(await eventsOf(school.id, admin.id)).toEqual([]);
    await setRule(school.id, "quiz", null, { enabled: false });
    const override = await setRule(school.id, "quiz", other.id, { enabled: true });
    await attemptScoring(student, quiz, 100);
    const otherId = await attemptScoring(student, other, 100);
    expect(summary(await eventsOf(school.id, student.id))).toEqual([["quiz", `quiz_attempt:${otherId}`, "10.00", override]]);
  });
});

describe("quiz points: grading", () => {
  it("nothing while answers wait for review; the grading that clears the last one awards (with #60 to the student); a re-grade changes nothing", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    await addPushDevice(school.id, student.id);
    const on = await as(admin, "/t/notifications/admin/events/rating.points_awarded", { method: "PATCH", body: { enabled: true } });
    expect(on.status).toBe(200);
    const quiz = await insertQuiz(school.id, {
      title: "Biology",
      passingScore: 60,
      questions: [{ type: "single" }, { type: "free_text", pointsHundredths: 200 }, { type: "free_text", pointsHundredths: 200 }],
    });
    const [choice, text1, text2] = quiz.questions;
    const tree = await giveQuizAccess(school.id, quiz.id, [student.id], { title: "Science" });
    const id = await started(student, quiz.id);
    await save(student, id, [
      { question_id: choice!.id, payload: { answer_ids: [choice!.answerIds[0]] } },
      { question_id: text1!.id, payload: { text: "cells" } },
      { question_id: text2!.id, payload: { text: "sugar" } },
    ]);
    expect((await submit(student, id)).body.data).toMatchObject({ pending_review: true, score_pct: "20.00" });
    const grade = (grades: unknown[]) => as(admin, `/t/attempts/${id}/grade`, { body: { grades } });
    expect((await grade([{ question_id: text1!.id, awarded_points: "2.00" }])).body.data).toMatchObject({ pending_review: true });
    expect(await eventsOf(school.id, student.id)).toEqual([]);

    // 1.00 + 2.00 + 1.00 of 5.00 = 80 %: the quiz's 8.00, and the pass completes the one-block course.
    expect((await grade([{ question_id: text2!.id, awarded_points: "1.00" }])).body.data).toMatchObject({ pending_review: false, score_pct: "80.00", passed: true });
    const events = await eventsOf(school.id, student.id);
    expect(summary(events)).toEqual([
      ["quiz", `quiz_attempt:${id}`, "8.00", null],
      ["lesson", `lesson:${tree.lessonIds[0]}:${student.id}`, "1.00", null],
      ["module", `module:${tree.modules[0]!.id}:${student.id}`, "5.00", null],
      ["course", `course:${tree.courseId}:${student.id}`, "20.00", null],
    ]);
    // A re-grade (down to 60 %, then up to 100 %) writes no points.
    await grade([{ question_id: text2!.id, awarded_points: "0.00" }]);
    await grade([{ question_id: text2!.id, awarded_points: "2.00" }]);
    expect(summary(await eventsOf(school.id, student.id))).toEqual(summary(events));
    expect(await totalOf(school.id, student.id)).toBe("34.00");

    // #60 per positive event, each with the total after it (the grader acted, so the student is told).
    const pushes = (await outboxRows(school.id)).filter((row) => row.eventCode === "rating.points_awarded").sort((a, b) => (a.aggregateId ?? "").localeCompare(b.aggregateId ?? ""));
    const ids = await fixtureD1.prepare("SELECT id, source_type FROM point_events WHERE student_id = ? ORDER BY rowid").bind(student.id).all<{ id: string; source_type: string }>();
    expect(pushes.map((row) => [row.userId, row.aggregateType, row.aggregateId, row.dedupeKey, row.title, row.body, row.data])).toEqual(
      [
        ["quiz", "8.00", "Biology", "8.00"],
        ["lesson", "1.00", "Lesson 1.1", "9.00"],
        ["module", "5.00", "Module 1", "14.00"],
        ["course", "20.00", "Science", "34.00"],
      ].map(([type, points, label, total]) => {
        const eventId = ids.results.find((row) => row.source_type === type)!.id;
        return [
          student.id,
          "point_event",
          eventId,
          `rating.points_awarded:${eventId}:${student.id}`,
          `+${points} баллов`,
          `За «${label}». Всего: ${total}.`,
          { event_code: "rating.points_awarded", point_event_id: eventId, points, target_label: label, total_points: total },
        ];
      }).sort((a, b) => (a[2] as string).localeCompare(b[2] as string)),
    );
  });
});

describe("assignment points: acceptance", () => {
  async function handedIn(student: Member, assignmentId: string) {
    const draft = await draftOf(student, assignmentId);
    expect((await submitSubmission(student, draft.id)).status).toBe(200);
    return draft.id;
  }

  it("an acceptance awards score / max_score by the rule, keyed by the grading; a rejection awards nothing; #60 to the student", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    await completionRulesOff(school.id);
    await addPushDevice(school.id, student.id);
    await as(admin, "/t/notifications/admin/events/rating.points_awarded", { method: "PATCH", body: { enabled: true } });
    const assignment = await insertAssignment(school.id, { title: "Essay", maxScoreHundredths: 3000 });
    await assignmentCourse(school.id, assignment.id, [student.id]);

    const first = await handedIn(student, assignment.id);
    expect((await review(admin, first, { status: "rejected", feedback: "Redo" })).status).toBe(200);
    expect(await eventsOf(school.id, student.id)).toEqual([]);

    const second = await handedIn(student, assignment.id);
    // 20.00 of 30.00 = 66.67 % (half-up): 10.00 × 66.67 % = 6.667 → 6.67.
    const accepted = await measured(admin, `/t/submissions/${second}/review`, { body: { status: "accepted", score: "20.00" } });
    expect({ status: accepted.status, stats: accepted.stats }).toEqual({ status: 200, stats: { batches: 2, statements: 1 } });
    const [row] = await db().select().from(schema.submissions).where(eq(schema.submissions.id, second));
    expect(summary(await eventsOf(school.id, student.id))).toEqual([["assignment", `submission:${second}:${row!.gradedAt}`, "6.67", null]]);
    const pushes = (await outboxRows(school.id)).filter((push) => push.eventCode === "rating.points_awarded");
    expect(pushes.map((push) => [push.userId, push.data])).toEqual([
      [student.id, expect.objectContaining({ points: "6.67", target_label: "Essay", total_points: "6.67" })],
    ]);
    // A repeated review of the accepted submission: 409, nothing written.
    expect((await review(admin, second, { status: "accepted", score: "30.00" })).status).toBe(409);
    expect(await totalOf(school.id, student.id)).toBe("6.67");
  });

  it("a later accepted attempt under overwrite_if_higher adds only what beats the student's points; the rule's threshold decides 'passed'", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    await completionRulesOff(school.id);
    const assignment = await insertAssignment(school.id, { maxScoreHundredths: 1000 });
    await assignmentCourse(school.id, assignment.id, [student.id]);
    await setRule(school.id, "assignment", assignment.id, { thresholdSource: "rule_specified", thresholdValue: 5000, awardOnlyIfPassed: true });
    const attempt1 = await handedIn(student, assignment.id);
    // 4.00 of 10.00 = 40 %, under the rule's 50 %: not passed, nothing.
    expect((await review(admin, attempt1, { status: "accepted", score: "4" })).status).toBe(200);
    expect(await eventsOf(school.id, student.id)).toEqual([]);
    // Later attempts, accepted too (written as handed in: an accepted attempt ends the API's series).
    const later = async (attempt: number) => {
      const id = uuidv7();
      const now = Date.now();
      await db().insert(schema.submissions).values({ id, tenantId: school.id, assignmentId: assignment.id, studentId: student.id, attempt, status: "submitted", submittedAt: now, createdAt: now, updatedAt: now });
      return id;
    };
    const attempt2 = await later(2);
    expect((await review(admin, attempt2, { status: "accepted", score: "6.50" })).status).toBe(200);
    const attempt3 = await later(3);
    expect((await review(admin, attempt3, { status: "accepted", score: "5.00" })).status).toBe(200);
    const attempt4 = await later(4);
    expect((await review(admin, attempt4, { status: "accepted", score: "9.99" })).status).toBe(200);
    expect((await eventsOf(school.id, student.id)).map((event) => [event.source_key.split(":")[1], event.points])).toEqual([
      [attempt2, "6.50"],
      [attempt4, "3.49"],
    ]);
    expect(await totalOf(school.id, student.id)).toBe("9.99");
  });
});

describe("exam points: submit", () => {
  async function take(setup: ExamSetup, member: Member, pass: boolean) {
    const id = await startedExam(member, setup.exam.id);
    await opened(member, id, 0);
    await opened(member, id, 1);
    await saveSection(member, id, 0, [single(setup.quizzes[0]!.questions[0]!, true)]);
    await saveSection(member, id, 1, setup.quizzes[1]!.questions.map((question) => single(question, pass)));
    const res = await submitExam(member, id);
    expect(res.status).toBe(200);
    return { id, data: res.body.data };
  }

  it("the student's submitted attempt awards by the rule (the exam's, not its sections' quizzes); staff attempts award nothing; a retry writes nothing", async () => {
    const setup = await examForStudent({ title: "Final", passingScore: 60 });
    const { school, admin, student } = setup;
    const failed = await take(setup, student, false);
    expect(failed.data).toMatchObject({ final_score_pct: "25.00", passed: false });
    const passed = await take(setup, student, true);
    // A retried submit of the submitted attempt writes nothing more.
    await submitExam(student, passed.id);
    expect(summary(await eventsOf(school.id, student.id))).toEqual([
      ["exam", `exam_attempt:${failed.id}`, "5.00", null],
      ["exam", `exam_attempt:${passed.id}`, "15.00", null],
    ]);
    expect((await eventsOf(school.id, student.id)).map((event) => event.target_id)).toEqual([setup.exam.id, setup.exam.id]);
    await take(setup, admin, true);
    expect(await eventsOf(school.id, admin.id)).toEqual([]);
    expect(await totalOf(school.id, student.id)).toBe("20.00");
  });
});
