import { sql } from "drizzle-orm";
import { coursesErrors } from "../courses/errors";
import { addCourseDeleteGuard } from "../common/course-guards";
import { inSchool, liveInSchool } from "../../core/db/conditions";

// A course in a published path is refused deletion (409): students follow the path through it, so
// it leaves the path first (or the path is unpublished). A draft path does not hold its courses.
addCourseDeleteGuard({
  failure: coursesErrors.COURSE_IN_ACTIVE_PATH,
  holds: (tenantId, courseId) => sql`EXISTS (SELECT 1 FROM learning_path_courses l
    JOIN learning_paths p ON p.id = l.path_id AND ${liveInSchool("p", tenantId)} AND p.status = 'published'
    WHERE ${inSchool("l", tenantId)} AND l.course_id = ${courseId})`,
});
