import { and, asc, eq, isNull, sql } from "drizzle-orm";
import { changedRows, insertWhere, runBatch, type BatchItem } from "../../core/db/batch";
import { liveRow, liveRowWhere } from "../../core/db/live-row";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError, type ErrorEntry } from "../../core/http/errors";
import { uuidv7 } from "../../core/lib/ids";
import { blocks, courseModules, lessons } from "../../db/schema";
import { assetRef } from "../../platform/media/asset-ref";
import { appendPosition, reorderSiblings } from "../common/ordering";
import { recomputeCourseProgress } from "../common/progress";
import { copyLessonStatements } from "./copy-tree";
import { coursesErrors } from "./errors";
import { presentCover, presentLessonFields, presentLightBlock, questionCountSql } from "./tree-present";
import { inSchool, liveInSchool } from "../../core/db/conditions";

/**
 * Authoring of lessons (manage_courses). Writes are one batch with conditional statements; a verb
 * that answers the lesson reads it (and its light blocks, as in the module index) in that batch.
 */

function lessonQueries(ctx: SchoolCtx, id: string) {
  return [
    ctx.db.select().from(lessons).where(liveRowWhere(lessons, ctx.tenantId, id)),
    ctx.db
      .select({ id: blocks.id, type: blocks.type, position: blocks.position, payload: blocks.payload, questionCount: questionCountSql(ctx.tenantId, sql`blocks`) })
      .from(blocks)
      .where(and(inSchool(blocks, ctx.tenantId), eq(blocks.lessonId, id), isNull(blocks.deletedAt)))
      .orderBy(asc(blocks.position), asc(blocks.id)),
  ] as const;
}

/**
 * Runs `writes`, then reads lesson `id` for staff (nothing locked, `passed` false), in one batch;
 * `notFound` when the lesson is not there after the writes.
 */
async function lessonAfter(ctx: SchoolCtx, id: string, writes: readonly BatchItem[], notFound: ErrorEntry = coursesErrors.LESSON_NOT_FOUND) {
  const results = await runBatch(ctx, [...writes, ...lessonQueries(ctx, id)]);
  const [lessonRows, blockRows] = results.slice(writes.length) as [
    Awaited<ReturnType<typeof lessonQueries>[0]>,
    Awaited<ReturnType<typeof lessonQueries>[1]>,
  ];
  const row = lessonRows[0];
  if (!row) throw new ApiError(notFound);
  return {
    ...(await presentLessonFields(ctx, row, false)),
    blocks: blockRows.map((block) => presentLightBlock(block, { locked: false, questionCount: block.questionCount })),
  };
}

/** POST /modules/:id/lessons: appended after the module's live lessons. */
export async function createLesson(ctx: SchoolCtx, input: { moduleId: string; body: { title: string; screenshot_protection_enabled?: boolean } }) {
  const t = ctx.tenantId;
  const id = uuidv7();
  const now = ctx.clock.now();
  const row = {
    id,
    tenantId: t,
    courseId: sql`(SELECT course_id FROM course_modules WHERE id = ${input.moduleId} AND ${inSchool(t)})`,
    moduleId: input.moduleId,
    title: input.body.title,
    position: appendPosition(t, { table: lessons, parent: { column: lessons.moduleId, id: input.moduleId } }),
    screenshotProtectionEnabled: input.body.screenshot_protection_enabled ?? false,
    coverImageId: null,
    createdAt: now,
    updatedAt: now,
  };
  const moduleLive = sql`EXISTS (SELECT 1 FROM course_modules m WHERE m.id = ${input.moduleId} AND ${liveInSchool("m", t)})`;
  return lessonAfter(ctx, id, [insertWhere(ctx, lessons, row, moduleLive)], coursesErrors.MODULE_NOT_FOUND);
}

/** PATCH /lessons/:id: title and screenshot protection. */
export async function updateLesson(ctx: SchoolCtx, input: { id: string; body: { title?: string; screenshot_protection_enabled?: boolean } }) {
  const { title, screenshot_protection_enabled: protection } = input.body;
  const update = ctx.db
    .update(lessons)
    .set({ updatedAt: ctx.clock.now(), ...(title !== undefined ? { title } : {}), ...(protection !== undefined ? { screenshotProtectionEnabled: protection } : {}) })
    .where(liveRowWhere(lessons, ctx.tenantId, input.id));
  return lessonAfter(ctx, input.id, [update]);
}

/** DELETE /lessons/:id: the lesson and its blocks get the same `deleted_at`; enrollments are recounted. */
export async function deleteLesson(ctx: SchoolCtx, input: { id: string }): Promise<void> {
  const now = ctx.clock.now();
  const t = ctx.tenantId;
  const courseId = sql`(SELECT course_id FROM lessons WHERE id = ${input.id} AND ${inSchool(t)})`;
  const [deleted] = await runBatch(ctx, [
    ctx.db.update(lessons).set({ deletedAt: now }).where(liveRowWhere(lessons, t, input.id)),
    ctx.db.update(blocks).set({ deletedAt: now }).where(and(inSchool(blocks, t), eq(blocks.lessonId, input.id), isNull(blocks.deletedAt))),
    recomputeCourseProgress(ctx, t, courseId),
  ]);
  if (changedRows(deleted) === 0) throw new ApiError(coursesErrors.LESSON_NOT_FOUND);
}

/** POST /lessons/:id/duplicate: a copy with its blocks and access groups at the end of the same module. */
export async function duplicateLesson(ctx: SchoolCtx, input: { id: string }) {
  const source = await liveRow(ctx, lessons, input.id, coursesErrors.LESSON_NOT_FOUND);
  const newId = uuidv7();
  const copy = copyLessonStatements(ctx, { lessonId: source.id, moduleId: source.moduleId, courseId: source.courseId, newId });
  return lessonAfter(ctx, newId, copy);
}

/** PATCH /modules/:id/reorder-lessons. */
export async function reorderLessons(ctx: SchoolCtx, input: { moduleId: string; ids: readonly string[] }) {
  await liveRow(ctx, courseModules, input.moduleId, coursesErrors.MODULE_NOT_FOUND);
  return reorderSiblings(ctx, { table: lessons, parent: { column: lessons.moduleId, id: input.moduleId } }, input.ids);
}

/** PATCH /lessons/:id/cover-image: a confirmed image of the school, or null to remove it. */
export async function setLessonCover(ctx: SchoolCtx, input: { id: string; coverImageId: string | null }) {
  await assetRef("image").check(ctx, { tenantId: ctx.tenantId, field: "cover_image_id", value: input.coverImageId, invalid: coursesErrors.INVALID_COVER_IMAGE });
  const [row] = await ctx.db
    .update(lessons)
    .set({ coverImageId: input.coverImageId, updatedAt: ctx.clock.now() })
    .where(liveRowWhere(lessons, ctx.tenantId, input.id))
    .returning({ coverImageId: lessons.coverImageId });
  if (!row) throw new ApiError(coursesErrors.LESSON_NOT_FOUND);
  return presentCover(ctx, row.coverImageId);
}
