import { describe, expect, it } from "vitest";
import { insertCourseTree, insertEnrollment } from "../../helpers/courses";
import { insertExam, insertExamAttempt } from "../../helpers/exams";
import { failure } from "../../helpers/http";
import { giveQuizAccess, insertQuiz } from "../../helpers/quizzes";
import { as, curatorWith, schoolWithAdmin, signedIn } from "../../helpers/users";

/** What exams give quizzes (publication, references, reads, the delete guard), the course tree (exam_ref blocks) and the campaign picker. */

describe("quizzes used by exams", () => {
  it("published_via_exam: a live section of a live, published exam uses the quiz", async () => {
    const { school, admin } = await schoolWithAdmin();
    const viaPublished = await insertQuiz(school.id);
    const viaDraft = await insertQuiz(school.id);
    const viaDeletedExam = await insertQuiz(school.id);
    const viaDeletedSection = await insertQuiz(school.id);
    await insertExam(school.id, { sections: [{ quizId: viaPublished.id }] });
    await insertExam(school.id, { status: "draft", sections: [{ quizId: viaDraft.id }] });
    await insertExam(school.id, { deleted: true, sections: [{ quizId: viaDeletedExam.id }] });
    await insertExam(school.id, { sections: [{ quizId: viaDeletedSection.id, deleted: true }] });
    const flag = async (quizId: string) => (await as(admin, `/t/quizzes/${quizId}`)).body.data.published_via_exam;
    expect(await flag(viaPublished.id)).toBe(true);
    for (const quiz of [viaDraft, viaDeletedExam, viaDeletedSection]) expect(await flag(quiz.id)).toBe(false);
    const published = (await as(admin, "/t/quizzes?status=published")).body.data.quizzes.map((quiz: { id: string }) => quiz.id);
    expect(published).toEqual([viaPublished.id]);
    const drafts = (await as(admin, "/t/quizzes?status=draft")).body.data.quizzes.map((quiz: { id: string }) => quiz.id);
    expect(drafts.sort()).toEqual([viaDraft.id, viaDeletedExam.id, viaDeletedSection.id].sort());
  });

  it("exam_refs: staff see every live exam's live sections using the quiz, by exam title; students the published ones", async () => {
    const { school, admin } = await schoolWithAdmin();
    const quiz = await insertQuiz(school.id);
    const zeta = await insertExam(school.id, { title: "Zeta", sections: [{ quizId: quiz.id, title: "Z1" }] });
    const alpha = await insertExam(school.id, {
      status: "draft",
      title: "Alpha",
      sections: [
        { quizId: quiz.id, title: "A1" },
        { quizId: quiz.id, title: "A-gone", deleted: true },
        { quizId: quiz.id, title: "A2" },
      ],
    });
    await insertExam(school.id, { title: "Deleted", deleted: true, sections: [{ quizId: quiz.id }] });
    const staff = (await as(admin, `/t/quizzes/${quiz.id}`)).body.data;
    expect(staff.exam_refs).toEqual([
      { exam_id: alpha.id, exam_title: "Alpha", exam_status: "draft", section_id: alpha.sectionIds[0], section_title: "A1" },
      { exam_id: alpha.id, exam_title: "Alpha", exam_status: "draft", section_id: alpha.sectionIds[2], section_title: "A2" },
      { exam_id: zeta.id, exam_title: "Zeta", exam_status: "published", section_id: zeta.sectionIds[0], section_title: "Z1" },
    ]);
    const student = await signedIn(school, { role: "student" });
    // A student reads the quiz through a course (an exam gives no read of its own).
    await giveQuizAccess(school.id, quiz.id, [student.id]);
    const own = await as(student, `/t/quizzes/${quiz.id}`);
    expect(own.body.data.exam_refs).toEqual([{ exam_id: zeta.id, exam_title: "Zeta", exam_status: "published", section_id: zeta.sectionIds[0], section_title: "Z1" }]);
  });

  it("a student does not read a quiz that is a section of a published exam or a draft, nor attempts it outside the exam", async () => {
    const { school } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    const inPublished = await insertQuiz(school.id, { questions: [{ type: "single" }, { type: "matching" }] });
    const inDraft = await insertQuiz(school.id);
    await insertExam(school.id, { sections: [{ quizId: inPublished.id }] });
    await insertExam(school.id, { status: "draft", sections: [{ quizId: inDraft.id }] });
    for (const quiz of [inPublished, inDraft]) expect(failure(await as(student, `/t/quizzes/${quiz.id}`))).toEqual({ status: 404, error: "quiz_not_found" });
    expect((await as(student, "/t/quizzes")).body.data.quizzes).toEqual([]);
    expect(failure(await as(student, "/t/attempts", { body: { quiz_id: inPublished.id } }))).toEqual({ status: 404, error: "quiz_not_found" });
  });

  it("DELETE /quizzes/:id: 409 quiz_referenced_by_exam while an exam (any status) uses it; free once the exam is deleted", async () => {
    const { school, admin } = await schoolWithAdmin();
    const quiz = await insertQuiz(school.id);
    const exam = await insertExam(school.id, { status: "draft", sections: [{ quizId: quiz.id }] });
    expect(failure(await as(admin, `/t/quizzes/${quiz.id}`, { method: "DELETE" }))).toEqual({ status: 409, error: "quiz_referenced_by_exam" });
    expect((await as(admin, `/t/exams/${exam.id}`, { method: "DELETE" })).status).toBe(200);
    expect((await as(admin, `/t/quizzes/${quiz.id}`, { method: "DELETE" })).status).toBe(204);
  });

  it("another school's exam never links the quiz", async () => {
    const { school, admin } = await schoolWithAdmin();
    const quiz = await insertQuiz(school.id);
    const other = await schoolWithAdmin();
    // A foreign section naming this quiz's id (ids are global) is not this school's.
    await insertExam(other.school.id, { sections: [{ quizId: quiz.id }] });
    expect((await as(admin, `/t/quizzes/${quiz.id}`)).body.data).toMatchObject({ published_via_exam: false, exam_refs: [] });
    expect((await as(admin, `/t/quizzes/${quiz.id}`, { method: "DELETE" })).status).toBe(204);
  });
});

describe("exam_ref blocks", () => {
  async function examLesson(status: "draft" | "published") {
    const { school, admin } = await schoolWithAdmin();
    const quiz = await insertQuiz(school.id, { questions: [{ type: "single" }] });
    const exam = await insertExam(school.id, { status, title: "Midterm", passingScore: 50, sections: [{ quizId: quiz.id, weight: 4 }] });
    const tree = await insertCourseTree(school.id, { blockType: "exam_ref", payload: { exam_id: exam.id }, refId: exam.id });
    const student = await signedIn(school, { role: "student" });
    await insertEnrollment(school.id, tree.courseId, student.id, { totalBlocks: 1 });
    return { school, admin, quiz, exam, tree, student };
  }

  it("embed the exam as GET /exams/:id shows it to the caller: staff the exam, a student also their result and attempts", async () => {
    const { school, admin, exam, tree, student } = await examLesson("published");
    await insertExamAttempt(school.id, exam.id, student.id, { finalScoreHundredths: 300, finalMaxHundredths: 400, finalScorePctHundredths: 7500, passed: true });
    const blockId = tree.blockIds[0]!;
    const staff = await as(admin, `/t/blocks/${blockId}`);
    expect(staff.status).toBe(200);
    expect(staff.body.data.exam).toEqual((await as(admin, `/t/exams/${exam.id}`)).body.data);
    const studentView = (await as(student, `/t/exams/${exam.id}`)).body.data;
    expect(studentView).toMatchObject({ attempts_count: 1, result: { score: "3.00", max_score: "4.00", score_pct: "75.00", passed: true } });
    for (const path of [`/t/blocks/${blockId}`, `/t/lessons/${tree.lessonIds[0]}/blocks`, `/t/lessons/${tree.lessonIds[0]}`]) {
      const res = await as(student, path);
      expect(res.status).toBe(200);
      const block = path.startsWith("/t/blocks") ? res.body.data : (res.body.data.blocks ?? res.body.data)[0];
      expect({ path, exam: block.exam }).toEqual({ path, exam: studentView });
    }
  });

  it("a draft exam embeds for staff only; a deleted exam embeds nowhere", async () => {
    const { school, admin, exam, tree, student } = await examLesson("draft");
    const blockId = tree.blockIds[0]!;
    expect((await as(admin, `/t/blocks/${blockId}`)).body.data.exam).toMatchObject({ id: exam.id, status: "draft" });
    expect((await as(student, `/t/blocks/${blockId}`)).body.data).toMatchObject({ type: "exam_ref", payload: { exam_id: exam.id }, exam: null });
    const curator = await signedIn(school, curatorWith({ can_manage_exams: true }));
    expect((await as(curator, `/t/exams/${exam.id}`, { method: "DELETE" })).status).toBe(200);
    expect((await as(admin, `/t/blocks/${blockId}`)).body.data).toMatchObject({ type: "exam_ref", exam: null });
  });
});

describe("the campaign picker's exam options", () => {
  it("every live exam of the school, subtitled with its status and live section count", async () => {
    const { school, admin } = await schoolWithAdmin();
    const quiz = await insertQuiz(school.id);
    const physics = await insertExam(school.id, { title: "Physics", sections: [{ quizId: quiz.id }, { quizId: quiz.id }, { quizId: quiz.id, deleted: true }] });
    const algebra = await insertExam(school.id, { status: "draft", title: "Algebra" });
    await insertExam(school.id, { title: "Gone", deleted: true });
    await insertExam((await schoolWithAdmin()).school.id, { title: "Foreign" });
    const res = await as(admin, "/t/notifications/admin/audience/options?kind=exam");
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ kind: "exam", total: 2 });
    expect(res.body.data.options).toEqual([
      { id: algebra.id, label: "Algebra", subtitle: "draft · 0 sections" },
      { id: physics.id, label: "Physics", subtitle: "published · 2 sections" },
    ]);
    expect((await as(admin, "/t/notifications/admin/audience/options?kind=exam&q=phys")).body.data.options).toMatchObject([{ id: physics.id }]);
  });
});

describe("course access does not depend on exams", () => {
  it("a quiz reached through a course and used by an exam reads with both references", async () => {
    const { school } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    const quiz = await insertQuiz(school.id);
    await giveQuizAccess(school.id, quiz.id, [student.id]);
    await insertExam(school.id, { status: "draft", sections: [{ quizId: quiz.id }] });
    const res = await as(student, `/t/quizzes/${quiz.id}`);
    expect(res.body.data).toMatchObject({ published_via_course: true, published_via_exam: false, exam_refs: [] });
    expect(res.body.data.course_refs).toHaveLength(1);
  });
});
