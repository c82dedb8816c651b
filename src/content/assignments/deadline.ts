import { sql, type SQL } from "drizzle-orm";
import { refAccessLessonsSql } from "../common/ref-access";
import { effectiveWindowsSql } from "../common/windows";

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
