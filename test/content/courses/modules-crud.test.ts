import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";
import { insertCourseTree, insertEnrollment, ISO, liveIdsUnder, MEDIA_LINK as LINK } from "../../helpers/courses";
import { db } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { as, createGroup, curatorWith, schoolWithAdmin, signedIn, unknownId } from "../../helpers/users";
import { storedImage } from "../../media/helpers";


async function setup() {
  const { school, admin } = await schoolWithAdmin();
  const student = await signedIn(school, { role: "student" });
  return { school, admin, student };
}

async function moduleRow(id: string) {
  const [row] = await db().select().from(schema.courseModules).where(eq(schema.courseModules.id, id));
  return row!;
}

const liveModuleIds = (id: string) => liveIdsUnder(schema.courseModules, "courseId", id);

describe("POST /t/courses/:id/modules", () => {
  it("appends a module with a sanitized description and answers the module object (201)", async () => {
    const { school, admin } = await setup();
    const tree = await insertCourseTree(school.id, { status: "draft", shape: [2, 1, 1] });
    const res = await as(admin, `/t/courses/${tree.courseId}/modules`, {
      body: { title: "  Intro  ", description: '<p onclick="x()">Hi<script>bad()</script></p>' },
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.any(String),
      course_id: tree.courseId,
      tenant_id: school.id,
      title: "Intro",
      description: "<p>Hi</p>",
      position: 2,
      cover_image_id: null,
      cover_image_url: null,
      lessons_count: 0,
      lessons: [],
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
    });
    expect(await liveModuleIds(tree.courseId)).toEqual([...tree.modules.map((m) => m.id), res.body.data.id]);

    const plain = await as(admin, `/t/courses/${tree.courseId}/modules`, { body: { title: "No description" } });
    expect(plain.status).toBe(201);
    expect(plain.body.data).toMatchObject({ description: "", position: 3 });
  });

  it("refuses a bad body (400 invalid_request_body) and a missing, deleted or foreign course (404 course_not_found)", async () => {
    const { school, admin } = await setup();
    const tree = await insertCourseTree(school.id);
    for (const body of [{}, { title: "" }, { title: "x".repeat(256) }, { title: "ok", description: "x".repeat(10001) }, { title: "ok", extra: 1 }]) {
      expect(failure(await as(admin, `/t/courses/${tree.courseId}/modules`, { body }))).toEqual({ status: 400, error: "invalid_request_body" });
    }
    const other = await setup();
    const foreign = await insertCourseTree(other.school.id);
    const deleted = await insertCourseTree(school.id);
    await db().update(schema.courses).set({ deletedAt: Date.now() }).where(eq(schema.courses.id, deleted.courseId));
    for (const courseId of [unknownId(), foreign.courseId, deleted.courseId]) {
      expect(failure(await as(admin, `/t/courses/${courseId}/modules`, { body: { title: "M" } }))).toEqual({ status: 404, error: "course_not_found" });
    }
    expect(await liveModuleIds(foreign.courseId)).toEqual(foreign.modules.map((m) => m.id));
  });
});

describe("GET /t/modules/:id", () => {
  it("answers the module with its lessons and light blocks; staff see drafts", async () => {
    const { school, admin } = await setup();
    const tree = await insertCourseTree(school.id, { status: "draft", shape: [2, 2, 2] });
    const module = tree.modules[1]!;
    const res = await as(admin, `/t/modules/${module.id}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: module.id, course_id: tree.courseId, title: "Module 2", position: 1, lessons_count: 2 });
    expect(res.body.data).not.toHaveProperty("locked");
    expect(res.body.data.lessons.map((l: { id: string }) => l.id)).toEqual(module.lessons.map((l) => l.id));
    expect(res.body.data.lessons[0]).toEqual({
      id: module.lessons[0]!.id,
      module_id: module.id,
      course_id: tree.courseId,
      title: "Lesson 2.1",
      position: 0,
      screenshot_protection_enabled: false,
      cover_image_id: null,
      cover_image_url: null,
      passed: false,
      blocks: module.lessons[0]!.blocks.map((id, position) => ({ id, type: "text", position, payload: { html: `<p>Block 2.1.${position + 1}</p>` }, locked: false })),
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
    });
  });

  it("a student reads modules of published courses only, with window status fields; draft, deleted and foreign are module_not_found", async () => {
    const { school, student } = await setup();
    const published = await insertCourseTree(school.id);
    const res = await as(student, `/t/modules/${published.modules[0]!.id}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ locked: false, locked_reason: null, available_from: null, available_until: null });
    // Not enrolled: the outline without payloads.
    expect(res.body.data.lessons[0].blocks[0]).toMatchObject({ payload: null, locked: true });

    const draft = await insertCourseTree(school.id, { status: "draft" });
    const deleted = await insertCourseTree(school.id);
    await db().update(schema.courseModules).set({ deletedAt: Date.now() }).where(eq(schema.courseModules.id, deleted.modules[0]!.id));
    const foreign = await insertCourseTree((await setup()).school.id);
    for (const id of [draft.modules[0]!.id, deleted.modules[0]!.id, foreign.modules[0]!.id, unknownId()]) {
      expect(failure(await as(student, `/t/modules/${id}`))).toEqual({ status: 404, error: "module_not_found" });
    }
    expect(failure(await as(student, "/t/modules/not-a-uuid"))).toEqual({ status: 400, error: "invalid_id_format" });
  });
});

describe("PATCH /t/modules/:id", () => {
  it("changes title and description (sanitized) and answers the module with its lessons", async () => {
    const { school, admin } = await setup();
    const tree = await insertCourseTree(school.id, { shape: [1, 2, 1] });
    const id = tree.modules[0]!.id;
    const res = await as(admin, `/t/modules/${id}`, { method: "PATCH", body: { title: "Renamed", description: "<b>bold</b><iframe src='x'></iframe>" } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id, title: "Renamed", description: "<b>bold</b>", lessons_count: 2 });
    expect(res.body.data.lessons).toHaveLength(2);
    const only = await as(admin, `/t/modules/${id}`, { method: "PATCH", body: { description: "" } });
    expect(only.body.data).toMatchObject({ title: "Renamed", description: "" });
    expect(await moduleRow(id)).toMatchObject({ title: "Renamed", description: "" });
  });

  it("refuses a bad body (400 invalid_request_body) and a missing or foreign module (404 module_not_found)", async () => {
    const { school, admin } = await setup();
    const tree = await insertCourseTree(school.id);
    const id = tree.modules[0]!.id;
    for (const body of [{ title: "" }, { title: 5 }, { description: "x".repeat(10001) }, { position: 3 }]) {
      expect(failure(await as(admin, `/t/modules/${id}`, { method: "PATCH", body }))).toEqual({ status: 400, error: "invalid_request_body" });
    }
    const foreign = await insertCourseTree((await setup()).school.id);
    for (const other of [unknownId(), foreign.modules[0]!.id]) {
      expect(failure(await as(admin, `/t/modules/${other}`, { method: "PATCH", body: { title: "X" } }))).toEqual({ status: 404, error: "module_not_found" });
    }
    expect((await moduleRow(foreign.modules[0]!.id)).title).toBe("Module 1");
  });

  it("a curator without can_manage_courses is refused; one with it may edit", async () => {
    const { school } = await setup();
    const tree = await insertCourseTree(school.id);
    const plain = await signedIn(school, curatorWith({}));
    expect(failure(await as(plain, `/t/modules/${tree.modules[0]!.id}`, { method: "PATCH", body: { title: "X" } }))).toEqual({ status: 403, error: "forbidden" });
    const author = await signedIn(school, curatorWith({ can_manage_courses: true }));
    expect((await as(author, `/t/modules/${tree.modules[0]!.id}`, { method: "PATCH", body: { title: "X" } })).status).toBe(200);
  });
});

describe("DELETE /t/modules/:id", () => {
  it("soft-deletes the module with its lessons and blocks at one timestamp and recounts enrollments (204)", async () => {
    const { school, admin, student } = await setup();
    const tree = await insertCourseTree(school.id, { shape: [2, 2, 2] });
    const enrollmentId = await insertEnrollment(school.id, tree.courseId, student.id, { totalBlocks: 8 });
    const gone = tree.modules[0]!;
    const res = await as(admin, `/t/modules/${gone.id}`, { method: "DELETE" });
    expect(res.status).toBe(204);
    const module = await moduleRow(gone.id);
    expect(module.deletedAt).not.toBeNull();
    const lessonRows = await db().select().from(schema.lessons).where(eq(schema.lessons.moduleId, gone.id));
    const blockRows = await db().select().from(schema.blocks).where(eq(schema.blocks.moduleId, gone.id));
    expect([...lessonRows, ...blockRows].map((row) => row.deletedAt)).toEqual(Array(6).fill(module.deletedAt));
    const [other] = await db().select().from(schema.blocks).where(eq(schema.blocks.id, tree.modules[1]!.lessons[0]!.blocks[0]!));
    expect(other!.deletedAt).toBeNull();
    const [enrollment] = await db().select().from(schema.enrollments).where(eq(schema.enrollments.id, enrollmentId));
    expect(enrollment!.totalBlocks).toBe(4);

    expect(failure(await as(admin, `/t/modules/${gone.id}`, { method: "DELETE" }))).toEqual({ status: 404, error: "module_not_found" });
    expect(failure(await as(admin, `/t/modules/${gone.id}`))).toEqual({ status: 404, error: "module_not_found" });
    const foreign = await insertCourseTree((await setup()).school.id);
    expect(failure(await as(admin, `/t/modules/${foreign.modules[0]!.id}`, { method: "DELETE" }))).toEqual({ status: 404, error: "module_not_found" });
    expect((await moduleRow(foreign.modules[0]!.id)).deletedAt).toBeNull();
  });
});

describe("POST /t/modules/:id/duplicate", () => {
  it("copies the module to the end of the course with lessons, blocks and lesson groups (201, as in the index)", async () => {
    const { school, admin } = await setup();
    const tree = await insertCourseTree(school.id, { shape: [2, 2, 1] });
    const group = await createGroup(school.id);
    await db().insert(schema.lessonGroups).values({ tenantId: school.id, lessonId: tree.modules[0]!.lessons[1]!.id, groupId: group.id, createdAt: 1 });
    const res = await as(admin, `/t/modules/${tree.modules[0]!.id}/duplicate`, { method: "POST" });
    expect(res.status).toBe(201);
    const copy = res.body.data;
    expect(copy).toMatchObject({ course_id: tree.courseId, title: "Module 1 (copy)", position: 2, lessons_count: 2 });
    expect(copy.id).not.toBe(tree.modules[0]!.id);
    expect(copy.lessons.map((l: { title: string; module_id: string }) => [l.title, l.module_id])).toEqual([
      ["Lesson 1.1", copy.id],
      ["Lesson 1.2", copy.id],
    ]);
    expect(copy.lessons[0].blocks).toEqual([{ id: expect.any(String), type: "text", position: 0, payload: { html: "<p>Block 1.1.1</p>" }, locked: false }]);
    const groups = await as(admin, `/t/lessons/${copy.lessons[1].id}/groups`);
    expect(groups.body.data).toEqual({ group_ids: [group.id] });
    expect(await liveModuleIds(tree.courseId)).toEqual([...tree.modules.map((m) => m.id), copy.id]);
  });

  it("a missing, deleted or foreign module is module_not_found", async () => {
    const { school, admin } = await setup();
    const tree = await insertCourseTree(school.id);
    await db().update(schema.courseModules).set({ deletedAt: Date.now() }).where(eq(schema.courseModules.id, tree.modules[0]!.id));
    const foreign = await insertCourseTree((await setup()).school.id);
    for (const id of [unknownId(), tree.modules[0]!.id, foreign.modules[0]!.id]) {
      expect(failure(await as(admin, `/t/modules/${id}/duplicate`, { method: "POST" }))).toEqual({ status: 404, error: "module_not_found" });
    }
    expect(await liveModuleIds(foreign.courseId)).toHaveLength(1);
  });
});

describe("PATCH /t/courses/:id/reorder-modules", () => {
  it("puts the modules in the new order", async () => {
    const { school, admin } = await setup();
    const tree = await insertCourseTree(school.id, { shape: [3, 1, 1] });
    const [a, b, c] = tree.modules.map((m) => m.id) as [string, string, string];
    const res = await as(admin, `/t/courses/${tree.courseId}/reorder-modules`, { method: "PATCH", body: { module_ids: [c, a, b] } });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ reordered: 3 });
    expect(await liveModuleIds(tree.courseId)).toEqual([c, a, b]);
    const index = await as(admin, `/t/courses/${tree.courseId}/modules`);
    expect(index.body.data.modules.map((m: { id: string; position: number }) => [m.id, m.position])).toEqual([
      [c, 0],
      [a, 1],
      [b, 2],
    ]);
  });

  it("duplicates, incomplete or foreign lists are 409 and write nothing; a missing course is course_not_found; an empty list is 400", async () => {
    const { school, admin } = await setup();
    const tree = await insertCourseTree(school.id, { shape: [2, 1, 1] });
    const [a, b] = tree.modules.map((m) => m.id) as [string, string];
    const path = `/t/courses/${tree.courseId}/reorder-modules`;
    expect(failure(await as(admin, path, { method: "PATCH", body: { module_ids: [b, b, a] } }))).toEqual({ status: 409, error: "reorder_duplicate" });
    expect(failure(await as(admin, path, { method: "PATCH", body: { module_ids: [b] } }))).toEqual({ status: 409, error: "reorder_incomplete" });
    const foreign = await insertCourseTree((await setup()).school.id);
    expect(failure(await as(admin, path, { method: "PATCH", body: { module_ids: [b, foreign.modules[0]!.id] } }))).toEqual({
      status: 409,
      error: "reorder_incomplete",
    });
    expect(failure(await as(admin, path, { method: "PATCH", body: { module_ids: [] } }))).toEqual({ status: 400, error: "invalid_request_body" });
    expect(await liveModuleIds(tree.courseId)).toEqual([a, b]);
    for (const courseId of [unknownId(), foreign.courseId]) {
      expect(failure(await as(admin, `/t/courses/${courseId}/reorder-modules`, { method: "PATCH", body: { module_ids: [a, b] } }))).toEqual({
        status: 404,
        error: "course_not_found",
      });
    }
  });
});

describe("PATCH /t/modules/:id/cover-image", () => {
  it("sets a confirmed image of the school (fresh link) and removes it with null", async () => {
    const { school, admin } = await setup();
    const tree = await insertCourseTree(school.id);
    const id = tree.modules[0]!.id;
    const image = await storedImage(school.id);
    const res = await as(admin, `/t/modules/${id}/cover-image`, { method: "PATCH", body: { cover_image_id: image } });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ cover_image_id: image, cover_image_url: expect.stringMatching(LINK(image)) });
    const read = await as(admin, `/t/modules/${id}`);
    expect(read.body.data).toMatchObject({ cover_image_id: image, cover_image_url: expect.stringMatching(LINK(image)) });
    const cleared = await as(admin, `/t/modules/${id}/cover-image`, { method: "PATCH", body: { cover_image_id: null } });
    expect(cleared.body.data).toEqual({ cover_image_id: null, cover_image_url: null });
    expect((await moduleRow(id)).coverImageId).toBeNull();
  });

  it("refuses what is not a confirmed image of the school (400 invalid_cover_image) and a missing module (404)", async () => {
    const { school, admin } = await setup();
    const tree = await insertCourseTree(school.id);
    const id = tree.modules[0]!.id;
    const other = await setup();
    for (const bad of [unknownId(), await storedImage(school.id, { kind: "pdf" }), await storedImage(school.id, { status: "pending" }), await storedImage(other.school.id)]) {
      expect(failure(await as(admin, `/t/modules/${id}/cover-image`, { method: "PATCH", body: { cover_image_id: bad } }))).toEqual({
        status: 400,
        error: "invalid_cover_image",
      });
    }
    expect(failure(await as(admin, `/t/modules/${id}/cover-image`, { method: "PATCH", body: { cover_image_id: "nope" } }))).toEqual({
      status: 400,
      error: "invalid_request_body",
    });
    expect(failure(await as(admin, `/t/modules/${unknownId()}/cover-image`, { method: "PATCH", body: { cover_image_id: null } }))).toEqual({
      status: 404,
      error: "module_not_found",
    });
    expect((await moduleRow(id)).coverImageId).toBeNull();
  });
});
