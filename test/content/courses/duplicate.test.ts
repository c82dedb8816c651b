import { env } from "cloudflare:test";
import { and, asc, eq, inArray, isNull } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { copyLessonStatements, copyModuleStatements } from "../../../src/content/courses/copy-tree";
import { runBatch } from "../../../src/core/db/batch";
import { dbFor } from "../../../src/core/db/client";
import type { TenantCtx } from "../../../src/core/http/context";
import { uuidv7 } from "../../../src/core/lib/ids";
import * as schema from "../../../src/db/schema";
import { insertCourseTree } from "../../helpers/courses";
import { createSchool, db } from "../../helpers/factories";
import { createGroup } from "../../helpers/users";

function ctxFor(tenantId: string, now = Date.now()): TenantCtx {
  return { db: dbFor(env, null), clock: { now: () => now }, tenantId } as TenantCtx;
}

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

    const ctx = ctxFor(school.id);
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
    const ctx = ctxFor(school.id);
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

    await db().update(schema.lessons).set({ deletedAt: 5 }).where(eq(schema.lessons.id, module.lessons[1]!.id));
    const gone = uuidv7();
    await runBatch(ctx, copyLessonStatements(ctx, { lessonId: module.lessons[1]!.id, moduleId: module.id, courseId: tree.courseId, newId: gone }));
    expect(await db().select().from(schema.lessons).where(eq(schema.lessons.id, gone))).toEqual([]);
    expect(await liveBlocks([gone])).toEqual([]);
  });

  it("copies nothing of another school's module", async () => {
    const [school, other] = [await createSchool(), await createSchool()];
    const tree = await insertCourseTree(other.id, { shape: [1, 1, 1] });
    const ctx = ctxFor(school.id);
    const newId = uuidv7();
    await runBatch(ctx, copyModuleStatements(ctx, { moduleId: tree.modules[0]!.id, courseId: tree.courseId, newId }));
    expect(await db().select().from(schema.courseModules).where(eq(schema.courseModules.id, newId))).toEqual([]);
    expect(await db().select().from(schema.lessons).where(eq(schema.lessons.moduleId, newId))).toEqual([]);
  });
});
