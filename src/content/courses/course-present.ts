import type { SchoolCtx } from "../../core/http/context";
import { percent, roundDiv } from "../../core/db/decimal";
import { iso, isoOrNull } from "../../core/lib/clock";
import type { courses } from "../../db/schema";
import { mediaUrl } from "../../platform/media/links";
import { isStaff } from "../common/access";
import { nodeStatus, parseNodeWindow, type EffectiveWindow, type WindowStatus } from "../common/windows";
import type { CourseDetailRow, CourseListRow } from "./course-read";

type Presenter = Pick<SchoolCtx, "actor" | "tenantId" | "clock" | "config" | "publicOrigin">;

export type CourseRow = Pick<
  typeof courses.$inferSelect,
  "id" | "tenantId" | "title" | "slug" | "description" | "status" | "sequentialRequired" | "position" | "coverImageId" | "createdAt" | "updatedAt"
>;

/** The student's enrollment as the course reads carry it (all null when not enrolled). */
interface EnrollmentFields {
  enrollmentId: string | null;
  blocksCompleted: number | null;
  snapshotBlocks: number | null;
  completedAt: number | null;
  /** The student's effective window on the course, as the read's JSON column carries it. */
  courseWindow: string | null;
}

/** A course's date window for a student: their effective window (the schedule area's rule). */
export type CourseWindow = EffectiveWindow;

export type CourseWindowStatus = WindowStatus;

/**
 * A student's window status on a course: closed before `starts_at` unless `allow_before_start`,
 * closed after `ends_at` unless `allow_after_end`; open without a window.
 */
export function courseWindowStatus(window: CourseWindow | null, now: number): CourseWindowStatus {
  return window ? nodeStatus(new Map([["course", window]]), ["course"], now) : { locked: false, locked_reason: null, available_from: null, available_until: null };
}

/** The fields every course answer has. */
export async function presentCourse(ctx: Presenter, row: CourseRow, enrolled: boolean) {
  return {
    id: row.id,
    tenant_id: row.tenantId,
    title: row.title,
    slug: row.slug,
    description: row.description,
    status: row.status,
    sequential_required: row.sequentialRequired,
    position: row.position,
    cover_image_id: row.coverImageId,
    cover_image_url: (await mediaUrl(ctx, ctx.tenantId, row.coverImageId)) ?? "",
    auth_has_access: enrolled && !isStaff(ctx.actor),
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  };
}

/** What only a student sees: their progress when enrolled, and the course's window status. */
function studentFields(ctx: Presenter, row: EnrollmentFields) {
  if (isStaff(ctx.actor)) return {};
  const progress =
    row.enrollmentId === null
      ? {}
      : {
          progress: {
            blocks_completed: row.blocksCompleted ?? 0,
            total_blocks: row.snapshotBlocks ?? 0,
            pct: percent(row.blocksCompleted ?? 0, row.snapshotBlocks ?? 0),
            completed_at: isoOrNull(row.completedAt),
          },
        };
  return { ...progress, ...courseWindowStatus(parseNodeWindow(row.courseWindow), ctx.clock.now()) };
}

export async function presentCourseListItem(ctx: Presenter, row: CourseListRow) {
  return {
    ...(await presentCourse(ctx, row, row.enrollmentId !== null)),
    students_count: row.studentsCount,
    // An integer in course lists (Document 2 wins over the two-decimal `*_rate` of 03-open-points).
    completion_rate: row.studentsCount === 0 ? 0 : roundDiv(100 * Math.min(row.completedCount, row.studentsCount), row.studentsCount),
    total_blocks: row.totalBlocks,
    ...studentFields(ctx, row),
  };
}

export async function presentCourseDetail(ctx: Presenter, row: CourseDetailRow) {
  const student = studentFields(ctx, row);
  const resume =
    "progress" in student && row.resumeModuleId !== null && row.resumeLessonId !== null && row.resumeLessonIndex !== null
      ? { resume: { lesson_index: row.resumeLessonIndex, module_id: row.resumeModuleId, lesson_id: row.resumeLessonId } }
      : {};
  return {
    ...(await presentCourse(ctx, row, row.enrollmentId !== null)),
    total_blocks: row.totalBlocks,
    total_lessons: row.totalLessons,
    total_students: row.totalStudents,
    ...student,
    ...resume,
  };
}

/** A course just created: a staff member's view, nothing under it yet. */
export async function presentNewCourse(ctx: Presenter, row: CourseRow) {
  return { ...(await presentCourse(ctx, row, false)), total_blocks: 0, total_lessons: 0, total_students: 0 };
}
