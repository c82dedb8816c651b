import { and, asc, eq, isNull, sql, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import { runBatch, type BatchItem } from "../../core/db/batch";
import type { TenantCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { blockCompletions, blocks, courseModules, courses, enrollments, lessons } from "../../db/schema";
import { courseVisibleSql, isStaff, lessonVisibleSql } from "../shared/access";
import { COURSE_ORDER, sequentialLocks } from "../shared/locks";
import { coursesErrors } from "./errors";
import { presentLessonFields, presentLightBlock, presentModule, questionCountSql, type LessonView } from "./tree-present";

/**
 * The outline of a course as the module index, a module and a module's lesson list show it, read
 * in ONE batch (one D1 round trip) whatever the course's size: the course check, the modules, the
 * lessons the caller sees, their blocks in course order, and the student's enrollment and
 * completions. Locks and `passed` are then worked out in memory:
 * - staff see everything open, `passed` false;
 * - a student without an active enrollment sees every block locked, payload null;
 * - an enrolled student of a `sequential_required` course sees the blocks after the first
 *   incomplete visible one locked (`sequentialLocks` over every visible block of the course, so a
 *   single module's view agrees with the whole index).
 * Write verbs that answer a module put their statement in front of these queries, in the same batch.
 */

/** What is read: the course's outline, or one module's. */
export type TreeScope = { courseId: string } | { moduleId: string };

function courseIdOf(ctx: TenantCtx, scope: TreeScope): SQL | string {
  if ("courseId" in scope) return scope.courseId;
  return sql`(SELECT course_id FROM course_modules WHERE id = ${scope.moduleId} AND tenant_id = ${ctx.tenantId})`;
}

/** The batch's queries, in the order `assembleTree` reads their results. */
export function treeQueries(ctx: TenantCtx, scope: TreeScope) {
  const tenantId = ctx.tenantId;
  const staff = isStaff(ctx.actor);
  const courseId = courseIdOf(ctx, scope);
  const c = alias(courses, "c");
  const cm = alias(courseModules, "cm");
  const course =
    "courseId" in scope
      ? ctx.db
          .select({ id: c.id, sequential: c.sequentialRequired })
          .from(c)
          .where(and(eq(c.id, scope.courseId), courseVisibleSql(ctx, sql`c`)))
      : ctx.db
          .select({ id: c.id, sequential: c.sequentialRequired })
          .from(cm)
          .innerJoin(c, eq(c.id, cm.courseId))
          .where(and(eq(cm.id, scope.moduleId), eq(cm.tenantId, tenantId), isNull(cm.deletedAt), courseVisibleSql(ctx, sql`c`)));
  const moduleRows = ctx.db
    .select()
    .from(courseModules)
    .where(
      and(
        eq(courseModules.tenantId, tenantId),
        "courseId" in scope ? eq(courseModules.courseId, scope.courseId) : eq(courseModules.id, scope.moduleId),
        isNull(courseModules.deletedAt),
      ),
    )
    .orderBy(asc(courseModules.position), asc(courseModules.id));
  const lessonRows = ctx.db
    .select()
    .from(lessons)
    .where(
      and(
        eq(lessons.tenantId, tenantId),
        "courseId" in scope ? eq(lessons.courseId, scope.courseId) : eq(lessons.moduleId, scope.moduleId),
        isNull(lessons.deletedAt),
        lessonVisibleSql(ctx, sql`${lessons.id}`),
      ),
    )
    .orderBy(asc(lessons.position), asc(lessons.id));
  const b = alias(blocks, "b");
  const l = alias(lessons, "l");
  const m = alias(courseModules, "m");
  // A student's locks depend on every earlier block of the course; staff only need the blocks shown.
  const blockScope = staff && "moduleId" in scope ? eq(b.moduleId, scope.moduleId) : eq(b.courseId, courseId);
  const blockRows = ctx.db
    .select({ id: b.id, lessonId: b.lessonId, type: b.type, position: b.position, payload: b.payload, questionCount: questionCountSql(tenantId, sql`b`) })
    .from(b)
    .innerJoin(l, and(eq(l.id, b.lessonId), isNull(l.deletedAt)))
    .innerJoin(m, and(eq(m.id, b.moduleId), isNull(m.deletedAt)))
    .where(and(eq(b.tenantId, tenantId), blockScope, isNull(b.deletedAt), lessonVisibleSql(ctx, sql`l.id`)))
    .orderBy(COURSE_ORDER);
  // Staff have no enrollment or completions to read: the two queries then read nothing.
  const student = staff ? sql`0` : undefined;
  const enrollment = ctx.db
    .select({ id: enrollments.id })
    .from(enrollments)
    .where(and(eq(enrollments.tenantId, tenantId), eq(enrollments.courseId, courseId), eq(enrollments.studentId, ctx.actor.userId), isNull(enrollments.removedAt), student));
  const completions = ctx.db
    .select({ blockId: blockCompletions.blockId })
    .from(blockCompletions)
    .where(and(eq(blockCompletions.tenantId, tenantId), eq(blockCompletions.studentId, ctx.actor.userId), eq(blockCompletions.courseId, courseId), student));
  return [course, moduleRows, lessonRows, blockRows, enrollment, completions] as const;
}

type ResultsOf<T extends readonly unknown[]> = { readonly [K in keyof T]: Awaited<T[K]> };
export type TreeResults = ResultsOf<ReturnType<typeof treeQueries>>;

/** The modules of the scope, presented; the scope's not-found failure when the caller may not see it. */
export async function assembleTree(ctx: TenantCtx, scope: TreeScope, results: TreeResults) {
  const [[course], moduleRows, lessonRows, blockRows, [enrollment], completionRows] = results;
  if (!course || (moduleRows.length === 0 && "moduleId" in scope)) {
    throw new ApiError("courseId" in scope ? coursesErrors.COURSE_NOT_FOUND : coursesErrors.MODULE_NOT_FOUND);
  }
  const staff = isStaff(ctx.actor);
  const completed = new Set(completionRows.map((row) => row.blockId));
  const enrolled = staff || enrollment !== undefined;
  const sequential = !staff && enrolled && course.sequential ? sequentialLocks(blockRows.map((row) => ({ id: row.id, visible: true })), completed) : null;
  const isLocked = (blockId: string) => (staff ? false : !enrolled || (sequential?.has(blockId) ?? false));

  const blocksByLesson = new Map<string, typeof blockRows>();
  for (const row of blockRows) {
    const list = blocksByLesson.get(row.lessonId);
    if (list) list.push(row);
    else blocksByLesson.set(row.lessonId, [row]);
  }
  const lessonsByModule = new Map<string, LessonView[]>();
  for (const row of lessonRows) {
    const own = blocksByLesson.get(row.id) ?? [];
    const passed = !staff && own.length > 0 && own.every((block) => completed.has(block.id));
    const lesson: LessonView = {
      ...(await presentLessonFields(ctx, row, passed)),
      blocks: own.map((block) => presentLightBlock(block, { locked: isLocked(block.id), questionCount: block.questionCount })),
    };
    const list = lessonsByModule.get(row.moduleId);
    if (list) list.push(lesson);
    else lessonsByModule.set(row.moduleId, [lesson]);
  }
  return Promise.all(moduleRows.map((row) => presentModule(ctx, row, lessonsByModule.get(row.id) ?? [])));
}

/** Runs the scope's batch and assembles it. */
async function readTree(ctx: TenantCtx, scope: TreeScope) {
  return assembleTree(ctx, scope, await ctx.db.batch(treeQueries(ctx, scope)));
}

/**
 * Runs `writes`, then reads the scope, in one batch (a write verb that answers the module it
 * wrote): the modules as the caller now sees them. A write whose conditions failed leaves the
 * scope unreadable, which answers the scope's not-found failure.
 */
export async function readTreeAfter(ctx: TenantCtx, scope: TreeScope, writes: readonly BatchItem[]) {
  const results = await runBatch(ctx, [...writes, ...treeQueries(ctx, scope)]);
  return assembleTree(ctx, scope, results.slice(writes.length) as unknown as TreeResults);
}

/** GET /courses/:id/modules: the module index. */
export async function getModuleIndex(ctx: TenantCtx, input: { courseId: string }) {
  const modules = await readTree(ctx, { courseId: input.courseId });
  return { modules, total_lessons: modules.reduce((sum, module) => sum + module.lessons_count, 0) };
}

/** GET /modules/:id: the module with its lessons as in the index. */
export async function getModule(ctx: TenantCtx, input: { id: string }) {
  const [module] = await readTree(ctx, { moduleId: input.id });
  return module!;
}

/** GET /modules/:id/lessons. */
export async function listModuleLessons(ctx: TenantCtx, input: { id: string }) {
  const [module] = await readTree(ctx, { moduleId: input.id });
  return { lessons: module!.lessons };
}
