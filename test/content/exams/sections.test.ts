import { and, asc, eq, isNull } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";
import { insertExam } from "../../helpers/exams";
import { db } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { insertQuiz } from "../../helpers/quizzes";
import { as, curatorWith, schoolWithAdmin, signedIn, unknownId, type Member } from "../../helpers/users";

/** Exam sections: create, update, delete, reorder, and the published exam's fixed structure. */

const add = (member: Member, examId: string, body: unknown) => as(member, `/t/exams/${examId}/sections`, { body });
const patch = (member: Member, examId: string, sectionId: string, body: unknown) =>
  as(member, `/t/exams/${examId}/sections/${sectionId}`, { method: "PATCH", body });
const remove = (member: Member, examId: string, sectionId: string) => as(member, `/t/exams/${examId}/sections/${sectionId}`, { method: "DELETE" });
const reorder = (member: Member, examId: string, ids: unknown) => as(member, `/t/exams/${examId}/sections/reorder`, { body: { section_ids: ids } });

async function liveSections(examId: string) {
  return db()
    .select()
    .from(schema.examSections)
    .where(and(eq(schema.examSections.examId, examId), isNull(schema.examSections.deletedAt)))
    .orderBy(asc(schema.examSections.position));
}

async function setup(status: "draft" | "published" = "draft", sections = 0) {
  const { school, admin } = await schoolWithAdmin();
  const quiz = await insertQuiz(school.id, { questions: [{ type: "single" }, { type: "free_text" }] });
  const exam = await insertExam(school.id, { status, sections: Array.from({ length: sections }, (_, i) => ({ quizId: quiz.id, weight: i + 1 })) });
  return { school, admin, quiz, exam };
}

describe("POST /t/exams/:id/sections", () => {
  it("201 {id, quiz_id, title, position, weight}, appended after the live sections; the exam read shows it with its question count", async () => {
    const { admin, quiz, exam } = await setup();
    const first = await add(admin, exam.id, { quiz_id: quiz.id.toUpperCase(), title: " Part A ", weight: 1 });
    expect(first.status).toBe(201);
    expect(first.body.data).toEqual({ id: expect.any(String), quiz_id: quiz.id, title: "Part A", position: 0, weight: 1 });
    const second = await add(admin, exam.id, { quiz_id: quiz.id, title: "Part B", weight: 1000 });
    expect(second.body.data).toMatchObject({ position: 1, weight: 1000 });
    await remove(admin, exam.id, second.body.data.id);
    const third = await add(admin, exam.id, { quiz_id: quiz.id, title: "Part C", weight: 7 });
    expect(third.body.data).toMatchObject({ position: 1 });
    expect((await as(admin, `/t/exams/${exam.id}`)).body.data.sections).toEqual([
      { id: first.body.data.id, quiz_id: quiz.id, title: "Part A", position: 0, weight: 1, question_count: 2 },
      { id: third.body.data.id, quiz_id: quiz.id, title: "Part C", position: 1, weight: 7, question_count: 2 },
    ]);
  });

  it("400 invalid_weight for anything but a whole number from 1 to 1000; nothing is written", async () => {
    const { admin, quiz, exam } = await setup();
    for (const weight of [0, 1001, 1.5, "x", "5", -1, null, true, [1]]) {
      expect({ weight, ...failure(await add(admin, exam.id, { quiz_id: quiz.id, title: "S", weight })) }).toEqual({ weight, status: 400, error: "invalid_weight" });
    }
    expect(await liveSections(exam.id)).toEqual([]);
  });

  it("400 invalid_request_body for a missing weight, a missing or bad quiz_id or title, an unknown key, or a 101st section", async () => {
    const { admin, quiz, exam } = await setup();
    for (const body of [
      { quiz_id: quiz.id, title: "S" },
      { title: "S", weight: 1 },
      { quiz_id: "nope", title: "S", weight: 1 },
      { quiz_id: quiz.id, weight: 1 },
      { quiz_id: quiz.id, title: "", weight: 1 },
      { quiz_id: quiz.id, title: "x".repeat(256), weight: 1 },
      { quiz_id: quiz.id, title: "S", weight: 1, position: 0 },
    ]) {
      expect({ body, ...failure(await add(admin, exam.id, body)) }).toEqual({ body, status: 400, error: "invalid_request_body" });
    }
    const now = Date.now();
    for (let batch = 0; batch < 10; batch++) {
      await db()
        .insert(schema.examSections)
        .values(Array.from({ length: 10 }, (_, i) => ({ id: unknownId(), tenantId: exam.tenantId, examId: exam.id, quizId: quiz.id, title: "S", position: batch * 10 + i, weight: 1, createdAt: now, updatedAt: now })));
    }
    expect(failure(await add(admin, exam.id, { quiz_id: quiz.id, title: "S", weight: 1 }))).toEqual({ status: 400, error: "invalid_request_body" });
    expect(await liveSections(exam.id)).toHaveLength(100);
  });

  it("404 exam_not_found (unknown, deleted, another school's exam); 404 quiz_not_found (unknown, deleted, another school's quiz)", async () => {
    const { school, admin, quiz, exam } = await setup();
    const deletedExam = await insertExam(school.id, { status: "draft", deleted: true });
    const other = await schoolWithAdmin();
    const foreignExam = await insertExam(other.school.id, { status: "draft" });
    for (const id of [unknownId(), deletedExam.id, foreignExam.id]) {
      expect(failure(await add(admin, id, { quiz_id: quiz.id, title: "S", weight: 1 }))).toEqual({ status: 404, error: "exam_not_found" });
    }
    const deletedQuiz = await insertQuiz(school.id, { deleted: true });
    const foreignQuiz = await insertQuiz(other.school.id);
    for (const quizId of [unknownId(), deletedQuiz.id, foreignQuiz.id]) {
      expect(failure(await add(admin, exam.id, { quiz_id: quizId, title: "S", weight: 1 }))).toEqual({ status: 404, error: "quiz_not_found" });
    }
    expect(await liveSections(exam.id)).toEqual([]);
    expect(await liveSections(foreignExam.id)).toEqual([]);
  });

  it("409 exam_published_immutable on a published exam", async () => {
    const { admin, quiz, exam } = await setup("published", 1);
    expect(failure(await add(admin, exam.id, { quiz_id: quiz.id, title: "S", weight: 1 }))).toEqual({ status: 409, error: "exam_published_immutable" });
    expect(await liveSections(exam.id)).toHaveLength(1);
  });

  it("403 forbidden without can_manage_exams", async () => {
    const { school, quiz, exam } = await setup();
    for (const member of [await signedIn(school, curatorWith({ can_manage_courses: true })), await signedIn(school, { role: "student" })]) {
      expect(failure(await add(member, exam.id, { quiz_id: quiz.id, title: "S", weight: 1 }))).toEqual({ status: 403, error: "forbidden" });
    }
    expect((await add(await signedIn(school, curatorWith({ can_manage_exams: true })), exam.id, { quiz_id: quiz.id, title: "S", weight: 1 })).status).toBe(201);
  });
});

describe("PATCH /t/exams/:id/sections/:section_id", () => {
  it("changes the title, quiz and weight of a draft's section; an empty body answers the section as it is", async () => {
    const { school, admin, exam } = await setup("draft", 2);
    const other = await insertQuiz(school.id);
    const res = await patch(admin, exam.id, exam.sectionIds[1]!, { title: "Renamed", quiz_id: other.id, weight: 40 });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ id: exam.sectionIds[1], quiz_id: other.id, title: "Renamed", position: 1, weight: 40 });
    expect((await patch(admin, exam.id, exam.sectionIds[1]!, {})).body.data).toEqual(res.body.data);
  });

  it("on a published exam: the title changes; the quiz or weight only to their current values, else 409 exam_published_immutable", async () => {
    const { school, admin, quiz, exam } = await setup("published", 1);
    const sectionId = exam.sectionIds[0]!;
    const other = await insertQuiz(school.id);
    expect((await patch(admin, exam.id, sectionId, { title: "New name", quiz_id: quiz.id, weight: 1 })).body.data).toMatchObject({ title: "New name", weight: 1 });
    for (const body of [{ weight: 2 }, { quiz_id: other.id }, { title: "Again", weight: 3 }]) {
      expect({ body, ...failure(await patch(admin, exam.id, sectionId, body)) }).toEqual({ body, status: 409, error: "exam_published_immutable" });
    }
    expect(await liveSections(exam.id)).toMatchObject([{ title: "New name", quizId: quiz.id, weight: 1 }]);
  });

  it("404 exam_section_not_found: unknown, deleted, another exam's section; 404 exam_not_found; 400 invalid_weight; 404 quiz_not_found", async () => {
    const { school, admin, quiz, exam } = await setup("draft", 2);
    const otherExam = await insertExam(school.id, { status: "draft", sections: [{ quizId: quiz.id }] });
    await remove(admin, exam.id, exam.sectionIds[1]!);
    for (const sectionId of [unknownId(), exam.sectionIds[1]!, otherExam.sectionIds[0]!]) {
      expect(failure(await patch(admin, exam.id, sectionId, { title: "x" }))).toEqual({ status: 404, error: "exam_section_not_found" });
      expect(failure(await patch(admin, exam.id, sectionId, {}))).toEqual({ status: 404, error: "exam_section_not_found" });
    }
    const foreign = await insertExam((await schoolWithAdmin()).school.id, { status: "draft", sections: [{ quizId: quiz.id }] });
    for (const examId of [unknownId(), foreign.id]) {
      expect(failure(await patch(admin, examId, exam.sectionIds[0]!, { title: "x" }))).toEqual({ status: 404, error: "exam_not_found" });
    }
    expect(failure(await patch(admin, foreign.id, foreign.sectionIds[0]!, { title: "x" }))).toEqual({ status: 404, error: "exam_not_found" });
    for (const weight of [0, 1001, 1.5, "x", null]) {
      expect(failure(await patch(admin, exam.id, exam.sectionIds[0]!, { weight }))).toEqual({ status: 400, error: "invalid_weight" });
    }
    expect(failure(await patch(admin, exam.id, exam.sectionIds[0]!, { quiz_id: (await insertQuiz(school.id, { deleted: true })).id }))).toEqual({
      status: 404,
      error: "quiz_not_found",
    });
    expect(failure(await patch(admin, exam.id, "nope", { title: "x" }))).toEqual({ status: 400, error: "invalid_id_format" });
    expect(await liveSections(exam.id)).toMatchObject([{ title: "Section 1", weight: 1, quizId: quiz.id }]);
    expect(await liveSections(otherExam.id)).toMatchObject([{ title: "Section 1" }]);
  });
});

describe("DELETE /t/exams/:id/sections/:section_id", () => {
  it("soft-deletes a draft's section: {deleted: true}; then 404 exam_section_not_found", async () => {
    const { admin, exam } = await setup("draft", 2);
    const res = await remove(admin, exam.id, exam.sectionIds[0]!);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ deleted: true });
    expect((await liveSections(exam.id)).map((section) => section.id)).toEqual([exam.sectionIds[1]]);
    expect(failure(await remove(admin, exam.id, exam.sectionIds[0]!))).toEqual({ status: 404, error: "exam_section_not_found" });
  });

  it("409 exam_published_immutable on a published exam; 404 for another exam's section or another school's exam", async () => {
    const { school, admin, quiz, exam } = await setup("published", 1);
    expect(failure(await remove(admin, exam.id, exam.sectionIds[0]!))).toEqual({ status: 409, error: "exam_published_immutable" });
    const draft = await insertExam(school.id, { status: "draft", sections: [{ quizId: quiz.id }] });
    expect(failure(await remove(admin, draft.id, exam.sectionIds[0]!))).toEqual({ status: 404, error: "exam_section_not_found" });
    const other = await schoolWithAdmin();
    const foreign = await insertExam(other.school.id, { status: "draft", sections: [{ quizId: (await insertQuiz(other.school.id)).id }] });
    expect(failure(await remove(admin, foreign.id, foreign.sectionIds[0]!))).toEqual({ status: 404, error: "exam_not_found" });
    expect(await liveSections(exam.id)).toHaveLength(1);
    expect(await liveSections(foreign.id)).toHaveLength(1);
    expect(failure(await remove(await signedIn(school, { role: "student" }), draft.id, draft.sectionIds[0]!))).toEqual({ status: 403, error: "forbidden" });
  });
});

describe("POST /t/exams/:id/sections/reorder", () => {
  it("puts the sections in the given order, on a draft or a published exam: {reordered}; the path is not taken for a section id", async () => {
    for (const status of ["draft", "published"] as const) {
      const { admin, exam } = await setup(status, 3);
      const [a, b, c] = exam.sectionIds as [string, string, string];
      const res = await reorder(admin, exam.id, [c, a.toUpperCase(), b]);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ reordered: 3 });
      expect((await liveSections(exam.id)).map((section) => [section.id, section.position])).toEqual([
        [c, 0],
        [a, 1],
        [b, 2],
      ]);
      expect(((await as(admin, `/t/exams/${exam.id}`)).body.data.sections as { id: string }[]).map((section) => section.id)).toEqual([c, a, b]);
      // The section routes read `reorder` as a malformed section id, never the other way round.
      expect(failure(await patch(admin, exam.id, "reorder", { section_ids: [a, b, c] }))).toEqual({ status: 400, error: "invalid_id_format" });
    }
  });

  it("409 reorder_duplicate, then 409 reorder_incomplete for a missing, extra, deleted or another exam's section; 400 for an empty list", async () => {
    const { school, admin, quiz, exam } = await setup("draft", 3);
    const [a, b, c] = exam.sectionIds as [string, string, string];
    const otherExam = await insertExam(school.id, { status: "draft", sections: [{ quizId: quiz.id }] });
    expect(failure(await reorder(admin, exam.id, [a, a, b]))).toEqual({ status: 409, error: "reorder_duplicate" });
    expect(failure(await reorder(admin, exam.id, [a, b, c, a.toUpperCase()]))).toEqual({ status: 409, error: "reorder_duplicate" });
    expect(failure(await reorder(admin, exam.id, [a, b]))).toEqual({ status: 409, error: "reorder_incomplete" });
    expect(failure(await reorder(admin, exam.id, [a, b, c, otherExam.sectionIds[0]!]))).toEqual({ status: 409, error: "reorder_incomplete" });
    expect(failure(await reorder(admin, exam.id, [a, b, unknownId()]))).toEqual({ status: 409, error: "reorder_incomplete" });
    await remove(admin, exam.id, c);
    expect(failure(await reorder(admin, exam.id, [a, b, c]))).toEqual({ status: 409, error: "reorder_incomplete" });
    expect(failure(await reorder(admin, exam.id, []))).toEqual({ status: 400, error: "invalid_request_body" });
    expect(failure(await reorder(admin, exam.id, ["nope"]))).toEqual({ status: 400, error: "invalid_request_body" });
    expect((await liveSections(exam.id)).map((section) => section.id)).toEqual([a, b]);
    expect((await reorder(admin, exam.id, [b, a])).body.data).toEqual({ reordered: 2 });
  });

  it("404 exam_not_found for an unknown, deleted or another school's exam; 403 without can_manage_exams", async () => {
    const { school, admin, quiz } = await setup();
    const deleted = await insertExam(school.id, { deleted: true, sections: [{ quizId: quiz.id }] });
    const foreign = await insertExam((await schoolWithAdmin()).school.id, { sections: [{ quizId: quiz.id }] });
    expect(failure(await reorder(admin, unknownId(), [unknownId()]))).toEqual({ status: 404, error: "exam_not_found" });
    expect(failure(await reorder(admin, deleted.id, deleted.sectionIds))).toEqual({ status: 404, error: "exam_not_found" });
    expect(failure(await reorder(admin, foreign.id, foreign.sectionIds))).toEqual({ status: 404, error: "exam_not_found" });
    const exam = await insertExam(school.id, { sections: [{ quizId: quiz.id }] });
    expect(failure(await reorder(await signedIn(school, curatorWith({ can_manage_courses: true })), exam.id, exam.sectionIds))).toEqual({ status: 403, error: "forbidden" });
  });
});
