import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";
import { insertCourseTree, insertEnrollment } from "../../helpers/courses";
import { db } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { addMember, as, createGroup, curatorWith, schoolWithAdmin, signedIn, unknownId } from "../../helpers/users";
import { storedImage } from "../../media/helpers";

/** GET /t/lessons/:id, /t/lessons/:id/blocks and /t/blocks/:id: who reads what, locks, resume. */

async function setup(options: Parameters<typeof insertCourseTree>[1] = {}) {
  const { school, admin } = await schoolWithAdmin();
  const student = await signedIn(school, { role: "student" });
  const tree = await insertCourseTree(school.id, options);
  return { school, admin, student, tree };
}

async function enrollmentOf(courseId: string, studentId: string) {
  const [row] = await db()
    .select()
    .from(schema.enrollments)
    .where(and(eq(schema.enrollments.courseId, courseId), eq(schema.enrollments.studentId, studentId)));
  return row!;
}

async function complete(tenantId: string, courseId: string, blockIds: string[], studentId: string, enrollmentId: string) {
  const [block] = await db().select().from(schema.blocks).where(eq(schema.blocks.id, blockIds[0]!));
  for (const blockId of blockIds) {
    await db()
      .insert(schema.blockCompletions)
      .values({ id: unknownId(), tenantId, courseId, lessonId: block!.lessonId, blockId, studentId, enrollmentId, source: "manual", completedAt: Date.now() });
  }
}

describe("GET /t/lessons/:id", () => {
  it("staff read a draft course's lesson with full blocks (no lock, no resume)", async () => {
    const { admin, tree } = await setup({ status: "draft", shape: [1, 1, 2] });
    const res = await as(admin, `/t/lessons/${tree.lessonIds[0]}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      id: tree.lessonIds[0],
      module_id: tree.modules[0]!.id,
      course_id: tree.courseId,
      title: "Lesson 1.1",
      position: 0,
      screenshot_protection_enabled: false,
      cover_image_id: null,
      cover_image_url: null,
      passed: false,
      blocks: tree.blockIds.map((id, position) => ({
        id,
        lesson_id: tree.lessonIds[0],
        module_id: tree.modules[0]!.id,
        course_id: tree.courseId,
        type: "text",
        position,
        payload: { html: `<p>Block 1.1.${position + 1}</p>` },
        locked: false,
        url: null,
        quiz: null,
        assignment: null,
        exam: null,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      })),
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
  });

  it("an enrolled student reads it with window fields and `passed`, and the lesson's first block becomes the resume point", async () => {
    const { school, student, tree } = await setup({ shape: [1, 2, 2] });
    const enrollmentId = await insertEnrollment(school.id, tree.courseId, student.id);
    const first = await as(student, `/t/lessons/${tree.lessonIds[1]}`);
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ passed: false, locked: false, locked_reason: null, available_from: null, available_until: null });
    expect(first.body.data.blocks.map((block: { id: string }) => block.id)).toEqual(tree.modules[0]!.lessons[1]!.blocks);
    const enrollment = await enrollmentOf(tree.courseId, student.id);
    expect(enrollment.lastAccessedBlockId).toBe(tree.modules[0]!.lessons[1]!.blocks[0]);
    expect(enrollment.lastAccessedAt).toEqual(expect.any(Number));

    await complete(school.id, tree.courseId, tree.modules[0]!.lessons[1]!.blocks, student.id, enrollmentId);
    expect((await as(student, `/t/lessons/${tree.lessonIds[1]}`)).body.data.passed).toBe(true);
    expect((await as(student, `/t/lessons/${tree.lessonIds[0]}`)).body.data.passed).toBe(false);
  });

  it("an empty lesson records nothing and is never passed", async () => {
    const { school, student, tree } = await setup({ shape: [1, 1, 0] });
    await insertEnrollment(school.id, tree.courseId, student.id);
    const res = await as(student, `/t/lessons/${tree.lessonIds[0]}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ passed: false, blocks: [] });
    expect((await enrollmentOf(tree.courseId, student.id)).lastAccessedBlockId).toBeNull();
  });

  it("404 lesson_not_found: a student not enrolled, a draft course, a removed enrollment, a hidden lesson, another school, a deleted lesson", async () => {
    const { school, admin, student, tree } = await setup();
    const notFound = { status: 404, error: "lesson_not_found" };
    expect(failure(await as(student, `/t/lessons/${tree.lessonIds[0]}`))).toEqual(notFound);
    expect(failure(await as(student, `/t/lessons/${tree.lessonIds[0]}/blocks`))).toEqual(notFound);

    const draft = await insertCourseTree(school.id, { status: "draft" });
    await insertEnrollment(school.id, draft.courseId, student.id);
    expect(failure(await as(student, `/t/lessons/${draft.lessonIds[0]}`))).toEqual(notFound);

    const removed = await insertEnrollment(school.id, tree.courseId, student.id);
    await db().update(schema.enrollments).set({ removedAt: Date.now() }).where(eq(schema.enrollments.id, removed));
    expect(failure(await as(student, `/t/lessons/${tree.lessonIds[0]}`))).toEqual(notFound);
    await db().update(schema.enrollments).set({ removedAt: null }).where(eq(schema.enrollments.id, removed));
    expect((await as(student, `/t/lessons/${tree.lessonIds[0]}`)).status).toBe(200);

    const group = await createGroup(school.id);
    await db().insert(schema.lessonGroups).values({ tenantId: school.id, lessonId: tree.lessonIds[0]!, groupId: group.id, createdAt: Date.now() });
    expect(failure(await as(student, `/t/lessons/${tree.lessonIds[0]}`))).toEqual(notFound);
    expect(failure(await as(student, `/t/blocks/${tree.blockIds[0]}`))).toEqual({ status: 404, error: "block_not_found" });
    await addMember(group, student.id);
    expect((await as(student, `/t/lessons/${tree.lessonIds[0]}`)).status).toBe(200);
    expect((await as(admin, `/t/lessons/${tree.lessonIds[0]}`)).status).toBe(200);

    const other = await schoolWithAdmin();
    expect(failure(await as(other.admin, `/t/lessons/${tree.lessonIds[0]}`))).toEqual(notFound);
    expect(failure(await as(other.admin, `/t/lessons/${tree.lessonIds[0]}/blocks`))).toEqual(notFound);
    expect(failure(await as(admin, `/t/lessons/${unknownId()}`))).toEqual(notFound);

    await db().update(schema.lessons).set({ deletedAt: Date.now() }).where(eq(schema.lessons.id, tree.lessonIds[0]!));
    expect(failure(await as(admin, `/t/lessons/${tree.lessonIds[0]}`))).toEqual(notFound);
  });

  it("400 invalid_id_format for a malformed id", async () => {
    const { admin } = await setup();
    expect(failure(await as(admin, "/t/lessons/not-a-uuid"))).toEqual({ status: 400, error: "invalid_id_format" });
  });
});

describe("GET /t/lessons/:id/blocks", () => {
  it("answers {blocks} with fresh links for asset payloads; a curator without manage_courses reads too", async () => {
    const { school, admin, tree } = await setup({ shape: [1, 1, 0] });
    const imageId = await storedImage(school.id);
    const created = await as(admin, `/t/lessons/${tree.lessonIds[0]}/blocks`, { body: { type: "image", payload: { media_asset_id: imageId, caption: "Fig. 1" } } });
    expect(created.status).toBe(201);
    const curator = await signedIn(school, curatorWith({}));
    const res = await as(curator, `/t/lessons/${tree.lessonIds[0]}/blocks`);
    expect(res.status).toBe(200);
    expect(res.body.data.blocks).toEqual([
      expect.objectContaining({ type: "image", payload: { media_asset_id: imageId, caption: "Fig. 1" }, url: expect.stringMatching(new RegExp(`^https://api\\.lms\\.localhost/api/v1/media/${imageId}/download\\?exp=\\d+&sig=`)) }),
    ]);
  });
});

describe("sequential courses", () => {
  it("blocks after the first incomplete one are locked (no payload), a locked block is 409 and records nothing; staff see everything", async () => {
    const { school, admin, student, tree } = await setup({ sequential: true, shape: [1, 2, 2] });
    const enrollmentId = await insertEnrollment(school.id, tree.courseId, student.id);
    const [b1, b2, b3, b4] = tree.blockIds as [string, string, string, string];

    const lesson1 = await as(student, `/t/lessons/${tree.lessonIds[0]}/blocks`);
    expect(lesson1.body.data.blocks.map((block: { locked: boolean; payload: unknown }) => [block.locked, block.payload === null])).toEqual([
      [false, false],
      [true, true],
    ]);
    const lesson2 = await as(student, `/t/lessons/${tree.lessonIds[1]}`);
    expect(lesson2.body.data.blocks.map((block: { locked: boolean }) => block.locked)).toEqual([true, true]);
    // The second lesson's first block is locked: the resume point stays on the first lesson.
    expect((await enrollmentOf(tree.courseId, student.id)).lastAccessedBlockId).toBe(b1);

    expect(failure(await as(student, `/t/blocks/${b2}`))).toEqual({ status: 409, error: "sequential_order_required" });
    expect((await enrollmentOf(tree.courseId, student.id)).lastAccessedBlockId).toBe(b1);
    expect((await as(admin, `/t/blocks/${b4}`)).body.data).toMatchObject({ locked: false, payload: { html: "<p>Block 1.2.2</p>" } });
    expect((await as(admin, `/t/lessons/${tree.lessonIds[1]}`)).body.data.blocks.map((block: { locked: boolean }) => block.locked)).toEqual([false, false]);

    await complete(school.id, tree.courseId, [b1, b2], student.id, enrollmentId);
    const opened = await as(student, `/t/blocks/${b3}`);
    expect(opened.status).toBe(200);
    expect(opened.body.data).toMatchObject({ id: b3, locked: false, payload: { html: "<p>Block 1.2.1</p>" } });
    expect((await enrollmentOf(tree.courseId, student.id)).lastAccessedBlockId).toBe(b3);
    expect((await as(student, `/t/lessons/${tree.lessonIds[1]}`)).body.data.blocks.map((block: { locked: boolean }) => block.locked)).toEqual([false, true]);
  });

  it("blocks of lessons the student cannot see do not hold later ones back", async () => {
    const { school, student, tree } = await setup({ sequential: true, shape: [1, 2, 1] });
    await insertEnrollment(school.id, tree.courseId, student.id);
    const group = await createGroup(school.id);
    await db().insert(schema.lessonGroups).values({ tenantId: school.id, lessonId: tree.lessonIds[0]!, groupId: group.id, createdAt: Date.now() });
    const res = await as(student, `/t/blocks/${tree.blockIds[1]}`);
    expect(res.status).toBe(200);
    expect(res.body.data.locked).toBe(false);
  });
});

describe("GET /t/blocks/:id", () => {
  it("the full block; 400 invalid_block_id; 404 block_not_found for a stranger, a draft for a student, another school, a deleted block", async () => {
    const { school, admin, student, tree } = await setup();
    const res = await as(admin, `/t/blocks/${tree.blockIds[0]}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: tree.blockIds[0], lesson_id: tree.lessonIds[0], course_id: tree.courseId, type: "text", locked: false, url: null });

    expect(failure(await as(admin, "/t/blocks/nope"))).toEqual({ status: 400, error: "invalid_block_id" });
    const notFound = { status: 404, error: "block_not_found" };
    expect(failure(await as(student, `/t/blocks/${tree.blockIds[0]}`))).toEqual(notFound);
    const draft = await insertCourseTree(school.id, { status: "draft" });
    await insertEnrollment(school.id, draft.courseId, student.id);
    expect(failure(await as(student, `/t/blocks/${draft.blockIds[0]}`))).toEqual(notFound);
    const other = await schoolWithAdmin();
    expect(failure(await as(other.admin, `/t/blocks/${tree.blockIds[0]}`))).toEqual(notFound);
    await db().update(schema.blocks).set({ deletedAt: Date.now() }).where(eq(schema.blocks.id, tree.blockIds[0]!));
    expect(failure(await as(admin, `/t/blocks/${tree.blockIds[0]}`))).toEqual(notFound);
  });
});
