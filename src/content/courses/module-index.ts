import { sql, type SQL } from "drizzle-orm";
import { batchable, runBatch, type BatchItem, rowsOf } from "../../core/db/batch";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { courseVisibleSql, isStaff, lessonVisibleSql } from "../common/access";
import { sequentialLocks } from "../common/locks";
import { effectiveWindowsJsonSql, nodeStatus, parseWindows } from "../common/windows";
import { coursesErrors } from "./errors";
import { presentLessonFields, presentLightBlock, presentModule, questionCountSql, type LessonRow, type LessonView, type LightBlockRow, type ModuleRow } from "./tree-present";
import { inSchool, liveInSchool } from "../../core/db/conditions";

/**
 * The outline of a course as the module index, a module and a module's lesson list show it, read
 * by ONE statement (one D1 round trip) whatever the course's size: the course check, the modules,
 * the lessons the caller sees, their blocks in course order, and the student's enrollment and
 * completions. Locks and `passed` are then worked out in memory:
 * - staff see everything open, `passed` false;
 * - a student without an active enrollment sees every block locked, payload null;
 * - an enrolled student of a `sequential_required` course sees the blocks after the first
 *   incomplete visible one locked (`sequentialLocks` over every visible block of the course, so a
 *   single module's view agrees with the whole index);
 * - a student's modules and lessons carry their window status from the student's effective
 *   windows (one more JSON column of the same statement), and the blocks of a lesson its dates
 *   close are locked, payload null.
 * Write verbs that answer a module put their statement in front of these queries, in the same batch.
 */

/** What is read: the course's outline, or one module's. */
export type TreeScope = { courseId: string } | { moduleId: string };

function courseIdOf(ctx: SchoolCtx, scope: TreeScope): SQL | string {
  if ("courseId" in scope) return scope.courseId;
  return sql`(SELECT course_id FROM course_modules WHERE id = ${scope.moduleId} AND ${inSchool(ctx.tenantId)})`;
}

/**
 * The scope's outline as ONE statement returning one row of JSON columns, built by SQLite: D1 hands
 * every result row (and every statement of a batch) over separately, which for a course of 500
 * blocks costs more than the reads themselves.
 */
export function treeStatement(ctx: SchoolCtx, scope: TreeScope): BatchItem {
  const tenantId = ctx.tenantId;
  const staff = isStaff(ctx.actor);
  const courseId = courseIdOf(ctx, scope);
  const byModule = "moduleId" in scope;
  const course = byModule
    ? sql`SELECT json_object('id', c.id, 'sequential', c.sequential_required) FROM course_modules cm JOIN courses c ON c.id = cm.course_id
          WHERE cm.id = ${scope.moduleId} AND ${liveInSchool("cm", tenantId)} AND ${courseVisibleSql(ctx, sql`c`)}`
    : sql`SELECT json_object('id', c.id, 'sequential', c.sequential_required) FROM courses c WHERE c.id = ${scope.courseId} AND ${courseVisibleSql(ctx, sql`c`)}`;
  const modules = sql`SELECT json_group_array(json_array(m.id, m.tenant_id, m.course_id, m.title, m.description, m.position, m.cover_image_id, m.created_at, m.updated_at))
    FROM (SELECT * FROM course_modules m WHERE ${inSchool("m", tenantId)} AND ${byModule ? sql`m.id = ${scope.moduleId}` : sql`m.course_id = ${courseId}`} AND m.deleted_at IS NULL
          ORDER BY m.position, m.id) m`;
  // The lessons the caller sees, once: the lesson list reads the scope's, the blocks (course order)
  // every one a student's locks depend on (the whole course), or only the module's for staff.
  const lessonScope = staff && byModule ? sql`l.module_id = ${scope.moduleId}` : sql`l.course_id = ${courseId}`;
  const visible = sql`SELECT l.*, m.position AS module_position FROM lessons l
      JOIN course_modules m ON m.id = l.module_id AND ${liveInSchool("m", tenantId)}
    WHERE ${inSchool("l", tenantId)} AND ${lessonScope} AND l.deleted_at IS NULL AND ${lessonVisibleSql(ctx, sql`l.id`)}`;
  const lessonRows = sql`SELECT json_group_array(json_array(l.id, l.module_id, l.course_id, l.title, l.position, l.screenshot_protection_enabled, l.cover_image_id, l.created_at, l.updated_at))
    FROM (SELECT * FROM visible_lessons l ${byModule ? sql`WHERE l.module_id = ${scope.moduleId}` : sql``} ORDER BY l.position, l.id) l`;
  const blockRows = sql`SELECT json_group_array(json_array(b.id, b.lesson_id, b.type, b.position, json(b.payload), ${questionCountSql(tenantId, sql`b`)}))
    FROM (SELECT b.* FROM blocks b JOIN visible_lessons l ON l.id = b.lesson_id
      WHERE ${inSchool("b", tenantId)} AND ${staff && byModule ? sql`b.module_id = ${scope.moduleId}` : sql`b.course_id = ${courseId}`} AND b.deleted_at IS NULL
      ORDER BY l.module_position, l.module_id, l.position, l.id, b.position, b.id) b`;
  // Staff have no enrollment or completions to read.
  const enrollment = staff
    ? sql`SELECT NULL`
    : sql`SELECT e.id FROM enrollments e WHERE ${inSchool("e", tenantId)} AND e.course_id = ${courseId} AND e.student_id = ${ctx.actor.userId} AND e.removed_at IS NULL`;
  const completions = staff
    ? sql`SELECT '[]'`
    : sql`SELECT json_group_array(bc.block_id) FROM block_completions bc WHERE ${inSchool("bc", tenantId)} AND bc.student_id = ${ctx.actor.userId} AND bc.course_id = ${courseId}`;
  const windows = staff ? sql`'[]'` : effectiveWindowsJsonSql(tenantId, courseId, ctx.actor.userId);
  return batchable(
    ctx,
    sql`WITH visible_lessons AS MATERIALIZED (${visible})
      SELECT (${course}) AS course, (${modules}) AS modules, (${lessonRows}) AS lessons, (${blockRows}) AS blocks,
               (${enrollment}) AS enrollment, (${completions}) AS completions, ${windows} AS windows`,
  );
}

interface PackedTree {
  course: string | null;
  modules: string;
  lessons: string;
  blocks: string;
  enrollment: string | null;
  completions: string;
  windows: string;
}

type Tuple<T extends unknown[]> = T;

function unpack(result: unknown) {
  const packed = rowsOf<PackedTree>(result)[0];
  if (!packed) throw new Error("the outline statement returns one row");
  const course = packed.course === null ? null : (JSON.parse(packed.course) as { id: string; sequential: number });
  const modules = (JSON.parse(packed.modules) as Tuple<[string, string, string, string, string, number, string | null, number, number]>[]).map(
    ([id, tenantId, courseId, title, description, position, coverImageId, createdAt, updatedAt]): ModuleRow => ({ id, tenantId, courseId, title, description, position, coverImageId, createdAt, updatedAt }),
  );
  const lessonRows = (JSON.parse(packed.lessons) as Tuple<[string, string, string, string, number, number, string | null, number, number]>[]).map(
    ([id, moduleId, courseId, title, position, protection, coverImageId, createdAt, updatedAt]): LessonRow => ({
      id,
      moduleId,
      courseId,
      title,
      position,
      screenshotProtectionEnabled: protection === 1,
      coverImageId,
      createdAt,
      updatedAt,
    }),
  );
  const blockRows = (JSON.parse(packed.blocks) as Tuple<[string, string, LightBlockRow["type"], number, Record<string, unknown>, number | null]>[]).map(
    ([id, lessonId, type, position, payload, questionCount]) => ({ id, lessonId, type, position, payload, questionCount }),
  );
  return {
    course,
    modules,
    lessonRows,
    blockRows,
    enrollmentId: packed.enrollment,
    completed: new Set(JSON.parse(packed.completions) as string[]),
    windows: parseWindows(packed.windows),
  };
}

/** The modules of the scope, presented; the scope's not-found failure when the caller may not see it. */
export async function assembleTree(ctx: SchoolCtx, scope: TreeScope, result: unknown) {
  const { course, modules: moduleRows, lessonRows, blockRows, enrollmentId, completed, windows } = unpack(result);
  if (!course || (moduleRows.length === 0 && "moduleId" in scope)) {
    throw new ApiError("courseId" in scope ? coursesErrors.COURSE_NOT_FOUND : coursesErrors.MODULE_NOT_FOUND);
  }
  const staff = isStaff(ctx.actor);
  const enrolled = staff || enrollmentId !== null;
  const sequential = !staff && enrolled && course.sequential === 1 ? sequentialLocks(blockRows.map((row) => ({ id: row.id, visible: true })), completed) : null;
  const isLocked = (blockId: string) => (staff ? false : !enrolled || (sequential?.has(blockId) ?? false));
  const now = ctx.clock.now();
  const statusOf = (chain: string[]) => nodeStatus(windows, chain, now);

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
    const status = statusOf([course.id, row.moduleId, row.id]);
    const lesson: LessonView = {
      ...(await presentLessonFields(ctx, row, passed, status)),
      blocks: own.map((block) => presentLightBlock(block, { locked: status.locked || isLocked(block.id), questionCount: block.questionCount })),
    };
    const list = lessonsByModule.get(row.moduleId);
    if (list) list.push(lesson);
    else lessonsByModule.set(row.moduleId, [lesson]);
  }
  return Promise.all(moduleRows.map((row) => presentModule(ctx, row, lessonsByModule.get(row.id) ?? [], statusOf([course.id, row.id]))));
}

/** Runs the scope's batch and assembles it. */
async function readTree(ctx: SchoolCtx, scope: TreeScope) {
  const [result] = await runBatch(ctx, [treeStatement(ctx, scope)]);
  return assembleTree(ctx, scope, result);
}

/**
 * Runs `writes`, then reads the scope, in one batch (a write verb that answers the module it
 * wrote): the modules as the caller now sees them. A write whose conditions failed leaves the
 * scope unreadable, which answers the scope's not-found failure.
 */
export async function readTreeAfter(ctx: SchoolCtx, scope: TreeScope, writes: readonly BatchItem[]) {
  const results = await runBatch(ctx, [...writes, treeStatement(ctx, scope)]);
  return assembleTree(ctx, scope, results[writes.length]);
}

/** GET /courses/:id/modules: the module index. */
export async function getModuleIndex(ctx: SchoolCtx, input: { courseId: string }) {
  const modules = await readTree(ctx, { courseId: input.courseId });
  return { modules, total_lessons: modules.reduce((sum, module) => sum + module.lessons_count, 0) };
}

/** GET /modules/:id: the module with its lessons as in the index. */
export async function getModule(ctx: SchoolCtx, input: { id: string }) {
  const [module] = await readTree(ctx, { moduleId: input.id });
  return module!;
}

/** GET /modules/:id/lessons. */
export async function listModuleLessons(ctx: SchoolCtx, input: { id: string }) {
  const [module] = await readTree(ctx, { moduleId: input.id });
  return { lessons: module!.lessons };
}
