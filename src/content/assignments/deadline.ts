import { sql, type SQL } from "drizzle-orm";
import { refAccessLessonsSql, refAccessPathSql } from "../common/ref-access";
import { effectiveWindowsOfSql, effectiveWindowsSql } from "../common/windows";

/**
 * The student's effective closing date of an assignment (docs/decisions/assignments.md, "Assignments"): over the
 * lessons holding a live `assignment_ref` block naming it that the student reaches, each lesson's
 * closing date is the earliest effective `ends_at` without `allow_after_end` on its chain (course,
 * module, lesson); the assignment closes at the earliest of those. One SQL scalar, epoch
 * milliseconds, NULL when no lesson closes (no lesson reached, or none with a closing window).
 * `assignmentId` and `studentId` may be SQL of the enclosing statement, so one statement serves a
 * worksheet page or a whole set of students (`tenantId` too: the scans pass literals); the late
 * flag, the deadline scans and curator analytics all read this one definition.
 */
export function assignmentClosingSql(tenantId: string | SQL, assignmentId: SQL | string, studentId: SQL | string): SQL<number | null> {
  const chain = effectiveWindowsSql(tenantId, sql`acl_l.course_id`, studentId, {
    nodeIds: [sql`acl_l.course_id`, sql`acl_l.module_id`, sql`acl_l.id`],
  });
  return sql<number | null>`(SELECT min((SELECT min(acl_w.ends_at) FROM (${chain}) acl_w WHERE acl_w.allow_after_end = 0))
    FROM (${refAccessLessonsSql("assignment_ref", tenantId, assignmentId, studentId)}) acl_l)`;
}

/**
 * `assignmentClosingSql` for a set of pairs at once: `pairs` names a relation (a common table) with
 * columns `student_id, assignment_id`; rows `(student_id, assignment_id, closes_at)` for the pairs
 * whose student reaches a lesson holding the assignment (`closes_at` NULL when none of those
 * closes; no row when none is reached, which reads as NULL too). The same definition: the lessons
 * reached through the same access path, the earliest effective `ends_at` without `allow_after_end`
 * over each lesson's chain, the earliest over the lessons (a minimum over lessons of a minimum over
 * nodes is the minimum over both). The reach and the windows are read once for the set
 * (`effectiveWindowsOfSql`) instead of once per pair.
 */
export function assignmentClosingOfSql(tenantId: string | SQL, pairs: SQL): SQL {
  const reach = refAccessPathSql("assignment_ref", tenantId, sql`acp_p.assignment_id`, sql`acp_p.student_id`, sql`${pairs} acp_p`);
  return sql`WITH acp_l AS MATERIALIZED (SELECT DISTINCT acp_p.student_id, acp_p.assignment_id, qa_l.id AS lesson_id, qa_l.module_id, qa_l.course_id ${reach}),
      acp_sc AS MATERIALIZED (SELECT DISTINCT student_id, course_id FROM acp_l),
      acp_w AS MATERIALIZED (${effectiveWindowsOfSql(tenantId, sql`acp_sc`)})
    SELECT l.student_id, l.assignment_id, min(w.ends_at) AS closes_at FROM acp_l l
      LEFT JOIN acp_w w ON w.student_id = l.student_id AND w.course_id = l.course_id
        AND w.node_id IN (l.course_id, l.module_id, l.lesson_id) AND w.allow_after_end = 0
    GROUP BY l.student_id, l.assignment_id`;
}
