import type { SQL } from "drizzle-orm";
import type { ErrorEntry } from "../../core/http/errors";

/**
 * What keeps a course from being deleted (409): each area that links courses (learning paths,
 * group enrollments) adds one guard when it is built, and `DELETE /courses/:id` checks them all in
 * one read and repeats them as the condition of its UPDATE, so a link made in between still wins.
 */
export interface CourseDeleteGuard {
  failure: ErrorEntry;
  /** SQL true when the course (its id as SQL) is held by this area. */
  holds(tenantId: string, courseId: SQL): SQL;
}

const guards: CourseDeleteGuard[] = [];

export function addCourseDeleteGuard(guard: CourseDeleteGuard): void {
  guards.push(guard);
}

export function courseDeleteGuards(): readonly CourseDeleteGuard[] {
  return guards;
}
