import { and, asc, eq, isNull, or, sql, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import { containsText, inSchool } from "../../core/db/conditions";
import type { SchoolCtx } from "../../core/http/context";
import { pageOffset } from "../../core/http/pagination";
import { blocks, courseModules, courses, enrollments, lessons } from "../../db/schema";
import { courseVisibleSql, isStaff } from "../common/access";
import { nodeWindowSql } from "../common/windows";

/**
 * The course reads as statements, so a verb can put them in the batch of its write (the answer of
 * PATCH and duplicate) or read several at once (list counts and page). Every aggregate is a
 * subquery of the one statement: a page costs one statement whatever its size.
 */

type Caller = Pick<SchoolCtx, "db" | "tenantId" | "actor">;

export const courseColumns = {
  id: courses.id,
  tenantId: courses.tenantId,
  title: courses.title,
  slug: courses.slug,
  description: courses.description,
  status: courses.status,
  sequentialRequired: courses.sequentialRequired,
  position: courses.position,
  coverImageId: courses.coverImageId,
  createdAt: courses.createdAt,
  updatedAt: courses.updatedAt,
};

/** The caller's own active enrollment in the course (students; staff join nothing). */
function ownEnrollment(ctx: Caller): SQL {
  if (isStaff(ctx.actor)) return sql`0`;
  return and(
    inSchool(enrollments, ctx.tenantId),
    eq(enrollments.courseId, courses.id),
    eq(enrollments.studentId, ctx.actor.userId),
    isNull(enrollments.removedAt),
  )!;
}

/**
 * Selected columns and expressions carry names of their own: inside `db.batch` D1 answers rows as
 * objects keyed by column name, so two columns of one name (`courses.id`, `enrollments.id`) would
 * overwrite each other.
 */
const enrollmentColumns = {
  enrollmentId: sql<string | null>`${enrollments.id}`.as("enrollment_id"),
  blocksCompleted: sql<number | null>`${enrollments.blocksCompleted}`.as("enrollment_blocks_completed"),
  snapshotBlocks: sql<number | null>`${enrollments.totalBlocks}`.as("enrollment_total_blocks"),
  completedAt: sql<number | null>`${enrollments.completedAt}`.as("enrollment_completed_at"),
};

/** A student's effective window on the course (JSON, parsed by the presenter); NULL for staff, who have none. */
function courseWindow(ctx: Caller) {
  const window = isStaff(ctx.actor) ? sql<string | null>`NULL` : nodeWindowSql(ctx.tenantId, sql`${courses.id}`, ctx.actor.userId, sql`${courses.id}`);
  return window.as("course_window");
}

function liveBlocks(tenantId: string) {
  return sql<number>`(SELECT count(*) FROM blocks b WHERE ${inSchool("b", tenantId)} AND b.course_id = ${courses.id} AND b.deleted_at IS NULL)`.as("live_blocks");
}

function activeEnrollments(tenantId: string, completedOnly = false) {
  return sql<number>`(SELECT count(*) FROM enrollments ae WHERE ${inSchool("ae", tenantId)} AND ae.course_id = ${courses.id} AND ae.removed_at IS NULL
    ${completedOnly ? sql`AND ae.completed_at IS NOT NULL` : sql``})`.as(completedOnly ? "completed_enrollments" : "active_enrollments");
}

export interface ListFilters {
  q?: string;
  status?: "published" | "draft";
  enrolled?: boolean;
  page: number;
  limit: number;
}

/** Visibility, the search and (students) the enrollment filter: every filter but `status`. */
function listWhere(ctx: Caller, filters: ListFilters): SQL {
  const enrolled = isStaff(ctx.actor) || filters.enrolled === undefined ? undefined : filters.enrolled ? sql`${enrollments.id} IS NOT NULL` : sql`${enrollments.id} IS NULL`;
  return and(
    courseVisibleSql(ctx, sql`courses`),
    filters.q ? or(containsText(courses.title, filters.q), containsText(courses.description, filters.q)) : undefined,
    enrolled,
  )!;
}

/**
 * GET /t/courses as two statements for one batch: the counts per status and the total (with
 * `status` applied), then the page with its aggregates and the student's enrollment.
 */
export function courseListStatements(ctx: Caller, filters: ListFilters) {
  const where = listWhere(ctx, filters);
  const statusFilter = filters.status ? sql`${courses.status} = ${filters.status}` : sql`1`;
  const counts = ctx.db
    .select({
      all: sql<number>`count(*)`.as("count_all"),
      published: sql<number>`coalesce(sum(${courses.status} = 'published'), 0)`.as("count_published"),
      draft: sql<number>`coalesce(sum(${courses.status} = 'draft'), 0)`.as("count_draft"),
      total: sql<number>`coalesce(sum(${statusFilter}), 0)`.as("count_total"),
    })
    .from(courses)
    .leftJoin(enrollments, ownEnrollment(ctx))
    .where(where);
  const page = ctx.db
    .select({
      ...courseColumns,
      ...enrollmentColumns,
      courseWindow: courseWindow(ctx),
      totalBlocks: liveBlocks(ctx.tenantId),
      studentsCount: activeEnrollments(ctx.tenantId),
      completedCount: activeEnrollments(ctx.tenantId, true),
    })
    .from(courses)
    .leftJoin(enrollments, ownEnrollment(ctx))
    .where(and(where, filters.status ? eq(courses.status, filters.status) : undefined))
    .orderBy(asc(courses.position), asc(courses.createdAt), asc(courses.id))
    .limit(filters.limit)
    .offset(pageOffset(filters.page, filters.limit));
  return { counts, page };
}

export type CourseListRow = Awaited<ReturnType<typeof courseListStatements>["page"]>[number];

const resumeBlock = alias(blocks, "rb");
const resumeLesson = alias(lessons, "rl");
const resumeModule = alias(courseModules, "rm");

/**
 * One course as the caller may see it, with its live totals and, for a student, the enrollment's
 * progress and where to resume: the lesson of the last block opened (when that lesson and its
 * module are still live) and its index among every live lesson of the course.
 */
export function courseDetailStatement(ctx: Caller, id: string) {
  const t = ctx.tenantId;
  return ctx.db
    .select({
      ...courseColumns,
      ...enrollmentColumns,
      courseWindow: courseWindow(ctx),
      totalBlocks: liveBlocks(t),
      totalLessons: sql<number>`(SELECT count(*) FROM lessons tl WHERE ${inSchool("tl", t)} AND tl.course_id = ${courses.id} AND tl.deleted_at IS NULL)`.as("live_lessons"),
      totalStudents: activeEnrollments(t),
      resumeModuleId: sql<string | null>`${resumeModule.id}`.as("resume_module_id"),
      resumeLessonId: sql<string | null>`${resumeLesson.id}`.as("resume_lesson_id"),
      resumeLessonIndex: sql<number | null>`CASE WHEN ${resumeModule.id} IS NOT NULL THEN (SELECT count(*) FROM lessons il
          JOIN course_modules im ON im.id = il.module_id AND im.deleted_at IS NULL
        WHERE ${inSchool("il", t)} AND il.course_id = ${courses.id} AND il.deleted_at IS NULL
          AND (im.position, im.id, il.position, il.id) < (${resumeModule.position}, ${resumeModule.id}, ${resumeLesson.position}, ${resumeLesson.id})) END`.as("resume_lesson_index"),
    })
    .from(courses)
    .leftJoin(enrollments, ownEnrollment(ctx))
    .leftJoin(resumeBlock, and(eq(resumeBlock.id, enrollments.lastAccessedBlockId), inSchool(resumeBlock, t), eq(resumeBlock.courseId, courses.id)))
    .leftJoin(resumeLesson, and(eq(resumeLesson.id, resumeBlock.lessonId), inSchool(resumeLesson, t), isNull(resumeLesson.deletedAt)))
    .leftJoin(resumeModule, and(eq(resumeModule.id, resumeLesson.moduleId), inSchool(resumeModule, t), isNull(resumeModule.deletedAt)))
    .where(and(courseVisibleSql(ctx, sql`courses`), eq(courses.id, id)))
    .limit(1);
}

export type CourseDetailRow = Awaited<ReturnType<typeof courseDetailStatement>>[number];
