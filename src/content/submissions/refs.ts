import { sql } from "drizzle-orm";
import { registerAssignmentSubmitted } from "../courses/references";
import { inSchool } from "../../core/db/conditions";

/**
 * What submissions tell the course tree (loaded with the submission routes): `POST
 * /blocks/:id/complete` accepts an `assignment_ref` block once the student has handed the
 * assignment in (a submission submitted, accepted or rejected; a draft, even a reopened one, is
 * not handed in).
 */
registerAssignmentSubmitted(
  (tenantId, assignmentId, studentId) =>
    sql`EXISTS (SELECT 1 FROM submissions rs WHERE ${inSchool("rs", tenantId)} AND rs.assignment_id = ${assignmentId} AND rs.student_id = ${studentId}
      AND rs.status IN ('submitted', 'accepted', 'rejected'))`,
);
