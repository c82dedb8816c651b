import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";
import { insertCourseTree, insertEnrollment } from "../../helpers/courses";
import { insertExam } from "../../helpers/exams";
import { db } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { insertQuiz } from "../../helpers/quizzes";
import { as, curatorWith, schoolWithAdmin, signedIn, unknownId, type Member } from "../../helpers/users";
import { storedImage } from "../../media/helpers";

/** POST /t/lessons/:id/blocks: payloads per type, positions, references, progress. */

async function setup(shape: [number, number, number] = [1, 1, 0]) {
  const { school, admin } = await schoolWithAdmin();
  const tree = await insertCourseTree(school.id, { shape });
  return { school, admin, tree, lessonId: tree.lessonIds[0]! };
}

const create = (member: Member, lessonId: string, body: unknown) => as(member, `/t/lessons/${lessonId}/blocks`, { body });

async function storedBlock(id: string) {
  const [row] = await db().select().from(schema.blocks).where(eq(schema.blocks.id, id));
  return row!;
}

describe("POST /t/lessons/:id/blocks", () => {
  it("201 with the full block, appended; unknown payload keys are dropped and html is sanitized", async () => {
    const { admin, tree, lessonId } = await setup([1, 1, 2]);
    const res = await create(admin, lessonId, { type: "text", payload: { html: '<p onclick="x()">Hi<script>alert(1)</script></p>', extra: 1 } });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.any(String),
      lesson_id: lessonId,
      module_id: tree.modules[0]!.id,
      course_id: tree.courseId,
      type: "text",
      position: 2,
      payload: { html: "<p>Hi</p>" },
      locked: false,
      url: null,
      quiz: null,
      assignment: null,
      exam: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(await storedBlock(res.body.data.id)).toMatchObject({ tenantId: admin.tenantId, refId: null, payload: { html: "<p>Hi</p>" }, deletedAt: null });
  });

  it("a position inserts at that index (counting blocks, not stored positions) and moves later blocks down; a large one appends", async () => {
    const { admin, tree, lessonId } = await setup([1, 1, 3]);
    const [a, b, c] = tree.blockIds as [string, string, string];
    // A gap, as a deletion leaves: positions 0, 5, 9.
    await db().update(schema.blocks).set({ position: 5 }).where(eq(schema.blocks.id, b));
    await db().update(schema.blocks).set({ position: 9 }).where(eq(schema.blocks.id, c));
    const inserted = await create(admin, lessonId, { type: "embed", payload: { url: "https://example.com/frame" }, position: 2 });
    expect(inserted.status).toBe(201);
    expect(inserted.body.data.position).toBe(2);
    const appended = await create(admin, lessonId, { type: "embed", payload: { url: "https://example.com/end", title: "End" }, position: 99 });
    expect(appended.body.data.position).toBe(4);
    const first = await create(admin, lessonId, { type: "embed", payload: { url: "https://example.com/first" }, position: 0 });
    expect(first.body.data.position).toBe(0);
    const listed = await as(admin, `/t/lessons/${lessonId}/blocks`);
    expect(listed.body.data.blocks.map((block: { id: string; position: number }) => [block.id, block.position])).toEqual([
      [first.body.data.id, 0],
      [a, 1],
      [b, 2],
      [inserted.body.data.id, 3],
      [c, 4],
      [appended.body.data.id, 5],
    ]);
  });

  it("media payloads: the asset must be a confirmed asset of the school of the type's kind; file takes any kind", async () => {
    const { school, admin, lessonId } = await setup();
    const image = await storedImage(school.id);
    const pdf = await storedImage(school.id, { kind: "pdf", mime: "application/pdf" });
    const video = await storedImage(school.id, { kind: "video", mime: "video/mp4" });
    const pending = await storedImage(school.id, { status: "pending" });
    const foreign = await storedImage((await schoolWithAdmin()).school.id);

    for (const [type, payload] of [
      ["image", { media_asset_id: image, caption: "A caption" }],
      ["pdf", { media_asset_id: pdf }],
      ["video", { media_asset_id: video }],
      ["video", { url: "https://video.example.com/v/1" }],
      ["file", { media_asset_id: pdf, title: "Handout" }],
      ["file", { media_asset_id: image }],
    ] as const) {
      const res = await create(admin, lessonId, { type, payload });
      expect({ type, status: res.status }).toEqual({ type, status: 201 });
      expect(res.body.data.payload).toEqual(payload);
      expect(res.body.data.url === null).toBe(!("media_asset_id" in payload));
      expect((await storedBlock(res.body.data.id)).refId).toBe("media_asset_id" in payload ? payload.media_asset_id : null);
    }

    const refused = { status: 400, error: "invalid_block_payload" };
    for (const [type, payload] of [
      ["image", { media_asset_id: pdf }],
      ["pdf", { media_asset_id: image }],
      ["video", { media_asset_id: image }],
      ["image", { media_asset_id: pending }],
      ["image", { media_asset_id: foreign }],
      ["file", { media_asset_id: unknownId() }],
    ] as const) {
      const res = await create(admin, lessonId, { type, payload });
      expect({ type, payload, ...failure(res) }).toEqual({ type, payload, ...refused });
      expect(res.body.message).toMatch(/payload\.media_asset_id/);
    }
  });

  it("400 invalid_block_payload for payloads that do not fit their type, with the failing field named", async () => {
    const { school, admin, lessonId } = await setup();
    const image = await storedImage(school.id);
    for (const [type, payload, path] of [
      ["text", {}, "payload.html"],
      ["text", { html: "x".repeat(100_001) }, "payload.html"],
      ["text", { html: 5 }, "payload.html"],
      ["embed", { url: "http://example.com" }, "payload.url"],
      ["embed", { url: "javascript:alert(1)" }, "payload.url"],
      ["embed", { url: "not a url" }, "payload.url"],
      ["video", { url: "http://video.example.com/v" }, "payload.url"],
      ["video", {}, "payload"],
      ["video", { url: "https://video.example.com/v", media_asset_id: image }, "payload"],
      ["image", { media_asset_id: image, caption: "c".repeat(501) }, "payload.caption"],
      ["image", { url: "https://example.com/a.png" }, "payload.media_asset_id"],
      ["pdf", { media_asset_id: "not-a-uuid" }, "payload.media_asset_id"],
      ["quiz_ref", { quiz_id: "nope" }, "payload.quiz_id"],
      ["assignment_ref", {}, "payload.assignment_id"],
      ["exam_ref", { exam_id: 7 }, "payload.exam_id"],
    ] as const) {
      const res = await create(admin, lessonId, { type, payload });
      expect({ type, payload, ...failure(res) }).toEqual({ type, payload, status: 400, error: "invalid_block_payload" });
      expect(res.body.details[0].path).toBe(path);
    }
  });

  it("400 invalid_block_type for a type outside the list; 400 invalid_request_body for a broken envelope", async () => {
    const { admin, lessonId } = await setup();
    for (const type of ["quiz", "TEXT", "", "iframe"]) {
      expect(failure(await create(admin, lessonId, { type, payload: {} }))).toEqual({ status: 400, error: "invalid_block_type" });
    }
    for (const body of [{ type: "text" }, { type: "text", payload: "x" }, { type: "text", payload: { html: "a" }, position: -1 }, { type: "text", payload: { html: "a" }, position: 1.5 }, { type: "text", payload: { html: "a" }, colour: "red" }]) {
      expect(failure(await create(admin, lessonId, body))).toEqual({ status: 400, error: "invalid_request_body" });
    }
  });

  it("a quiz_ref block names a live quiz of the school: 201; a missing, deleted or another school's quiz is 400 block_ref_not_found", async () => {
    const { school, admin, lessonId } = await setup();
    const quiz = await insertQuiz(school.id);
    const created = await create(admin, lessonId, { type: "quiz_ref", payload: { quiz_id: quiz.id } });
    expect(created.status).toBe(201);
    expect((await storedBlock(created.body.data.id)).refId).toBe(quiz.id);
    const deleted = await insertQuiz(school.id, { deleted: true });
    const foreign = await insertQuiz((await schoolWithAdmin()).school.id);
    for (const quizId of [unknownId(), deleted.id, foreign.id]) {
      expect(failure(await create(admin, lessonId, { type: "quiz_ref", payload: { quiz_id: quizId } }))).toEqual({ status: 400, error: "block_ref_not_found" });
    }
    expect((await db().select().from(schema.blocks).where(eq(schema.blocks.lessonId, lessonId))).length).toBe(1);
  });

  it("400 block_ref_not_found for assignment references (the school has none of them yet)", async () => {
    const { admin, lessonId } = await setup();
    expect(failure(await create(admin, lessonId, { type: "assignment_ref", payload: { assignment_id: unknownId() } }))).toEqual({ status: 400, error: "block_ref_not_found" });
    expect((await db().select().from(schema.blocks).where(eq(schema.blocks.lessonId, lessonId))).length).toBe(0);
  });

  it("an exam_ref block names a live exam of the school, draft or published: 201; a missing, deleted or another school's exam is 400 block_ref_not_found", async () => {
    const { school, admin, lessonId } = await setup();
    for (const status of ["draft", "published"] as const) {
      const exam = await insertExam(school.id, { status });
      const created = await create(admin, lessonId, { type: "exam_ref", payload: { exam_id: exam.id } });
      expect(created.status).toBe(201);
      expect((await storedBlock(created.body.data.id)).refId).toBe(exam.id);
    }
    const deleted = await insertExam(school.id, { deleted: true });
    const foreign = await insertExam((await schoolWithAdmin()).school.id);
    for (const examId of [unknownId(), deleted.id, foreign.id]) {
      expect(failure(await create(admin, lessonId, { type: "exam_ref", payload: { exam_id: examId } }))).toEqual({ status: 400, error: "block_ref_not_found" });
    }
    expect((await db().select().from(schema.blocks).where(eq(schema.blocks.lessonId, lessonId))).length).toBe(2);
  });

  it("404 lesson_not_found: unknown, deleted, another school's lesson; nothing is written", async () => {
    const { admin, lessonId } = await setup();
    const other = await schoolWithAdmin();
    const body = { type: "text", payload: { html: "<p>x</p>" } };
    expect(failure(await create(admin, unknownId(), body))).toEqual({ status: 404, error: "lesson_not_found" });
    expect(failure(await create(other.admin, lessonId, body))).toEqual({ status: 404, error: "lesson_not_found" });
    await db().update(schema.lessons).set({ deletedAt: Date.now() }).where(eq(schema.lessons.id, lessonId));
    expect(failure(await create(admin, lessonId, { ...body, position: 0 }))).toEqual({ status: 404, error: "lesson_not_found" });
    expect((await db().select().from(schema.blocks).where(eq(schema.blocks.lessonId, lessonId))).length).toBe(0);
  });

  it("gate: a curator needs can_manage_courses; a student is refused", async () => {
    const { school, lessonId } = await setup();
    const body = { type: "text", payload: { html: "<p>x</p>" } };
    expect(failure(await create(await signedIn(school, curatorWith({})), lessonId, body))).toEqual({ status: 403, error: "forbidden" });
    expect(failure(await create(await signedIn(school, { role: "student" }), lessonId, body))).toEqual({ status: 403, error: "forbidden" });
    expect((await create(await signedIn(school, curatorWith({ can_manage_courses: true })), lessonId, body)).status).toBe(201);
  });

  it("a new block recounts every enrollment of the course in the same batch (total_blocks, and completed_at stays)", async () => {
    const { school, admin, tree, lessonId } = await setup([1, 1, 1]);
    const student = await signedIn(school, { role: "student" });
    await insertEnrollment(school.id, tree.courseId, student.id, { totalBlocks: 1 });
    expect((await as(student, `/t/blocks/${tree.blockIds[0]}/complete`, { method: "POST" })).status).toBe(200);
    const [before] = await db().select().from(schema.enrollments).where(eq(schema.enrollments.studentId, student.id));
    expect(before).toMatchObject({ blocksCompleted: 1, totalBlocks: 1, completedAt: expect.any(Number) });
    await create(admin, lessonId, { type: "text", payload: { html: "<p>more</p>" } });
    const [after] = await db().select().from(schema.enrollments).where(eq(schema.enrollments.studentId, student.id));
    expect(after).toMatchObject({ blocksCompleted: 1, totalBlocks: 2, completedAt: before!.completedAt });
  });
});
