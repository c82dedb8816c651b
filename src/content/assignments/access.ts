import { sql, type SQL } from "drizzle-orm";
import { refAccessPathSql } from "../common/ref-access";
import { inSchool, liveInSchool } from "../../core/db/conditions";

/**
 * Who an assignment is for (docs/decisions/assignments.md, "Assignments"). Its group targets are an allow-list
 * read the way lesson access groups are: no target naming a live group means open to every
 * student of the school; otherwise only members of a targeted live group reach it (list, detail,
 * progress, new submissions). Plain SQL, so reads fold it into their own statement.
 */
export function assignmentTargetsStudentSql(tenantId: string, assignmentId: SQL | string, studentId: SQL | string): SQL {
  return sql`(NOT EXISTS (SELECT 1 FROM assignment_group_targets agt JOIN groups g ON g.id = agt.group_id AND ${liveInSchool("g", tenantId)}
                          WHERE ${inSchool("agt", tenantId)} AND agt.assignment_id = ${assignmentId})
          OR EXISTS (SELECT 1 FROM assignment_group_targets agt JOIN groups g ON g.id = agt.group_id AND ${liveInSchool("g", tenantId)}
                       JOIN group_members gm ON gm.group_id = agt.group_id AND ${inSchool("gm", tenantId)} AND gm.user_id = ${studentId}
                     WHERE ${inSchool("agt", tenantId)} AND agt.assignment_id = ${assignmentId}))`;
}

/** SQL true when the student reaches the assignment through a course: an `assignment_ref` block in a lesson they may open. */
export function assignmentInStudentCourseSql(tenantId: string, assignmentId: SQL | string, studentId: SQL | string): SQL {
  return sql`EXISTS (SELECT 1 ${refAccessPathSql("assignment_ref", tenantId, assignmentId, studentId)})`;
}

/** SQL true when some live block of a live course names the assignment (it is not standalone). */
export function assignmentInAnyCourseSql(tenantId: string, assignmentId: SQL | string): SQL {
  return sql`EXISTS (SELECT 1 FROM blocks ab JOIN courses ac ON ac.id = ab.course_id AND ${liveInSchool("ac", tenantId)}
                      WHERE ${inSchool("ab", tenantId)} AND ab.ref_id = ${assignmentId} AND ab.type = 'assignment_ref' AND ab.deleted_at IS NULL)`;
}
