import { errorCatalogue } from "../../core/http/errors";

/** Failures of enrollments (who has access to a course and why). */
export const enrollmentsErrors = errorCatalogue({
  COURSE_NOT_FOUND: [404, "course_not_found", "No such course."],
  COURSE_LOCKED: [409, "course_locked", "The course is locked in your learning path until you complete the previous course."],
  STUDENT_IDS_CAP_EXCEEDED: [400, "student_ids_cap_exceeded", "At most 500 student ids per request."],
  INVALID_BODY: [400, "invalid_body", "student_ids must be 1 to 500 student UUIDs."],
  INVALID_STUDENT_ID: [400, "invalid_student_id", "student_id must be a UUID."],
  ENROLLMENT_NOT_FOUND: [404, "enrollment_not_found", "The student is not enrolled in this course."],
  ENROLLMENT_MANAGED_BY_GROUP: [409, "enrollment_managed_by_group", "The student has access through a group; remove the group's enrollment or the membership instead."],
});
