import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";
import { insertCourseTree, insertEnrollment } from "../../helpers/courses";
import { db } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { insertQuiz } from "../../helpers/quizzes";
import { as, schoolWithAdmin, signedIn, unknownId } from "../../helpers/users";
import { storedImage } from "../../media/helpers";

/** PATCH and DELETE /t/blocks/:id, PATCH /t/lessons/:id/reorder-blocks. */

async function setup(shape: [number, number, number] = [1, 1, 3]) {
  const { school, admin } = await schoolWithAdmin();
  const tree = await insertCourseTree(school.id, { shape });
  return { school, admin, tree, lessonId: tree.lessonIds[0]! };
}

async function storedBlock(id: string) {
  const [row] = await db().select().from(schema.blocks).where(eq(schema.blocks.id, id));
  return row!;
}

describe("PATCH /t/blocks/:id", () => {
  it("replaces the payload (unknown keys dropped); the block's own type may be sent", async () => {
    const { admin, tree } = await setup();
    const id = tree.blockIds[0]!;
    const res = await as(admin, `/t/blocks/${id}`, { method: "PATCH", body: { type: "text", payload: { html: "<h2>New</h2><iframe src=x></iframe>", note: "dropped" } } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id, type: "text", payload: { html: "<h2>New</h2>" }, locked: false, url: null });
    expect((await storedBlock(id)).payload).toEqual({ html: "<h2>New</h2>" });
  });

  it("a new media asset updates ref_id and the link", async () => {
    const { school, admin, lessonId } = await setup([1, 1, 0]);
    const [first, second] = [await storedImage(school.id), await storedImage(school.id)];
    const created = await as(admin, `/t/lessons/${lessonId}/blocks`, { body: { type: "image", payload: { media_asset_id: first } } });
    const res = await as(admin, `/t/blocks/${created.body.data.id}`, { method: "PATCH", body: { payload: { media_asset_id: second, caption: "Two" } } });
    expect(res.status).toBe(200);
    expect(res.body.data.url).toContain(`/media/${second}/download`);
    expect((await storedBlock(created.body.data.id)).refId).toBe(second);
  });

  it("400 block_type_immutable for another type; 400 invalid_block_payload; 400 invalid_request_body without a payload", async () => {
    const { admin, tree } = await setup();
    const id = tree.blockIds[0]!;
    expect(failure(await as(admin, `/t/blocks/${id}`, { method: "PATCH", body: { type: "video", payload: { url: "https://v.example.com" } } }))).toEqual({
      status: 400,
      error: "block_type_immutable",
    });
    expect(failure(await as(admin, `/t/blocks/${id}`, { method: "PATCH", body: { type: "bogus" } }))).toEqual({ status: 400, error: "block_type_immutable" });
    expect(failure(await as(admin, `/t/blocks/${id}`, { method: "PATCH", body: { payload: { html: 1 } } }))).toEqual({ status: 400, error: "invalid_block_payload" });
    expect(failure(await as(admin, `/t/blocks/${id}`, { method: "PATCH", body: {} }))).toEqual({ status: 400, error: "invalid_request_body" });
    expect(failure(await as(admin, `/t/blocks/${id}`, { method: "PATCH", body: { payload: { html: "a" }, position: 2 } }))).toEqual({ status: 400, error: "invalid_request_body" });
    expect((await storedBlock(id)).payload).toEqual({ html: "<p>Block 1.1.1</p>" });
  });

  it("a reference block's new reference must exist: another live quiz of the school is taken, anything else is 400 block_ref_not_found", async () => {
    const { school, admin } = await setup([1, 1, 0]);
    const first = await insertQuiz(school.id);
    const tree = await insertCourseTree(school.id, { blockType: "quiz_ref", payload: { quiz_id: first.id }, refId: first.id });
    const blockId = tree.blockIds[0]!;
    const second = await insertQuiz(school.id);
    const moved = await as(admin, `/t/blocks/${blockId}`, { method: "PATCH", body: { payload: { quiz_id: second.id } } });
    expect(moved.status).toBe(200);
    expect(await storedBlock(blockId)).toMatchObject({ payload: { quiz_id: second.id }, refId: second.id });
    const deleted = await insertQuiz(school.id, { deleted: true });
    const foreign = await insertQuiz((await schoolWithAdmin()).school.id);
    for (const quizId of [unknownId(), deleted.id, foreign.id]) {
      expect(failure(await as(admin, `/t/blocks/${blockId}`, { method: "PATCH", body: { payload: { quiz_id: quizId } } }))).toEqual({
        status: 400,
        error: "block_ref_not_found",
      });
    }
    expect((await storedBlock(blockId)).refId).toBe(second.id);
  });

  it("404 block_not_found: unknown, deleted, another school's; 400 invalid_block_id", async () => {
    const { admin, tree } = await setup();
    const other = await schoolWithAdmin();
    const body = { payload: { html: "<p>x</p>" } };
    expect(failure(await as(admin, `/t/blocks/${unknownId()}`, { method: "PATCH", body }))).toEqual({ status: 404, error: "block_not_found" });
    expect(failure(await as(other.admin, `/t/blocks/${tree.blockIds[0]}`, { method: "PATCH", body }))).toEqual({ status: 404, error: "block_not_found" });
    await db().update(schema.blocks).set({ deletedAt: Date.now() }).where(eq(schema.blocks.id, tree.blockIds[0]!));
    expect(failure(await as(admin, `/t/blocks/${tree.blockIds[0]}`, { method: "PATCH", body }))).toEqual({ status: 404, error: "block_not_found" });
    expect(failure(await as(admin, "/t/blocks/123", { method: "PATCH", body }))).toEqual({ status: 400, error: "invalid_block_id" });
  });
});

describe("DELETE /t/blocks/:id", () => {
  it("204, soft; the block leaves the lesson and every enrollment is recounted (completions stop counting)", async () => {
    const { school, admin, tree, lessonId } = await setup([1, 1, 2]);
    const student = await signedIn(school, { role: "student" });
    await insertEnrollment(school.id, tree.courseId, student.id);
    expect((await as(student, `/t/blocks/${tree.blockIds[1]}/complete`, { method: "POST" })).body.data.progress).toMatchObject({ blocks_completed: 1, total_blocks: 2 });

    const res = await as(admin, `/t/blocks/${tree.blockIds[1]}`, { method: "DELETE" });
    expect(res.status).toBe(204);
    expect((await storedBlock(tree.blockIds[1]!)).deletedAt).toEqual(expect.any(Number));
    expect((await as(admin, `/t/lessons/${lessonId}/blocks`)).body.data.blocks.map((block: { id: string }) => block.id)).toEqual([tree.blockIds[0]]);
    const [enrollment] = await db().select().from(schema.enrollments).where(eq(schema.enrollments.studentId, student.id));
    expect(enrollment).toMatchObject({ blocksCompleted: 0, totalBlocks: 1, completedAt: null });

    expect(failure(await as(admin, `/t/blocks/${tree.blockIds[1]}`, { method: "DELETE" }))).toEqual({ status: 404, error: "block_not_found" });
  });

  it("404 block_not_found for another school's block or an unknown id", async () => {
    const { tree } = await setup();
    const other = await schoolWithAdmin();
    expect(failure(await as(other.admin, `/t/blocks/${tree.blockIds[0]}`, { method: "DELETE" }))).toEqual({ status: 404, error: "block_not_found" });
    expect(failure(await as(other.admin, `/t/blocks/${unknownId()}`, { method: "DELETE" }))).toEqual({ status: 404, error: "block_not_found" });
    expect((await storedBlock(tree.blockIds[0]!)).deletedAt).toBeNull();
  });
});

describe("PATCH /t/lessons/:id/reorder-blocks", () => {
  it("{reordered}: positions 0..n-1 in the order given", async () => {
    const { admin, tree, lessonId } = await setup();
    const [a, b, c] = tree.blockIds as [string, string, string];
    const res = await as(admin, `/t/lessons/${lessonId}/reorder-blocks`, { method: "PATCH", body: { block_ids: [c, a, b] } });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ reordered: 3 });
    expect((await as(admin, `/t/lessons/${lessonId}/blocks`)).body.data.blocks.map((block: { id: string; position: number }) => [block.id, block.position])).toEqual([
      [c, 0],
      [a, 1],
      [b, 2],
    ]);
  });

  it("409 reorder_duplicate, 409 reorder_incomplete (missing, foreign or deleted ids); 404 lesson_not_found", async () => {
    const { school, admin, tree, lessonId } = await setup();
    const [a, b, c] = tree.blockIds as [string, string, string];
    const reorder = (ids: string[], lesson = lessonId) => as(admin, `/t/lessons/${lesson}/reorder-blocks`, { method: "PATCH", body: { block_ids: ids } });
    expect(failure(await reorder([a, a, b, c]))).toEqual({ status: 409, error: "reorder_duplicate" });
    expect(failure(await reorder([a, b]))).toEqual({ status: 409, error: "reorder_incomplete" });
    const elsewhere = await insertCourseTree(school.id);
    expect(failure(await reorder([a, b, elsewhere.blockIds[0]!]))).toEqual({ status: 409, error: "reorder_incomplete" });
    await db().update(schema.blocks).set({ deletedAt: Date.now() }).where(eq(schema.blocks.id, c));
    expect(failure(await reorder([a, b, c]))).toEqual({ status: 409, error: "reorder_incomplete" });
    expect((await reorder([b, a])).body.data).toEqual({ reordered: 2 });
    expect(failure(await reorder([a], unknownId()))).toEqual({ status: 404, error: "lesson_not_found" });
    expect(failure(await as((await schoolWithAdmin()).admin, `/t/lessons/${lessonId}/reorder-blocks`, { method: "PATCH", body: { block_ids: [a, b] } }))).toEqual({
      status: 404,
      error: "lesson_not_found",
    });
  });
});
