import { sql, type SQL } from "drizzle-orm";
import { batchable, runBatch, type BatchItem, rowsOf } from "../../core/db/batch";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import type { BlockType } from "../../db/schema";
import { activeEnrollmentIdSql, courseVisibleSql, isStaff, lessonVisibleSql, lessonVisibleToSql } from "../common/access";
import { COURSE_ORDER, earlierIncompleteSql } from "../common/locks";
import { lessonChainWindowsSql, nodeStatus, parseWindows, type WindowStatus } from "../common/windows";
import { loadEmbeds, presentBlock, type BlockRow } from "./block-present";
import { coursesErrors } from "./errors";
import { presentLessonFields, type LessonRow } from "./tree-present";
import { inSchool, liveInSchool } from "../../core/db/conditions";

/**
 * The content of a course: full lesson and block reads, and the resume point they record. Each
 * read is the guard's query plus one batch: the resume UPDATE (students) and the SELECTs, every
 * rule of who may see what written into their SQL.
 *
 * Aliases of the statements below: `t` the block, `tl` its lesson, `tm` its module, `c` its course.
 */
export const BLOCK_FROM = sql`blocks t
  JOIN lessons tl ON tl.id = t.lesson_id AND tl.deleted_at IS NULL
  JOIN course_modules tm ON tm.id = t.module_id AND tm.deleted_at IS NULL
  JOIN courses c ON c.id = t.course_id`;

/** The live block `t` of the school (its ancestors' liveness comes with the joins of BLOCK_FROM). */
export function liveBlockSql(ctx: Pick<SchoolCtx, "tenantId">, blockId: string | SQL): SQL {
  return sql`t.id = ${blockId} AND ${liveInSchool("t", ctx.tenantId)}`;
}

/**
 * The caller may read the content of course `c`, lesson `tl`: staff always (live course); a
 * student in a published course, seeing the lesson, with an active enrollment.
 */
export function contentAccessSql(ctx: Pick<SchoolCtx, "actor" | "tenantId">): SQL {
  const course = courseVisibleSql(ctx, sql`c`);
  if (isStaff(ctx.actor)) return course;
  return sql`${course} AND ${lessonVisibleSql(ctx, sql`tl.id`)} AND ${activeEnrollmentIdSql(ctx.tenantId, sql`c.id`, ctx.actor.userId)} IS NOT NULL`;
}

/** Lessons the student sees, for the sequential rule (earlier hidden blocks do not count). */
function visibleTo(ctx: Pick<SchoolCtx, "actor" | "tenantId">) {
  return (lessonId: SQL) => lessonVisibleToSql(ctx.tenantId, lessonId, ctx.actor.userId);
}

/** SQL true when the one block `t` is locked for the caller by the course order (never for staff). */
export function blockLockedSql(ctx: Pick<SchoolCtx, "actor" | "tenantId">): SQL {
  if (isStaff(ctx.actor)) return sql`0`;
  return sql`(c.sequential_required = 1 AND ${earlierIncompleteSql(ctx.tenantId, ctx.actor.userId, visibleTo(ctx))})`;
}

/**
 * For the blocks of one lesson: locked when they come after the course's first visible block the
 * student has not completed (the same rule as `blockLockedSql`, with that block found once for the
 * whole list instead of a search per block).
 */
function listLockedSql(ctx: Pick<SchoolCtx, "actor" | "tenantId">, courseId: SQL): SQL {
  if (isStaff(ctx.actor)) return sql`0`;
  const { tenantId } = ctx;
  const firstOpen = sql`(SELECT m.position, m.id, l.position, l.id, b.position, b.id FROM blocks b
      JOIN lessons l ON l.id = b.lesson_id AND l.deleted_at IS NULL
      JOIN course_modules m ON m.id = b.module_id AND m.deleted_at IS NULL
    WHERE ${inSchool("b", tenantId)} AND b.course_id = ${courseId} AND b.deleted_at IS NULL
      AND ${visibleTo(ctx)(sql`l.id`)}
      AND NOT EXISTS (SELECT 1 FROM block_completions bc WHERE ${inSchool("bc", tenantId)} AND bc.block_id = b.id AND bc.student_id = ${ctx.actor.userId})
    ORDER BY ${COURSE_ORDER} LIMIT 1)`;
  return sql`(c.sequential_required = 1 AND COALESCE((tm.position, tm.id, tl.position, tl.id, t.position, t.id) > ${firstOpen}, 0))`;
}

/**
 * The student's resume point: the enrollment records the block (its id as SQL) when the student
 * may open it; a NULL id (an empty lesson), a locked block or no active enrollment change nothing.
 */
function resumeStatement(ctx: SchoolCtx, blockId: SQL): BatchItem {
  const now = ctx.clock.now();
  return batchable(
    ctx,
    sql`UPDATE enrollments SET last_accessed_block_id = ${blockId}, last_accessed_at = ${now}
      WHERE ${inSchool(ctx.tenantId)} AND student_id = ${ctx.actor.userId} AND removed_at IS NULL
        AND course_id = (SELECT t.course_id FROM ${BLOCK_FROM}
          WHERE ${liveBlockSql(ctx, blockId)} AND ${contentAccessSql(ctx)} AND NOT ${blockLockedSql(ctx)})`,
  );
}

// ---------------------------------------------------------------------------------------------
// Rows

const BLOCK_COLUMNS = sql`t.id, t.lesson_id, t.module_id, t.course_id, t.type, t.position, t.payload, t.ref_id, t.created_at, t.updated_at`;

/** A block row as a raw SELECT returns it. */
export interface RawBlock {
  id: string;
  lesson_id: string;
  module_id: string;
  course_id: string;
  type: BlockType;
  position: number;
  payload: string;
  ref_id: string | null;
  created_at: number;
  updated_at: number;
  locked?: number;
  windows?: string | null;
}


export function blockRow(raw: RawBlock): BlockRow {
  return {
    id: raw.id,
    lessonId: raw.lesson_id,
    moduleId: raw.module_id,
    courseId: raw.course_id,
    type: raw.type,
    position: raw.position,
    payload: JSON.parse(raw.payload) as Record<string, unknown>,
    refId: raw.ref_id,
    createdAt: raw.created_at,
    updatedAt: raw.updated_at,
  };
}

/** A student's effective windows on the chain of lesson `tl` (JSON); staff read none. */
function chainWindowsSql(ctx: SchoolCtx): SQL {
  return isStaff(ctx.actor) ? sql`NULL` : lessonChainWindowsSql(ctx, sql`tl`);
}

/** The caller's window status on a lesson, from the `windows` column (`chainWindowsSql`) of a row. */
function lessonStatus(ctx: SchoolCtx, windows: string | null | undefined, chain: [courseId: string, moduleId: string, lessonId: string]): WindowStatus {
  return nodeStatus(parseWindows(windows), chain, ctx.clock.now());
}

/**
 * The SELECT of one block as `blockRow` reads it, with the caller's lock (course order) and the
 * windows of its lesson's chain, when the caller may read it.
 */
export function blockSelect(ctx: SchoolCtx, blockId: string): BatchItem {
  return batchable(
    ctx,
    sql`SELECT ${BLOCK_COLUMNS}, ${blockLockedSql(ctx)} AS locked, ${chainWindowsSql(ctx)} AS windows FROM ${BLOCK_FROM}
      WHERE ${liveBlockSql(ctx, blockId)} AND ${contentAccessSql(ctx)}`,
  );
}

/**
 * Full blocks of the rows (payloads of locked ones withheld), with their embedded objects; a
 * lesson its dates close (`dateClosed`) shows every block so.
 */
async function presentBlocks(ctx: SchoolCtx, raws: readonly RawBlock[], dateClosed = false) {
  const rows = raws.map(blockRow);
  const locked = new Set(raws.filter((raw) => dateClosed || raw.locked === 1).map((raw) => raw.id));
  const embeds = await loadEmbeds(ctx, rows, locked);
  return Promise.all(rows.map((row) => presentBlock(ctx, row, { locked: locked.has(row.id), embeds })));
}

// ---------------------------------------------------------------------------------------------
// Verbs

interface RawLesson {
  id: string;
  module_id: string;
  course_id: string;
  title: string;
  position: number;
  screenshot_protection_enabled: number;
  cover_image_id: string | null;
  created_at: number;
  updated_at: number;
  passed: number;
  windows: string | null;
}

/** The lesson and its blocks in one batch (with the student's resume point), or 404 `lesson_not_found`. */
async function readLesson(ctx: SchoolCtx, lessonId: string) {
  const { tenantId } = ctx;
  const lessonCourse = sql`(SELECT course_id FROM lessons WHERE id = ${lessonId} AND ${inSchool(tenantId)})`;
  const liveBlocks = sql`FROM blocks lb WHERE ${inSchool("lb", tenantId)} AND lb.lesson_id = tl.id AND lb.deleted_at IS NULL`;
  const passed = isStaff(ctx.actor)
    ? sql`0`
    : sql`(EXISTS (SELECT 1 ${liveBlocks}) AND NOT EXISTS (SELECT 1 ${liveBlocks}
        AND NOT EXISTS (SELECT 1 FROM block_completions bc WHERE ${inSchool("bc", tenantId)} AND bc.block_id = lb.id AND bc.student_id = ${ctx.actor.userId})))`;
  const statements = [
    batchable(
      ctx,
      sql`SELECT tl.id, tl.module_id, tl.course_id, tl.title, tl.position, tl.screenshot_protection_enabled, tl.cover_image_id,
          tl.created_at, tl.updated_at, ${passed} AS passed, ${chainWindowsSql(ctx)} AS windows
        FROM lessons tl
          JOIN course_modules tm ON tm.id = tl.module_id AND tm.deleted_at IS NULL
          JOIN courses c ON c.id = tl.course_id
        WHERE tl.id = ${lessonId} AND ${liveInSchool("tl", tenantId)} AND ${contentAccessSql(ctx)}`,
    ),
    batchable(
      ctx,
      sql`SELECT ${BLOCK_COLUMNS}, ${listLockedSql(ctx, lessonCourse)} AS locked FROM ${BLOCK_FROM}
        WHERE ${inSchool("t", tenantId)} AND t.lesson_id = ${lessonId} AND t.deleted_at IS NULL
        ORDER BY t.position, t.id`,
    ),
  ];
  if (!isStaff(ctx.actor)) {
    const firstBlock = sql`(SELECT fb.id FROM blocks fb WHERE ${inSchool("fb", tenantId)} AND fb.lesson_id = ${lessonId} AND fb.deleted_at IS NULL ORDER BY fb.position, fb.id LIMIT 1)`;
    statements.unshift(resumeStatement(ctx, firstBlock));
  }
  const results = await runBatch(ctx, statements);
  const [lessonResult, blocksResult] = results.slice(-2);
  const lesson = rowsOf<RawLesson>(lessonResult)[0];
  if (!lesson) throw new ApiError(coursesErrors.LESSON_NOT_FOUND);
  const status = lessonStatus(ctx, lesson.windows, [lesson.course_id, lesson.module_id, lesson.id]);
  return { lesson, status, blocks: await presentBlocks(ctx, rowsOf<RawBlock>(blocksResult), status.locked) };
}

function lessonRow(raw: RawLesson): LessonRow {
  return {
    id: raw.id,
    moduleId: raw.module_id,
    courseId: raw.course_id,
    title: raw.title,
    position: raw.position,
    screenshotProtectionEnabled: raw.screenshot_protection_enabled === 1,
    coverImageId: raw.cover_image_id,
    createdAt: raw.created_at,
    updatedAt: raw.updated_at,
  };
}

/** GET /lessons/:id: the lesson with its full blocks. */
export async function getLesson(ctx: SchoolCtx, input: { id: string }) {
  const { lesson, status, blocks } = await readLesson(ctx, input.id);
  return { ...(await presentLessonFields(ctx, lessonRow(lesson), lesson.passed === 1, status)), blocks };
}

/** GET /lessons/:id/blocks. */
export async function listLessonBlocks(ctx: SchoolCtx, input: { id: string }) {
  const { blocks } = await readLesson(ctx, input.id);
  return { blocks };
}

/**
 * GET /blocks/:id: the full block; a student's block locked by the course order is 409, one whose
 * lesson the dates close is shown locked, without payload.
 */
export async function getBlock(ctx: SchoolCtx, input: { id: string }) {
  const statements = [blockSelect(ctx, input.id)];
  if (!isStaff(ctx.actor)) statements.unshift(resumeStatement(ctx, sql`${input.id}`));
  const results = await runBatch(ctx, statements);
  const raw = rowsOf<RawBlock>(results[results.length - 1])[0];
  if (!raw) throw new ApiError(coursesErrors.BLOCK_NOT_FOUND);
  if (raw.locked === 1) throw new ApiError(coursesErrors.SEQUENTIAL_ORDER_REQUIRED);
  const [block] = await presentBlocks(ctx, [raw], lessonStatus(ctx, raw.windows, [raw.course_id, raw.module_id, raw.lesson_id]).locked);
  return block!;
}
