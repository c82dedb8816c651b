import { sql } from "drizzle-orm";
import { coursesErrors } from "../courses/errors";
import { addCourseDeleteGuard } from "../common/course-guards";
import { inSchool } from "../../core/db/conditions";

// A course with an enrolled group is refused deletion (409): removing the link first is what takes
// the members' group access away, so a deletion never strands enrollments behind a vanished link.
addCourseDeleteGuard({
  failure: coursesErrors.COURSE_HAS_GROUP_ENROLLMENTS,
  holds: (tenantId, courseId) => sql`EXISTS (SELECT 1 FROM course_group_enrollments cge WHERE ${inSchool("cge", tenantId)} AND cge.course_id = ${courseId})`,
});
