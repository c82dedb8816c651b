import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";
import { insertCourseTree, insertEnrollment, ISO, liveIdsUnder, MEDIA_LINK as LINK } from "../../helpers/courses";
import { db } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { addMember, as, createGroup, schoolWithAdmin, signedIn, unknownId } from "../../helpers/users";
import { storedImage } from "../../media/helpers";


async function setup() {
  const { school, admin } = await schoolWithAdmin();
  const student = await signedIn(school, { role: "student" });
  return { school, admin, student };
}

async function lessonRow(id: string) {
  const [row] = await db().select().from(schema.lessons).where(eq(schema.lessons.id, id));
  return row!;
}

const liveLessonIds = (id: string) => liveIdsUnder(schema.lessons, "moduleId", id);

describe("POST /t/modules/:id/lessons", () => {
  it("appends a lesson and answers the lesson object with no blocks (201)", async () => {
    const { school, admin } = await setup();
    const tree = await insertCourseTree(school.id, { status: "draft", shape: [1, 2, 1] });
    const module = tree.modules[0]!;
    const res = await as(admin, `/t/modules/${module.id}/lessons`, { body: { title: " Lesson three ", screenshot_protection_enabled: true } });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.any(String),
      module_id: module.id,
      course_id: tree.courseId,
      title: "Lesson three",
      position: 2,
      screenshot_protection_enabled: true,
      cover_image_id: null,
      cover_image_url: null,
      passed: false,
      blocks: [],
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
    });
    expect(await liveLessonIds(module.id)).toEqual([...module.lessons.map((l) => l.id), res.body.data.id]);
    const plain = await as(admin, `/t/modules/${module.id}/lessons`, { body: { title: "Four" } });
    expect(plain.body.data).toMatchObject({ position: 3, screenshot_protection_enabled: false });
  });

  it("refuses a bad body (400 invalid_request_body) and a missing, deleted or foreign module (404 module_not_found)", async () => {
    const { school, admin } = await setup();
    const tree = await insertCourseTree(school.id);
    const path = `/t/modules/${tree.modules[0]!.id}/lessons`;
    for (const body of [{}, { title: "" }, { title: "x".repeat(256) }, { title: "ok", screenshot_protection_enabled: "yes" }, { title: "ok", position: 1 }]) {
      expect(failure(await as(admin, path, { body }))).toEqual({ status: 400, error: "invalid_request_body" });
    }
    const deleted = await insertCourseTree(school.id);
    await db().update(schema.courseModules).set({ deletedAt: Date.now() }).where(eq(schema.courseModules.id, deleted.modules[0]!.id));
    const foreign = await insertCourseTree((await setup()).school.id);
    for (const id of [unknownId(), deleted.modules[0]!.id, foreign.modules[0]!.id]) {
      expect(failure(await as(admin, `/t/modules/${id}/lessons`, { body: { title: "L" } }))).toEqual({ status: 404, error: "module_not_found" });
    }
    expect(await liveLessonIds(foreign.modules[0]!.id)).toHaveLength(1);
  });
});

describe("GET /t/modules/:id/lessons", () => {
  it("lists the lessons in order; a student sees only lessons open to their groups", async () => {
    const { school, admin, student } = await setup();
    const tree = await insertCourseTree(school.id, { shape: [1, 3, 1] });
    const [open, hidden, mine] = tree.modules[0]!.lessons.map((l) => l.id) as [string, string, string];
    const theirs = await createGroup(school.id);
    const ours = await createGroup(school.id);
    await addMember(ours, student.id);
    await db()
      .insert(schema.lessonGroups)
      .values([
        { tenantId: school.id, lessonId: hidden, groupId: theirs.id, createdAt: 1 },
        { tenantId: school.id, lessonId: mine, groupId: ours.id, createdAt: 1 },
      ]);
    await insertEnrollment(school.id, tree.courseId, student.id);
    const path = `/t/modules/${tree.modules[0]!.id}/lessons`;
    const staff = await as(admin, path);
    expect(staff.status).toBe(200);
    expect(staff.body.data.lessons.map((l: { id: string }) => l.id)).toEqual([open, hidden, mine]);
    const own = await as(student, path);
    expect(own.body.data.lessons.map((l: { id: string }) => l.id)).toEqual([open, mine]);
    expect(own.body.data.lessons[0]).toMatchObject({ passed: false, locked: false, locked_reason: null });
    expect(own.body.data.lessons[0].blocks[0]).toMatchObject({ locked: false, payload: { html: "<p>Block 1.1.1</p>" } });
  });

  it("a draft course's module, a foreign or missing one is module_not_found for a student", async () => {
    const { school, student, admin } = await setup();
    const draft = await insertCourseTree(school.id, { status: "draft" });
    const foreign = await insertCourseTree((await setup()).school.id);
    for (const id of [draft.modules[0]!.id, foreign.modules[0]!.id, unknownId()]) {
      expect(failure(await as(student, `/t/modules/${id}/lessons`))).toEqual({ status: 404, error: "module_not_found" });
    }
    expect((await as(admin, `/t/modules/${draft.modules[0]!.id}/lessons`)).status).toBe(200);
  });
});

describe("PATCH /t/lessons/:id", () => {
  it("changes title and screenshot protection and answers the lesson with its light blocks", async () => {
    const { school, admin } = await setup();
    const tree = await insertCourseTree(school.id, { shape: [1, 1, 2] });
    const lesson = tree.modules[0]!.lessons[0]!;
    const res = await as(admin, `/t/lessons/${lesson.id}`, { method: "PATCH", body: { title: "Better", screenshot_protection_enabled: true } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: lesson.id, title: "Better", screenshot_protection_enabled: true, passed: false });
    expect(res.body.data.blocks.map((b: { id: string; locked: boolean }) => [b.id, b.locked])).toEqual(lesson.blocks.map((id) => [id, false]));
    expect(await lessonRow(lesson.id)).toMatchObject({ title: "Better", screenshotProtectionEnabled: true });
  });

  it("refuses a bad body (400) and a missing, deleted or foreign lesson (404 lesson_not_found)", async () => {
    const { school, admin } = await setup();
    const tree = await insertCourseTree(school.id);
    const id = tree.lessonIds[0]!;
    for (const body of [{ title: "" }, { screenshot_protection_enabled: 1 }, { module_id: unknownId() }]) {
      expect(failure(await as(admin, `/t/lessons/${id}`, { method: "PATCH", body }))).toEqual({ status: 400, error: "invalid_request_body" });
    }
    const deleted = await insertCourseTree(school.id);
    await db().update(schema.lessons).set({ deletedAt: Date.now() }).where(eq(schema.lessons.id, deleted.lessonIds[0]!));
    const foreign = await insertCourseTree((await setup()).school.id);
    for (const other of [unknownId(), deleted.lessonIds[0]!, foreign.lessonIds[0]!]) {
      expect(failure(await as(admin, `/t/lessons/${other}`, { method: "PATCH", body: { title: "X" } }))).toEqual({ status: 404, error: "lesson_not_found" });
    }
    expect((await lessonRow(foreign.lessonIds[0]!)).title).toBe("Lesson 1.1");
  });
});

describe("DELETE /t/lessons/:id", () => {
  it("soft-deletes the lesson and its blocks at one timestamp and recounts enrollments (204)", async () => {
    const { school, admin, student } = await setup();
    const tree = await insertCourseTree(school.id, { shape: [1, 2, 3] });
    const enrollmentId = await insertEnrollment(school.id, tree.courseId, student.id, { totalBlocks: 6 });
    const gone = tree.modules[0]!.lessons[0]!;
    expect((await as(admin, `/t/lessons/${gone.id}`, { method: "DELETE" })).status).toBe(204);
    const row = await lessonRow(gone.id);
    expect(row.deletedAt).not.toBeNull();
    const blockRows = await db().select().from(schema.blocks).where(eq(schema.blocks.lessonId, gone.id));
    expect(blockRows.map((b) => b.deletedAt)).toEqual([row.deletedAt, row.deletedAt, row.deletedAt]);
    const [enrollment] = await db().select().from(schema.enrollments).where(eq(schema.enrollments.id, enrollmentId));
    expect(enrollment!.totalBlocks).toBe(3);
    expect(await liveLessonIds(tree.modules[0]!.id)).toEqual([tree.modules[0]!.lessons[1]!.id]);

    expect(failure(await as(admin, `/t/lessons/${gone.id}`, { method: "DELETE" }))).toEqual({ status: 404, error: "lesson_not_found" });
    const foreign = await insertCourseTree((await setup()).school.id);
    expect(failure(await as(admin, `/t/lessons/${foreign.lessonIds[0]!}`, { method: "DELETE" }))).toEqual({ status: 404, error: "lesson_not_found" });
    expect((await lessonRow(foreign.lessonIds[0]!)).deletedAt).toBeNull();
  });
});

describe("POST /t/lessons/:id/duplicate", () => {
  it("copies the lesson with its blocks and access groups to the end of the module (201)", async () => {
    const { school, admin } = await setup();
    const tree = await insertCourseTree(school.id, { shape: [1, 2, 2] });
    const source = tree.modules[0]!.lessons[0]!;
    const group = await createGroup(school.id);
    await db().insert(schema.lessonGroups).values({ tenantId: school.id, lessonId: source.id, groupId: group.id, createdAt: 1 });
    const res = await as(admin, `/t/lessons/${source.id}/duplicate`, { method: "POST" });
    expect(res.status).toBe(201);
    const copy = res.body.data;
    expect(copy).toMatchObject({ module_id: tree.modules[0]!.id, course_id: tree.courseId, title: "Lesson 1.1 (copy)", position: 2, passed: false });
    expect(copy.blocks.map((b: { payload: unknown; position: number }) => [b.position, b.payload])).toEqual([
      [0, { html: "<p>Block 1.1.1</p>" }],
      [1, { html: "<p>Block 1.1.2</p>" }],
    ]);
    expect(copy.blocks.map((b: { id: string }) => b.id)).not.toContain(source.blocks[0]);
    expect((await as(admin, `/t/lessons/${copy.id}/groups`)).body.data).toEqual({ group_ids: [group.id] });
    expect(await liveLessonIds(tree.modules[0]!.id)).toEqual([...tree.modules[0]!.lessons.map((l) => l.id), copy.id]);
  });

  it("a missing, deleted or foreign lesson is 404 lesson_not_found", async () => {
    const { school, admin } = await setup();
    const tree = await insertCourseTree(school.id);
    await db().update(schema.lessons).set({ deletedAt: Date.now() }).where(eq(schema.lessons.id, tree.lessonIds[0]!));
    const foreign = await insertCourseTree((await setup()).school.id);
    for (const id of [unknownId(), tree.lessonIds[0]!, foreign.lessonIds[0]!]) {
      expect(failure(await as(admin, `/t/lessons/${id}/duplicate`, { method: "POST" }))).toEqual({ status: 404, error: "lesson_not_found" });
    }
    expect(await liveLessonIds(foreign.modules[0]!.id)).toHaveLength(1);
  });
});

describe("PATCH /t/modules/:id/reorder-lessons", () => {
  it("puts the lessons in the new order", async () => {
    const { school, admin } = await setup();
    const tree = await insertCourseTree(school.id, { shape: [1, 3, 1] });
    const [a, b, c] = tree.lessonIds as [string, string, string];
    const res = await as(admin, `/t/modules/${tree.modules[0]!.id}/reorder-lessons`, { method: "PATCH", body: { lesson_ids: [b, c, a] } });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ reordered: 3 });
    expect(await liveLessonIds(tree.modules[0]!.id)).toEqual([b, c, a]);
  });

  it("duplicate or incomplete lists are 409 and write nothing; a missing module is module_not_found", async () => {
    const { school, admin } = await setup();
    const tree = await insertCourseTree(school.id, { shape: [2, 2, 1] });
    const [a, b] = tree.modules[0]!.lessons.map((l) => l.id) as [string, string];
    const path = `/t/modules/${tree.modules[0]!.id}/reorder-lessons`;
    expect(failure(await as(admin, path, { method: "PATCH", body: { lesson_ids: [a, a, b] } }))).toEqual({ status: 409, error: "reorder_duplicate" });
    expect(failure(await as(admin, path, { method: "PATCH", body: { lesson_ids: [b] } }))).toEqual({ status: 409, error: "reorder_incomplete" });
    // A lesson of the other module is not a sibling.
    const stranger = tree.modules[1]!.lessons[0]!.id;
    expect(failure(await as(admin, path, { method: "PATCH", body: { lesson_ids: [b, stranger] } }))).toEqual({ status: 409, error: "reorder_incomplete" });
    expect(await liveLessonIds(tree.modules[0]!.id)).toEqual([a, b]);
    expect(failure(await as(admin, `/t/modules/${unknownId()}/reorder-lessons`, { method: "PATCH", body: { lesson_ids: [a, b] } }))).toEqual({
      status: 404,
      error: "module_not_found",
    });
  });
});

describe("PATCH /t/lessons/:id/cover-image", () => {
  it("sets a confirmed image (fresh link), shown in the lesson lists, and removes it with null", async () => {
    const { school, admin } = await setup();
    const tree = await insertCourseTree(school.id);
    const id = tree.lessonIds[0]!;
    const image = await storedImage(school.id);
    const res = await as(admin, `/t/lessons/${id}/cover-image`, { method: "PATCH", body: { cover_image_id: image } });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ cover_image_id: image, cover_image_url: expect.stringMatching(LINK(image)) });
    const list = await as(admin, `/t/modules/${tree.modules[0]!.id}/lessons`);
    expect(list.body.data.lessons[0]).toMatchObject({ cover_image_id: image, cover_image_url: expect.stringMatching(LINK(image)) });
    const cleared = await as(admin, `/t/lessons/${id}/cover-image`, { method: "PATCH", body: { cover_image_id: null } });
    expect(cleared.body.data).toEqual({ cover_image_id: null, cover_image_url: null });
  });

  it("refuses what is not a confirmed image of the school (400 invalid_cover_image) and a missing lesson (404 lesson_not_found)", async () => {
    const { school, admin } = await setup();
    const tree = await insertCourseTree(school.id);
    const id = tree.lessonIds[0]!;
    const other = await setup();
    for (const bad of [unknownId(), await storedImage(school.id, { kind: "video" }), await storedImage(other.school.id)]) {
      expect(failure(await as(admin, `/t/lessons/${id}/cover-image`, { method: "PATCH", body: { cover_image_id: bad } }))).toEqual({
        status: 400,
        error: "invalid_cover_image",
      });
    }
    expect(failure(await as(admin, `/t/lessons/${unknownId()}/cover-image`, { method: "PATCH", body: { cover_image_id: null } }))).toEqual({
      status: 404,
      error: "lesson_not_found",
    });
    expect((await lessonRow(id)).coverImageId).toBeNull();
  });
});
