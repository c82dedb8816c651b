import { describe, expect, it } from "vitest";
import { insertEnrollment } from "../../helpers/courses";
import { insertExam } from "../../helpers/exams";
import { failure } from "../../helpers/http";
import { giveQuizAccess, insertQuiz, insertQuizCourse } from "../../helpers/quizzes";
import { as, schoolWithAdmin, signedIn, type Member } from "../../helpers/users";
import { days, putWindow } from "../schedule/helpers";

/**
 * Quizzes a student may not read yet (docs/decisions/exams.md, "Exams"): an exam section's
 * quiz gives its questions only through `go` in the student's exam attempt, and a quiz in a lesson
 * whose dates have not opened is as closed as the lesson that hides it.
 */

const notFound = { status: 404, error: "quiz_not_found" };
const quizIds = async (member: Member, query = "") => (await as(member, `/t/quizzes${query}`)).body.data.quizzes.map((quiz: { id: string }) => quiz.id) as string[];

describe("an exam section's quiz", () => {
  it("is 404 to a student before and during the exam and never listed; its questions come through go", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    const quiz = await insertQuiz(school.id, { questions: [{ type: "single" }, { type: "single" }] });
    const exam = await insertExam(school.id, { sections: [{ quizId: quiz.id }] });

    expect(failure(await as(student, `/t/quizzes/${quiz.id}`))).toEqual(notFound);
    expect(await quizIds(student)).toEqual([]);
    expect(await quizIds(student, "?status=published")).toEqual([]);

    const started = await as(student, "/t/exam-attempts", { method: "POST", body: { exam_id: exam.id } });
    expect(started.status).toBe(201);
    expect(failure(await as(student, `/t/quizzes/${quiz.id}`))).toEqual(notFound);
    expect(await quizIds(student)).toEqual([]);
    const section = await as(student, `/t/exam-attempts/${started.body.data.id}/go`, { method: "POST", body: { section_index: 0 } });
    expect(section.status).toBe(200);
    expect(section.body.data.quiz.questions.map((question: { id: string }) => question.id)).toEqual(quiz.questions.map((question) => question.id));
    expect(failure(await as(student, `/t/quizzes/${quiz.id}`))).toEqual(notFound);

    // Staff read it as ever.
    expect((await as(admin, `/t/quizzes/${quiz.id}`)).body.data).toMatchObject({ id: quiz.id, published_via_exam: true });
  });

  it("reads to a student who also reaches it through an open course, with the published exam in exam_refs", async () => {
    const { school } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    const outsider = await signedIn(school, { role: "student" });
    const quiz = await insertQuiz(school.id, { questions: [{ type: "single" }] });
    const exam = await insertExam(school.id, { title: "Finals", sections: [{ quizId: quiz.id, title: "Part 1" }] });
    await giveQuizAccess(school.id, quiz.id, [student.id]);
    const res = await as(student, `/t/quizzes/${quiz.id}`);
    expect(res.status).toBe(200);
    expect(res.body.data.exam_refs).toEqual([{ exam_id: exam.id, exam_title: "Finals", exam_status: "published", section_id: exam.sectionIds[0], section_title: "Part 1" }]);
    expect(await quizIds(student)).toEqual([quiz.id]);
    expect(failure(await as(outsider, `/t/quizzes/${quiz.id}`))).toEqual(notFound);
  });
});

describe("a quiz in a lesson whose dates have not opened", () => {
  it("is 404 to the student and not listed until the window opens; staff read it; a passed end still reads", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    const quiz = await insertQuiz(school.id, { questions: [{ type: "single" }] });
    const tree = await giveQuizAccess(school.id, quiz.id, [student.id]);
    const lesson = tree.lessonIds[0]!;
    const moduleId = tree.modules[0]!.id;
    // A lesson window needs one on its module in the same grid.
    expect((await putWindow(admin, "modules", moduleId, { starts_at: days(-10) })).status).toBe(200);
    expect((await putWindow(admin, "lessons", lesson, { starts_at: days(1) })).status).toBe(200);

    expect(failure(await as(student, `/t/quizzes/${quiz.id}`))).toEqual(notFound);
    expect(await quizIds(student)).toEqual([]);
    expect(await quizIds(student, `?course_id=${tree.courseId}`)).toEqual([]);
    expect((await as(admin, `/t/quizzes/${quiz.id}`)).status).toBe(200);

    // A start allowed before the opening date reads.
    expect((await putWindow(admin, "lessons", lesson, { starts_at: days(1), allow_before_start: true })).status).toBe(200);
    expect((await as(student, `/t/quizzes/${quiz.id}`)).status).toBe(200);
    // The module not opened yet closes its lessons too.
    expect((await putWindow(admin, "modules", moduleId, { starts_at: days(2) })).status).toBe(200);
    expect(failure(await as(student, `/t/quizzes/${quiz.id}`))).toEqual(notFound);
    // Opened in the past and ended: the student still reads it (reviewing is not a new attempt).
    expect((await putWindow(admin, "modules", moduleId, { starts_at: days(-10) })).status).toBe(200);
    expect((await putWindow(admin, "lessons", lesson, { starts_at: days(-3), ends_at: days(-1) })).status).toBe(200);
    expect((await as(student, `/t/quizzes/${quiz.id}`)).status).toBe(200);
    expect(await quizIds(student)).toEqual([quiz.id]);
  });

  it("reads through another lesson that is open, whose course alone appears in course_refs", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    const quiz = await insertQuiz(school.id, { questions: [{ type: "single" }] });
    const closed = await giveQuizAccess(school.id, quiz.id, [student.id]);
    const open = await insertQuizCourse(school.id, quiz.id);
    await insertEnrollment(school.id, open.courseId, student.id);
    expect((await putWindow(admin, "courses", closed.courseId, { starts_at: days(1) })).status).toBe(200);
    const res = await as(student, `/t/quizzes/${quiz.id}`);
    expect(res.status).toBe(200);
    expect(res.body.data.course_refs.map((ref: { course_id: string }) => ref.course_id)).toEqual([open.courseId]);
    expect(await quizIds(student, `?course_id=${closed.courseId}`)).toEqual([]);
    expect(await quizIds(student, `?course_id=${open.courseId}`)).toEqual([quiz.id]);
  });
});
