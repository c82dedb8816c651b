import { sql, type SQL } from "drizzle-orm";
import { inSchool, liveInSchool } from "../../core/db/conditions";

/**
 * The unlock rule of learning paths, written once as a relation every reader and writer of path
 * state selects from (the student view, the registry, the self-enrollment lock, the completion
 * pushes), so they cannot disagree.
 *
 * A path's courses, for students, are its live published courses in `position, course_id` order
 * (a draft or deleted course is skipped: it neither shows nor blocks). For a student, a course is
 * `completed` when the student's active enrollment in it has `completed_at`; `unlocked` when it is
 * the first course or the course before it is completed; else `locked`. `unlocked_at` is the
 * active enrollment's `enrolled_at` once the course is not locked (null otherwise, and null while
 * not enrolled).
 *
 * The rule lives in content/common because enrollments read it (the self-enrollment lock) below
 * the paths area, which is built over courses and enrollments (docs/decisions/content-layers.md,
 * "Path unlock rule").
 */

const STATUS = sql`CASE
    WHEN s.completed_at IS NOT NULL THEN 'completed'
    WHEN LAG(s.completed_at IS NOT NULL, 1, 1) OVER (PARTITION BY s.student_id, s.path_id ORDER BY s.position, s.course_id) THEN 'unlocked'
    ELSE 'locked' END`;

/**
 * One row per (student, path, course): `path_id`, `course_id`, `position`, `course_title`,
 * `student_id`, `enrolled_at`, `completed_at`, `prev_course_id` (the course before it, NULL for the
 * first), `status` and `unlocked_at`. For one `student` (any caller: a superadmin acting on the
 * school too), or for `students`, a SELECT of the school's user ids; `paths` is a condition on the
 * live path alias `p`. Use it as a derived table: `FROM (${pathCourseStatesSql(…)}) st`.
 */
export function pathCourseStatesSql(tenantId: string, input: ({ student: string | SQL } | { students: SQL }) & { paths: SQL }): SQL {
  const who =
    "student" in input
      ? sql`JOIN (SELECT ${input.student} AS id) su`
      : sql`JOIN users su ON ${inSchool("su", tenantId)} AND su.id IN (${input.students})`;
  const ordered = sql`SELECT s.*,
      LAG(s.course_id) OVER (PARTITION BY s.student_id, s.path_id ORDER BY s.position, s.course_id) AS prev_course_id,
      ${STATUS} AS status
    FROM (
      SELECT l.path_id, l.course_id, l.position, c.title AS course_title, su.id AS student_id, e.enrolled_at, e.completed_at
      FROM learning_path_courses l
        JOIN learning_paths p ON p.id = l.path_id AND ${liveInSchool("p", tenantId)}
        JOIN courses c ON c.id = l.course_id AND ${liveInSchool("c", tenantId)} AND c.status = 'published'
        ${who}
        LEFT JOIN enrollments e ON ${inSchool("e", tenantId)} AND e.course_id = l.course_id AND e.student_id = su.id AND e.removed_at IS NULL
      WHERE ${inSchool("l", tenantId)} AND ${input.paths}
    ) s`;
  return sql`SELECT o.*, CASE WHEN o.status = 'locked' THEN NULL ELSE o.enrolled_at END AS unlocked_at FROM (${ordered}) o`;
}

/**
 * SQL true while the course is `locked` for the student in every published path that holds it
 * (and at least one does): self-enrollment is then refused. A course in no published path is
 * never locked.
 */
export function courseLockedSql(tenantId: string, courseId: string | SQL, studentId: string | SQL): SQL {
  const states = pathCourseStatesSql(tenantId, {
    student: studentId,
    paths: sql`p.status = 'published' AND p.id IN (SELECT h.path_id FROM learning_path_courses h WHERE ${inSchool("h", tenantId)} AND h.course_id = ${courseId})`,
  });
  return sql`(COALESCE((SELECT MIN(st.status = 'locked') FROM (${states}) st WHERE st.course_id = ${courseId}), 0) = 1)`;
}

/**
 * JSON array of the published live paths that hold the course (its id as SQL) among their published
 * courses: what a completing source reads so that `course.completed` names the paths it may advance.
 */
export function publishedPathsHoldingSql(tenantId: string, courseId: SQL): SQL {
  return sql`(SELECT json_group_array(hp.id) FROM learning_paths hp
    WHERE ${liveInSchool("hp", tenantId)} AND hp.status = 'published'
      AND EXISTS (SELECT 1 FROM learning_path_courses hl
        JOIN courses hc ON hc.id = hl.course_id AND ${liveInSchool("hc", tenantId)} AND hc.status = 'published'
        WHERE ${inSchool("hl", tenantId)} AND hl.path_id = hp.id AND hl.course_id = ${courseId}))`;
}
