import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { app } from "../../../src/app";
import * as schema from "../../../src/db/schema";
import { insertEnrollment } from "../../helpers/courses";
import { roundTripD1 } from "../../helpers/d1-counter";
import { createSchool, db } from "../../helpers/factories";
import { giveQuizAccess, insertQuiz, insertQuizCourse } from "../../helpers/quizzes";
import { as, schoolWithAdmin, signedIn, type Member } from "../../helpers/users";
import { schoolD1 } from "../../helpers/databases";
import { envWith } from "../../helpers/wrapped-d1";

/** What quizzes give the course tree: embedded quizzes in full blocks, question counts, the audience picker. */

const QUESTIONS = [{ type: "single" as const }, { type: "matching" as const }, { type: "free_text" as const, deleted: true }];

describe("quiz_ref blocks in content reads", () => {
  it("embed the quiz as GET /quizzes/:id shows it to the caller: staff with the answers, students the safe view", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    const quiz = await insertQuiz(school.id, { title: "Embedded", defaultScoringMode: "partial", questions: QUESTIONS });
    const tree = await giveQuizAccess(school.id, quiz.id, [student.id]);
    const blockId = tree.blockIds[0]!;

    const staff = await as(admin, `/t/blocks/${blockId}`);
    expect(staff.status).toBe(200);
    expect(staff.body.data.quiz).toEqual((await as(admin, `/t/quizzes/${quiz.id}`)).body.data);
    expect(staff.body.data.quiz).toMatchObject({ id: quiz.id, title: "Embedded", default_scoring_mode: "partial" });
    expect(staff.body.data.quiz.questions[0].answers[0].is_correct).toBe(true);

    for (const path of [`/t/blocks/${blockId}`, `/t/lessons/${tree.lessonIds[0]}/blocks`, `/t/lessons/${tree.lessonIds[0]}`]) {
      const res = await as(student, path);
      expect(res.status).toBe(200);
      const block = path.startsWith("/t/blocks") ? res.body.data : (res.body.data.blocks ?? res.body.data)[0];
      const embedded = block.quiz;
      expect(embedded).toMatchObject({ id: quiz.id, title: "Embedded", published_via_course: true });
      expect(embedded).not.toHaveProperty("default_scoring_mode");
      expect(embedded.questions.map((q: { id: string }) => q.id)).toEqual([quiz.questions[0]!.id, quiz.questions[1]!.id]);
      expect(JSON.stringify(embedded)).not.toMatch(/is_correct|correct_text|scoring_mode/);
      expect(embedded.questions[1].match_rights).toHaveLength(2);
    }
  });

  it("a deleted quiz is embedded nowhere and has no question count", async () => {
    const { school, admin } = await schoolWithAdmin();
    const quiz = await insertQuiz(school.id, { questions: QUESTIONS });
    const tree = await insertQuizCourse(school.id, quiz.id);
    const index = async () => (await as(admin, `/t/courses/${tree.courseId}/modules`)).body.data.modules[0].lessons[0].blocks[0];
    expect(await index()).toMatchObject({ type: "quiz_ref", question_count: 2 });
    expect((await as(admin, `/t/quizzes/${quiz.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await as(admin, `/t/blocks/${tree.blockIds[0]}`)).body.data).toMatchObject({ type: "quiz_ref", payload: { quiz_id: quiz.id }, quiz: null });
    expect(await index()).toMatchObject({ type: "quiz_ref", question_count: null });
  });

  it("a student's module index counts the quiz's live questions without embedding it", async () => {
    const { school } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    const quiz = await insertQuiz(school.id, { questions: QUESTIONS });
    const tree = await insertQuizCourse(school.id, quiz.id);
    const res = await as(student, `/t/courses/${tree.courseId}/modules`);
    expect(res.body.data.modules[0].lessons[0].blocks[0]).toEqual({ id: tree.blockIds[0], type: "quiz_ref", position: 0, payload: null, locked: true, question_count: 2 });
    await insertEnrollment(school.id, tree.courseId, student.id);
    const enrolled = await as(student, `/t/courses/${tree.courseId}/modules`);
    expect(enrolled.body.data.modules[0].lessons[0].blocks[0]).toEqual({ id: tree.blockIds[0], type: "quiz_ref", position: 0, payload: { quiz_id: quiz.id }, locked: false, question_count: 2 });
  });

  it("a lesson with quiz blocks is read in three round trips: the guard, the lesson's batch and one batch for every embedded quiz", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    const quizzes = [await insertQuiz(school.id, { questions: QUESTIONS }), await insertQuiz(school.id, { questions: QUESTIONS })];
    const tree = await giveQuizAccess(school.id, quizzes[0]!.id, [student.id], { shape: [1, 1, 3] });
    await db().update(schema.blocks).set({ payload: { quiz_id: quizzes[1]!.id }, refId: quizzes[1]!.id }).where(eq(schema.blocks.id, tree.blockIds[2]!));
    const lessonId = tree.lessonIds[0]!;
    for (const member of [admin, student] as Member[]) {
      for (const path of [`/t/lessons/${lessonId}`, `/t/lessons/${lessonId}/blocks`, `/t/blocks/${tree.blockIds[0]}`]) {
        const counter = roundTripD1(await schoolD1(member.tenantId));
        const res = await app.request(
          `https://api.lms.localhost/api/v1${path}`,
          { headers: { authorization: `Bearer ${member.token}`, "x-tenant-subdomain": member.subdomain } },
          envWith(counter.db),
        );
        expect({ path, role: member.role, status: res.status, stats: counter.stats }).toEqual({ path, role: member.role, status: 200, stats: { batches: 2, statements: 1 } });
      }
    }
  });
});

describe("quiz options of the campaign picker", () => {
  it("every live quiz of the school, subtitled with its live question count", async () => {
    const { school, admin } = await schoolWithAdmin();
    await insertQuiz(school.id, { title: "Biology", questions: QUESTIONS });
    await insertQuiz(school.id, { title: "Algebra" });
    await insertQuiz(school.id, { title: "Deleted", deleted: true });
    await insertQuiz((await createSchool()).id, { title: "Foreign" });
    const res = await as(admin, "/t/notifications/admin/audience/options?kind=quiz");
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ kind: "quiz", total: 2 });
    expect((res.body.data.options as { label: string; subtitle: string }[]).map((o) => [o.label, o.subtitle])).toEqual([
      ["Algebra", "0 questions"],
      ["Biology", "2 questions"],
    ]);
    expect((await as(admin, "/t/notifications/admin/audience/options?kind=quiz&q=bio")).body.data.options).toMatchObject([{ label: "Biology" }]);
  });
});
