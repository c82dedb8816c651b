import { sql, type SQL } from "drizzle-orm";
import { inSchool, liveInSchool } from "../../core/db/conditions";

/** A path's courses as students see them, and its registry (the unlock rule is common/path-unlock.ts). */

/** The live published courses of a path (its id as SQL) as students see them: a SELECT of course ids. */
export function studentCourseIdsSql(tenantId: string, pathId: string | SQL): SQL {
  return sql`SELECT l.course_id FROM learning_path_courses l
      JOIN courses c ON c.id = l.course_id AND ${liveInSchool("c", tenantId)} AND c.status = 'published'
    WHERE ${inSchool("l", tenantId)} AND l.path_id = ${pathId}`;
}

/**
 * SQL true when the student (alias or id as SQL) is in the path's registry: an active enrollment in
 * one of its live published courses.
 */
export function inPathRegistrySql(tenantId: string, pathId: string | SQL, studentId: SQL): SQL {
  return sql`EXISTS (SELECT 1 FROM enrollments re
    WHERE ${inSchool("re", tenantId)} AND re.student_id = ${studentId} AND re.removed_at IS NULL
      AND re.course_id IN (${studentCourseIdsSql(tenantId, pathId)}))`;
}
