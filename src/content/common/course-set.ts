import { is, SQL, sql } from "drizzle-orm";

/**
 * Several courses for one statement: a SELECT of course ids of the school (the courses a group is
 * enrolled in). A membership change of a group touches every course the group is enrolled in, and
 * passing them as a set keeps it one statement per step however many courses there are.
 */
export interface CourseSet {
  in: SQL;
}

/** The course a statement works on: an id, a scalar SQL naming one, or a set of courses. */
export type CourseRef = string | SQL | CourseSet;

export function isCourseSet(course: CourseRef): course is CourseSet {
  return typeof course === "object" && !is(course, SQL);
}

/** `column` names the course (or one of the set). */
export function courseMatch(column: SQL, course: CourseRef): SQL {
  return isCourseSet(course) ? sql`${column} IN (${course.in})` : sql`${column} = ${course}`;
}
