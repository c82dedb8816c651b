import { describe, expect, it } from "vitest";
import { insertEnrollment } from "../../helpers/courses";
import { failure } from "../../helpers/http";
import { insertAttempt, insertQuizCourse } from "../../helpers/quizzes";
import { signedIn } from "../../helpers/users";
import { days, putWindow } from "../schedule/helpers";
import { quizForStudent, start } from "./helpers";

/**
 * The schedule gate of a start: a lesson's start to come always closes it; a passed end closes
 * only a first attempt; staff pass; with several lessons giving access the most lenient wins.
 */

describe("starting an attempt against the lesson's dates", () => {
  it("before the lesson's module opens: 403 schedule_window_closed for every attempt; staff start anyway", async () => {
    const { school, admin, student, quiz, tree } = await quizForStudent();
    await putWindow(admin, "modules", tree.modules[0]!.id, { starts_at: days(1) });
    expect(failure(await start(student, quiz.id))).toEqual({ status: 403, error: "schedule_window_closed" });
    await insertAttempt(school.id, quiz.id, student.id);
    expect(failure(await start(student, quiz.id))).toEqual({ status: 403, error: "schedule_window_closed" });
    const curator = await signedIn(school, { role: "curator" });
    for (const member of [admin, curator]) expect((await start(member, quiz.id)).status).toBe(201);
    await putWindow(admin, "modules", tree.modules[0]!.id, { starts_at: days(1), allow_before_start: true });
    expect((await start(student, quiz.id)).status).toBe(201);
  });

  it("after the lesson ended: only a first attempt is refused", async () => {
    const { school, admin, student, quiz, tree } = await quizForStudent();
    const returning = await signedIn(school, { role: "student" });
    await insertEnrollment(school.id, tree.courseId, returning.id);
    await insertAttempt(school.id, quiz.id, returning.id);
    await putWindow(admin, "courses", tree.courseId, { ends_at: days(-1) });
    expect(failure(await start(student, quiz.id))).toEqual({ status: 403, error: "schedule_window_closed" });
    expect((await start(returning, quiz.id)).status).toBe(201);
  });

  it("a quiz in two lessons: refused only when both refuse", async () => {
    const { school, admin, student, quiz, tree } = await quizForStudent();
    const second = await insertQuizCourse(school.id, quiz.id);
    await insertEnrollment(school.id, second.courseId, student.id);
    await putWindow(admin, "modules", tree.modules[0]!.id, { starts_at: days(1) });
    const open = await start(student, quiz.id);
    expect(open.status).toBe(201);
    await putWindow(admin, "modules", second.modules[0]!.id, { starts_at: days(2) });
    // The attempt in progress is answered whatever the dates; a new start is gated.
    expect((await start(student, quiz.id)).status).toBe(200);
    const other = await signedIn(school, { role: "student" });
    await insertEnrollment(school.id, tree.courseId, other.id);
    await insertEnrollment(school.id, second.courseId, other.id);
    expect(failure(await start(other, quiz.id))).toEqual({ status: 403, error: "schedule_window_closed" });
  });
});
