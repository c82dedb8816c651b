import { and, asc, eq, inArray, isNull } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { copyLessonStatements, copyModuleStatements } from "../../../src/content/courses/copy-tree";
import { runBatch } from "../../../src/core/db/batch";
import { uuidv7 } from "../../../src/core/lib/ids";
import * as schema from "../../../src/db/schema";
import { app } from "../../../src/app";
import { insertCourseTree, insertEnrollment } from "../../helpers/courses";
import { countingD1 } from "../../helpers/d1-counter";
import { schoolD1 } from "../../helpers/databases";
import { envWith } from "../../helpers/wrapped-d1";
import { createSchool, db } from "../../helpers/factories";
import type { Actor } from "../../../src/core/http/context";
import { schoolCtx } from "../../helpers/school-ctx";
import { failure } from "../../helpers/http";
import { as, createGroup, schoolWithAdmin, signedIn, unknownId, type Member } from "../../helpers/users";

const ctxFor = (tenantId: string) => schoolCtx<Actor>(tenantId, { now: Date.now(), actor: "member" });

async function liveModules(courseId: string) {
  return db()
    .select()
    .from(schema.courseModules)
    .where(and(eq(schema.courseModules.courseId, courseId), isNull(schema.courseModules.deletedAt)))
    .orderBy(asc(schema.courseModules.position), asc(schema.courseModules.id));
}

async function liveLessons(moduleId: string) {
  return db()
    .select()
    .from(schema.lessons)
    .where(and(eq(schema.lessons.moduleId, moduleId), isNull(schema.lessons.deletedAt)))
    .orderBy(asc(schema.lessons.position), asc(schema.lessons.id));
}

async function liveBlocks(lessonIds: string[]) {
  return db()
    .select()
    .from(schema.blocks)
    .where(and(inArray(schema.blocks.lessonId, lessonIds), isNull(schema.blocks.deletedAt)))
    .orderBy(asc(schema.blocks.position), asc(schema.blocks.id));
}

describe("copy-tree builders (module and lesson duplicates)", () => {
  it("copies a module to the end of its course with its live lessons, blocks and lesson groups, as a fixed number of statements", async () => {
    const school = await createSchool();
    const tree = await insertCourseTree(school.id, { shape: [2, 3, 2], refId: null });
    const group = await createGroup(school.id);
    const source = tree.modules[0]!;
    await db().insert(schema.lessonGroups).values({ tenantId: school.id, lessonId: source.lessons[1]!.id, groupId: group.id, createdAt: 1 });
    // A deleted lesson (and its blocks) stays behind.
    await db().update(schema.lessons).set({ deletedAt: 5 }).where(eq(schema.lessons.id, source.lessons[2]!.id));
    await db().update(schema.blocks).set({ deletedAt: 5 }).where(eq(schema.blocks.lessonId, source.lessons[2]!.id));

    const ctx = await ctxFor(school.id);
    const newId = uuidv7();
    const statements = copyModuleStatements(ctx, { moduleId: source.id, courseId: tree.courseId, newId });
    expect(statements).toHaveLength(7);
    await runBatch(ctx, statements);

    const modules = await liveModules(tree.courseId);
    expect(modules.map((m) => [m.title, m.position])).toEqual([
      ["Module 1", 0],
      ["Module 2", 1],
      ["Module 1 (copy)", 2],
    ]);
    expect(modules[2]!.id).toBe(newId);
    const copiedLessons = await liveLessons(newId);
    expect(copiedLessons.map((l) => [l.title, l.position, l.courseId])).toEqual([
      ["Lesson 1.1", 0, tree.courseId],
      ["Lesson 1.2", 1, tree.courseId],
    ]);
    const blocks = await liveBlocks(copiedLessons.map((l) => l.id));
    expect(blocks).toHaveLength(4);
    for (const block of blocks) {
      expect(block.moduleId).toBe(newId);
      expect(block.courseId).toBe(tree.courseId);
      expect(copiedLessons.map((l) => l.id)).toContain(block.lessonId);
    }
    const groups = await db().select().from(schema.lessonGroups).where(eq(schema.lessonGroups.lessonId, copiedLessons[1]!.id));
    expect(groups.map((g) => g.groupId)).toEqual([group.id]);
    const scratch = await db().select().from(schema.treeCopyMap).where(eq(schema.treeCopyMap.copyId, newId));
    expect(scratch).toEqual([]);
  });

  it("copies a lesson to the end of its module with its blocks; a deleted lesson copies nothing", async () => {
    const school = await createSchool();
    const tree = await insertCourseTree(school.id, { shape: [1, 2, 3] });
    const module = tree.modules[0]!;
    const ctx = await ctxFor(school.id);
    const newId = uuidv7();
    const statements = copyLessonStatements(ctx, { lessonId: module.lessons[0]!.id, moduleId: module.id, courseId: tree.courseId, newId });
    expect(statements).toHaveLength(6);
    await runBatch(ctx, statements);
    const lessons = await liveLessons(module.id);
    expect(lessons.map((l) => [l.title, l.position])).toEqual([
      ["Lesson 1.1", 0],
      ["Lesson 1.2", 1],
      ["Lesson 1.1 (copy)", 2],
    ]);
    const [original, copied] = [await liveBlocks([module.lessons[0]!.id]), await liveBlocks([newId])];
    expect(copied.map((b) => [b.type, b.position, b.payload, b.moduleId])).toEqual(original.map((b) => [b.type, b.position, b.payload, module.id]));

    // Even live blocks under a deleted lesson (which a deletion never leaves) are not copied anywhere.
    await db().update(schema.lessons).set({ deletedAt: 5 }).where(eq(schema.lessons.id, module.lessons[1]!.id));
    const before = await db().select().from(schema.blocks).where(eq(schema.blocks.courseId, tree.courseId));
    const gone = uuidv7();
    await runBatch(ctx, copyLessonStatements(ctx, { lessonId: module.lessons[1]!.id, moduleId: module.id, courseId: tree.courseId, newId: gone }));
    expect(await db().select().from(schema.lessons).where(eq(schema.lessons.id, gone))).toEqual([]);
    expect(await db().select().from(schema.blocks).where(eq(schema.blocks.courseId, tree.courseId))).toHaveLength(before.length);
    expect(await db().select().from(schema.treeCopyMap).where(eq(schema.treeCopyMap.copyId, gone))).toEqual([]);
  });

  it("copies nothing of another school's module", async () => {
    // On one shard, so only the school condition keeps the other school's rows out.
    const [school, other] = [await createSchool({ shard: "DB_SCHOOLS_0" }), await createSchool({ shard: "DB_SCHOOLS_0" })];
    const tree = await insertCourseTree(other.id, { shape: [1, 1, 1] });
    const ctx = await ctxFor(school.id);
    const newId = uuidv7();
    await runBatch(ctx, copyModuleStatements(ctx, { moduleId: tree.modules[0]!.id, courseId: tree.courseId, newId }));
    expect(await db().select().from(schema.courseModules).where(eq(schema.courseModules.id, newId))).toEqual([]);
    expect(await db().select().from(schema.lessons).where(eq(schema.lessons.moduleId, newId))).toEqual([]);
  });
});

/** Runs one request through the app with a D1 binding that counts what the request asks of it. */
async function countedPost(member: Member, path: string) {
  const counting = countingD1(await schoolD1(member.tenantId));
  const response = await app.request(
    `https://api.lms.localhost/api/v1${path}`,
    { method: "POST", headers: { authorization: `Bearer ${member.token}`, "x-tenant-subdomain": member.subdomain } },
    envWith(counting.db),
  );
  return { status: response.status, body: (await response.json()) as any, counts: { ...counting.counts } };
}

/** The live tree of a course in course order, as comparable rows (ids left out). */
async function treeOf(courseId: string) {
  const modules = await liveModules(courseId);
  const out = [];
  for (const module of modules) {
    const lessonRows = await liveLessons(module.id);
    const lessons = [];
    for (const lesson of lessonRows) {
      const blockRows = await liveBlocks([lesson.id]);
      const groups = await db().select({ groupId: schema.lessonGroups.groupId }).from(schema.lessonGroups).where(eq(schema.lessonGroups.lessonId, lesson.id));
      lessons.push({
        title: lesson.title,
        position: lesson.position,
        screenshot: lesson.screenshotProtectionEnabled,
        cover: lesson.coverImageId,
        groups: groups.map((g) => g.groupId).sort(),
        blocks: blockRows.map((b) => ({ type: b.type, position: b.position, payload: b.payload, refId: b.refId, tied: b.courseId === courseId && b.moduleId === module.id })),
      });
    }
    out.push({ title: module.title, description: module.description, position: module.position, cover: module.coverImageId, lessons });
  }
  return out;
}

describe("POST /t/courses/:id/duplicate", () => {
  it("answers 201 with a draft copy after the school's courses: title marked, slug -copy, then -copy-2, -copy-3", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id, { title: "Biology", slug: "biology", sequential: true, shape: [1, 2, 2] });
    await db().update(schema.courses).set({ description: "<p>Cells</p>", position: 4 }).where(eq(schema.courses.id, tree.courseId));

    const res = await as(admin, `/t/courses/${tree.courseId}/duplicate`, { method: "POST" });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.any(String),
      tenant_id: school.id,
      title: "Biology (copy)",
      slug: "biology-copy",
      description: "<p>Cells</p>",
      status: "draft",
      sequential_required: true,
      position: 5,
      cover_image_id: null,
      cover_image_url: "",
      auth_has_access: false,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      total_blocks: 4,
      total_lessons: 2,
      total_students: 0,
    });
    const second = await as(admin, `/t/courses/${tree.courseId}/duplicate`, { method: "POST" });
    expect(second.body.data).toMatchObject({ title: "Biology (copy)", slug: "biology-copy-2", position: 6 });
    const third = await as(admin, `/t/courses/${tree.courseId}/duplicate`, { method: "POST" });
    expect(third.body.data.slug).toBe("biology-copy-3");
    // A copy of the copy marks again; a freed slug is taken again.
    const copyOfCopy = await as(admin, `/t/courses/${res.body.data.id}/duplicate`, { method: "POST" });
    expect(copyOfCopy.body.data).toMatchObject({ title: "Biology (copy) (copy)", slug: "biology-copy-copy" });
    await as(admin, `/t/courses/${second.body.data.id}`, { method: "DELETE" });
    expect((await as(admin, `/t/courses/${tree.courseId}/duplicate`, { method: "POST" })).body.data.slug).toBe("biology-copy-2");
  });

  it("keeps slugs within 120 characters and titles within 255", async () => {
    const { school, admin } = await schoolWithAdmin();
    const slug = `${"a".repeat(112)}-bcdefg`;
    const tree = await insertCourseTree(school.id, { title: "T".repeat(255), slug });
    const first = await as(admin, `/t/courses/${tree.courseId}/duplicate`, { method: "POST" });
    expect(first.body.data.slug).toBe(`${"a".repeat(112)}-bc-copy`);
    expect(first.body.data.title).toBe(`${"T".repeat(248)} (copy)`);
    const second = await as(admin, `/t/courses/${tree.courseId}/duplicate`, { method: "POST" });
    // The cut would end in a hyphen: it is dropped.
    expect(second.body.data.slug).toBe(`${"a".repeat(112)}-copy-2`);
    for (const data of [first.body.data, second.body.data]) expect(data.slug.length).toBeLessThanOrEqual(120);
  });

  it("copies the live tree (titles, positions, payloads, references, lesson groups) and leaves deleted rows, enrollments and progress behind", async () => {
    const { school, admin } = await schoolWithAdmin();
    const group = await createGroup(school.id);
    const tree = await insertCourseTree(school.id, { shape: [3, 2, 2], blockType: "quiz_ref", payload: { quiz_id: "0190a6c2-0000-7000-8000-00000000beef" }, refId: "0190a6c2-0000-7000-8000-00000000beef" });
    await db().update(schema.courseModules).set({ description: "<p>Intro</p>", coverImageId: "0190a6c2-0000-7000-8000-0000000c0de0" }).where(eq(schema.courseModules.id, tree.modules[0]!.id));
    await db().update(schema.lessons).set({ screenshotProtectionEnabled: true }).where(eq(schema.lessons.id, tree.lessonIds[1]!));
    await db().insert(schema.lessonGroups).values({ tenantId: school.id, lessonId: tree.lessonIds[1]!, groupId: group.id, createdAt: 1 });
    const now = Date.now();
    // Module 3 is deleted (with its children), as is one block of lesson 1.1.
    await db().update(schema.courseModules).set({ deletedAt: now }).where(eq(schema.courseModules.id, tree.modules[2]!.id));
    await db().update(schema.lessons).set({ deletedAt: now }).where(eq(schema.lessons.moduleId, tree.modules[2]!.id));
    await db().update(schema.blocks).set({ deletedAt: now }).where(eq(schema.blocks.moduleId, tree.modules[2]!.id));
    await db().update(schema.blocks).set({ deletedAt: now }).where(eq(schema.blocks.id, tree.blockIds[0]!));
    const student = await signedIn(school, { role: "student" });
    await insertEnrollment(school.id, tree.courseId, student.id);

    const res = await as(admin, `/t/courses/${tree.courseId}/duplicate`, { method: "POST" });
    expect(res.status).toBe(201);
    const copyId = res.body.data.id;
    expect(res.body.data).toMatchObject({ total_blocks: 7, total_lessons: 4, total_students: 0 });
    const [original, copy] = [await treeOf(tree.courseId), await treeOf(copyId)];
    expect(copy).toEqual(original);
    expect(copy).toHaveLength(2);
    expect(copy[0]!.lessons[1]!.groups).toEqual([group.id]);
    expect(copy[0]!.lessons[0]!.blocks).toHaveLength(1);
    expect(copy[0]!.lessons[0]!.blocks[0]).toEqual({ type: "quiz_ref", position: 1, payload: { quiz_id: "0190a6c2-0000-7000-8000-00000000beef" }, refId: "0190a6c2-0000-7000-8000-00000000beef", tied: true });
    // No row of the copy points into the original, and the scratch map is empty again.
    const copiedIds = new Set([...(await liveModules(copyId)).map((m) => m.id)]);
    expect([...copiedIds].some((id) => tree.modules.some((m) => m.id === id))).toBe(false);
    expect(await db().select().from(schema.treeCopyMap).where(eq(schema.treeCopyMap.copyId, copyId))).toEqual([]);
    expect(await db().select().from(schema.enrollments).where(eq(schema.enrollments.courseId, copyId))).toEqual([]);
  });

  it("copies a course of 500 blocks with the same statements as a course of one block", async () => {
    const { school, admin } = await schoolWithAdmin();
    const big = await insertCourseTree(school.id, { shape: [5, 10, 10] });
    const small = await insertCourseTree(school.id, { shape: [1, 1, 1] });
    const bigRun = await countedPost(admin, `/t/courses/${big.courseId}/duplicate`);
    const smallRun = await countedPost(admin, `/t/courses/${small.courseId}/duplicate`);
    expect(bigRun.status).toBe(201);
    expect(smallRun.status).toBe(201);
    expect(bigRun.body.data).toMatchObject({ total_blocks: 500, total_lessons: 50 });
    expect(bigRun.counts).toEqual(smallRun.counts);
    // Auth; one batch reading the source and the slugs; one batch of course row, six copy statements and the detail.
    expect(bigRun.counts).toEqual({ prepare: 1 + 2 + 8, batch: 2, exec: 0 });
    expect(await treeOf(bigRun.body.data.id)).toEqual(await treeOf(big.courseId));
  });

  it("answers 404 course_not_found for deleted, foreign and unknown courses (and to a student, 403 forbidden), 400 invalid_id_format for a bad id", async () => {
    const { school, admin } = await schoolWithAdmin();
    const other = await schoolWithAdmin();
    const deleted = await insertCourseTree(school.id);
    await db().update(schema.courses).set({ deletedAt: Date.now() }).where(eq(schema.courses.id, deleted.courseId));
    const foreign = await insertCourseTree(other.school.id);
    for (const id of [deleted.courseId, foreign.courseId, unknownId()]) {
      expect(failure(await as(admin, `/t/courses/${id}/duplicate`, { method: "POST" }))).toEqual({ status: 404, error: "course_not_found" });
    }
    expect(failure(await as(admin, "/t/courses/xyz/duplicate", { method: "POST" }))).toEqual({ status: 400, error: "invalid_id_format" });
    const student = await signedIn(school, { role: "student" });
    const own = await insertCourseTree(school.id);
    expect(failure(await as(student, `/t/courses/${own.courseId}/duplicate`, { method: "POST" }))).toEqual({ status: 403, error: "forbidden" });
    expect((await liveModules(foreign.courseId)).map((m) => m.title)).toEqual(["Module 1"]);
  });
});
