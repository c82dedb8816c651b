import { sql, type SQL } from "drizzle-orm";
import type { z } from "@hono/zod-openapi";
import { batchable, changedRows, isUniqueViolation, runBatch } from "../../core/db/batch";
import { liveRowWhere } from "../../core/db/live-row";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { uuidv7 } from "../../core/lib/ids";
import { courses } from "../../db/schema";
import { assetRef } from "../../platform/media/asset-ref";
import { courseDeleteGuards } from "../common/course-guards";
import { appendPosition } from "../common/ordering";
import { presentCourseDetail, presentNewCourse } from "./course-present";
import { courseColumns, courseDetailStatement, type CourseDetailRow } from "./course-read";
import type { CourseCoverImageBody, CreateCourseBody, UpdateCourseBody } from "./course-schemas";
import { coursesErrors } from "./errors";
import { inSchool } from "../../core/db/conditions";

/** A slug taken by another live course of the school (the unique index `courses_slug_live`) is 400 `duplicate_slug`. */
async function slugChecked<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (err) {
    if (isUniqueViolation(err)) throw new ApiError(coursesErrors.DUPLICATE_SLUG);
    throw err;
  }
}

/** POST /t/courses: a draft, after the school's other courses. One statement. */
export async function createCourse(ctx: SchoolCtx, input: { body: z.infer<typeof CreateCourseBody> }) {
  const { body } = input;
  const now = ctx.clock.now();
  const [row] = await slugChecked(
    ctx.db
      .insert(courses)
      .values({
        id: uuidv7(now),
        tenantId: ctx.tenantId,
        title: body.title,
        slug: body.slug,
        description: body.description ?? "",
        status: "draft",
        sequentialRequired: false,
        position: appendPosition(ctx.tenantId, { table: courses }),
        coverImageId: null,
        createdBy: ctx.actor.userId,
        createdAt: now,
        updatedAt: now,
      })
      .returning(courseColumns),
  );
  return presentNewCourse(ctx, row!);
}

function detailOr404(row: CourseDetailRow | undefined): CourseDetailRow {
  if (!row) throw new ApiError(coursesErrors.COURSE_NOT_FOUND);
  return row;
}

/**
 * GET /t/courses/:id: one statement with the live totals and, for a student, progress and resume.
 * A draft is `course_not_found` to a student, as is a deleted or another school's course.
 */
export async function getCourse(ctx: SchoolCtx, input: { id: string }) {
  const [row] = await courseDetailStatement(ctx, input.id);
  return presentCourseDetail(ctx, detailOr404(row));
}

/** PATCH /t/courses/:id: the update and the course's new state in one batch. */
export async function updateCourse(ctx: SchoolCtx, input: { id: string; body: z.infer<typeof UpdateCourseBody> }) {
  const { id, body } = input;
  const changes = {
    ...(body.title !== undefined ? { title: body.title } : {}),
    ...(body.slug !== undefined ? { slug: body.slug } : {}),
    ...(body.description !== undefined ? { description: body.description } : {}),
    ...(body.sequential_required !== undefined ? { sequentialRequired: body.sequential_required } : {}),
  };
  if (Object.keys(changes).length === 0) return getCourse(ctx, { id });
  const update = ctx.db
    .update(courses)
    .set({ ...changes, updatedAt: ctx.clock.now() })
    .where(liveRowWhere(courses, ctx.tenantId, id));
  const [, detail] = await slugChecked(ctx.db.batch([update, courseDetailStatement(ctx, id)]));
  return presentCourseDetail(ctx, detailOr404(detail[0]));
}

/**
 * DELETE /t/courses/:id: soft, with every live module, lesson and block of the course marked at
 * the same instant, in one batch. The delete guards (learning paths, group enrollments) are read
 * once to answer their 409, and repeated as the UPDATE's condition so a link made in between wins.
 */
export async function deleteCourse(ctx: SchoolCtx, input: { id: string }): Promise<void> {
  const { id } = input;
  const guards = courseDeleteGuards();
  const held = (courseId: SQL) => guards.map((guard) => guard.holds(ctx.tenantId, courseId));
  const check = async () => {
    const [row] = await ctx.db
      .select({ id: courses.id, ...Object.fromEntries(held(sql`${courses.id}`).map((holds, i) => [`g${i}`, sql<number>`(${holds})`])) })
      .from(courses)
      .where(liveRowWhere(courses, ctx.tenantId, id))
      .limit(1);
    if (!row) throw new ApiError(coursesErrors.COURSE_NOT_FOUND);
    const blocking = guards.find((_, i) => Number((row as Record<string, unknown>)[`g${i}`]) === 1);
    if (blocking) throw new ApiError(blocking.failure);
  };
  await check();
  const now = ctx.clock.now();
  const free = held(sql`${id}`).map((holds) => sql`AND NOT (${holds})`);
  // The children follow only a deletion this batch made.
  const deletedNow = sql`(SELECT c.deleted_at FROM courses c WHERE ${inSchool("c", ctx.tenantId)} AND c.id = ${id}) = ${now}`;
  const cascade = (table: SQL) =>
    batchable(ctx, sql`UPDATE ${table} SET deleted_at = ${now}, updated_at = ${now}
      WHERE ${inSchool(ctx.tenantId)} AND course_id = ${id} AND deleted_at IS NULL AND ${deletedNow}`);
  const [deleted] = await runBatch(ctx, [
    batchable(ctx, sql`UPDATE courses SET deleted_at = ${now}, updated_at = ${now}
      WHERE ${inSchool(ctx.tenantId)} AND id = ${id} AND deleted_at IS NULL ${sql.join(free, sql` `)}`),
    cascade(sql`course_modules`),
    cascade(sql`lessons`),
    cascade(sql`blocks`),
  ]);
  // Deleted or linked since the check: it answers as it now stands.
  if (changedRows(deleted) === 0) await check();
}

/**
 * PATCH /t/courses/:id/cover-image: a confirmed image of the school (400 `invalid_cover_image`);
 * a course cannot be left without one through this endpoint (no null).
 */
export async function setCourseCover(ctx: SchoolCtx, input: { id: string; body: z.infer<typeof CourseCoverImageBody> }) {
  const coverImageId = input.body.cover_image_id;
  await assetRef("image").check(ctx, { tenantId: ctx.tenantId, field: "cover_image_id", value: coverImageId, invalid: coursesErrors.INVALID_COVER_IMAGE });
  const updated = await ctx.db
    .update(courses)
    .set({ coverImageId, updatedAt: ctx.clock.now() })
    .where(liveRowWhere(courses, ctx.tenantId, input.id))
    .returning({ id: courses.id });
  if (updated.length === 0) throw new ApiError(coursesErrors.COURSE_NOT_FOUND);
  return { cover_image_id: coverImageId };
}
