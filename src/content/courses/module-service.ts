import { and, eq, isNull, sql } from "drizzle-orm";
import { changedRows, insertWhere, runBatch } from "../../core/db/batch";
import { liveRow, liveRowWhere } from "../../core/db/live-row";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { uuidv7 } from "../../core/lib/ids";
import { blocks, courseModules, courses, lessons } from "../../db/schema";
import { assetRef } from "../../platform/media/asset-ref";
import { appendPosition, reorderSiblings } from "../common/ordering";
import { recomputeCourseProgress } from "../common/progress";
import { copyModuleStatements } from "./copy-tree";
import { coursesErrors } from "./errors";
import { readTreeAfter } from "./module-index";
import { presentCover, presentModule } from "./tree-present";
import { inSchool, liveInSchool } from "../../core/db/conditions";

/**
 * Authoring of modules (manage_courses). Each write is one batch whose statements carry their own
 * conditions (the course or module is live), and a verb that answers the module reads it back in
 * that same batch.
 */

function liveCourseSql(tenantId: string, courseId: string) {
  return sql`EXISTS (SELECT 1 FROM courses c WHERE c.id = ${courseId} AND ${liveInSchool("c", tenantId)})`;
}

/** POST /courses/:id/modules: appended after the course's live modules. */
export async function createModule(ctx: SchoolCtx, input: { courseId: string; body: { title: string; description?: string } }) {
  const id = uuidv7();
  const now = ctx.clock.now();
  const row = {
    id,
    tenantId: ctx.tenantId,
    courseId: input.courseId,
    title: input.body.title,
    description: input.body.description ?? "",
    position: appendPosition(ctx.tenantId, { table: courseModules, parent: { column: courseModules.courseId, id: input.courseId } }),
    coverImageId: null,
    createdAt: now,
    updatedAt: now,
  };
  const [inserted, created] = await ctx.db.batch([
    insertWhere(ctx, courseModules, row, liveCourseSql(ctx.tenantId, input.courseId)),
    ctx.db.select().from(courseModules).where(liveRowWhere(courseModules, ctx.tenantId, id)),
  ]);
  const module = created[0];
  if (changedRows(inserted) === 0 || !module) throw new ApiError(coursesErrors.COURSE_NOT_FOUND);
  return presentModule(ctx, module, []);
}

/** PATCH /modules/:id: title and description; the module is answered with its lessons. */
export async function updateModule(ctx: SchoolCtx, input: { id: string; body: { title?: string; description?: string } }) {
  const { title, description } = input.body;
  const update = ctx.db
    .update(courseModules)
    .set({ updatedAt: ctx.clock.now(), ...(title !== undefined ? { title } : {}), ...(description !== undefined ? { description } : {}) })
    .where(liveRowWhere(courseModules, ctx.tenantId, input.id));
  const [module] = await readTreeAfter(ctx, { moduleId: input.id }, [update]);
  return module!;
}

/**
 * DELETE /modules/:id: the module, its lessons and their blocks get the same `deleted_at`, and the
 * course's enrollments are recounted, in one batch.
 */
export async function deleteModule(ctx: SchoolCtx, input: { id: string }): Promise<void> {
  const now = ctx.clock.now();
  const t = ctx.tenantId;
  const courseId = sql`(SELECT course_id FROM course_modules WHERE id = ${input.id} AND ${inSchool(t)})`;
  const [deleted] = await runBatch(ctx, [
    ctx.db.update(courseModules).set({ deletedAt: now }).where(liveRowWhere(courseModules, t, input.id)),
    ctx.db.update(lessons).set({ deletedAt: now }).where(and(inSchool(lessons, t), eq(lessons.moduleId, input.id), isNull(lessons.deletedAt))),
    ctx.db.update(blocks).set({ deletedAt: now }).where(and(inSchool(blocks, t), eq(blocks.moduleId, input.id), isNull(blocks.deletedAt))),
    recomputeCourseProgress(ctx, t, courseId),
  ]);
  if (changedRows(deleted) === 0) throw new ApiError(coursesErrors.MODULE_NOT_FOUND);
}

/** POST /modules/:id/duplicate: a deep copy at the end of the same course, answered as in the index. */
export async function duplicateModule(ctx: SchoolCtx, input: { id: string }) {
  const source = await liveRow(ctx, courseModules, input.id, coursesErrors.MODULE_NOT_FOUND);
  const newId = uuidv7();
  const copy = copyModuleStatements(ctx, { moduleId: source.id, courseId: source.courseId, newId });
  const [module] = await readTreeAfter(ctx, { moduleId: newId }, copy);
  return module!;
}

/** PATCH /courses/:id/reorder-modules. */
export async function reorderModules(ctx: SchoolCtx, input: { courseId: string; ids: readonly string[] }) {
  await liveRow(ctx, courses, input.courseId, coursesErrors.COURSE_NOT_FOUND);
  return reorderSiblings(ctx, { table: courseModules, parent: { column: courseModules.courseId, id: input.courseId } }, input.ids);
}

/** PATCH /modules/:id/cover-image: a confirmed image of the school, or null to remove it. */
export async function setModuleCover(ctx: SchoolCtx, input: { id: string; coverImageId: string | null }) {
  await assetRef("image").check(ctx, { tenantId: ctx.tenantId, field: "cover_image_id", value: input.coverImageId, invalid: coursesErrors.INVALID_COVER_IMAGE });
  const [row] = await ctx.db
    .update(courseModules)
    .set({ coverImageId: input.coverImageId, updatedAt: ctx.clock.now() })
    .where(liveRowWhere(courseModules, ctx.tenantId, input.id))
    .returning({ coverImageId: courseModules.coverImageId });
  if (!row) throw new ApiError(coursesErrors.MODULE_NOT_FOUND);
  return presentCover(ctx, row.coverImageId);
}
