import { sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "../../core/db/batch";
import type { SchoolActor, SchoolCtx } from "../../core/http/context";
import { enqueue } from "../../platform/notifications/enqueue";
import { inSchool } from "../../core/db/conditions";

/**
 * The two course pushes (#31, #32) over a set of students, for the batch of whichever write gives
 * or takes access (direct bulk enrollment, removal, a group's course link). Each student gets their
 * own row; the version in the dedupe key is the batch's timestamp, which is the `enrolled_at` or
 * `removed_at` the write stores, so a retry writes nothing and a later genuine repeat sends again.
 */

const courseTitleSql = (tenantId: string, courseId: string) => sql`(SELECT c.title FROM courses c WHERE c.id = ${courseId} AND ${inSchool("c", tenantId)})`;

interface CoursePush {
  courseId: string;
  /** A SELECT of the students' ids. */
  students: SQL;
  /** The batch's timestamp. */
  now: number;
  /** SQL that must hold when the statement runs. */
  when?: SQL;
}

/** `course.enrolled` to students who got new access to the course. */
export function courseEnrolledPush(ctx: SchoolCtx<SchoolActor>, input: CoursePush): Promise<BatchItem> {
  const { courseId, now } = input;
  return enqueue(
    ctx,
    "course.enrolled",
    { token: "student", studentIds: input.students },
    { course_title: courseTitleSql(ctx.tenantId, courseId) },
    { id: courseId },
    `course.enrolled:${courseId}:${now}`,
    input.when ? { when: input.when } : {},
  );
}

/** `course.unenrolled` to students whose last access source on the course went. */
export function courseUnenrolledPush(ctx: SchoolCtx<SchoolActor>, input: CoursePush): Promise<BatchItem> {
  const { courseId, now } = input;
  return enqueue(
    ctx,
    "course.unenrolled",
    { token: "student", studentIds: input.students },
    { course_title: courseTitleSql(ctx.tenantId, courseId) },
    { id: courseId },
    `course.unenrolled:${courseId}:${now}`,
    input.when ? { when: input.when } : {},
  );
}
