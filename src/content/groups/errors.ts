import { errorCatalogue } from "../../core/http/errors";

/** Failures of groups, memberships and course group enrollments. */
export const groupsErrors = errorCatalogue({
  GROUP_NOT_FOUND: [404, "group_not_found", "No such group."],
  GROUP_NAME_REQUIRED: [400, "group_name_required", "A group needs a name (1-120 characters)."],
  INVALID_LOGO: [400, "invalid_request_body", "logo must be a confirmed image of this school or an image URL."],
  CURATOR_NOT_ELIGIBLE: [400, "curator_not_eligible", "The curator must be an active curator of this school."],
  GROUP_HAS_COURSE_ENROLLMENTS: [409, "group_has_course_enrollments", "The group is enrolled in courses; remove its course enrollments first."],
  EMPTY_MEMBER_LIST: [400, "empty_member_list", "student_ids must list at least one student."],
  TOO_MANY_MEMBERS: [400, "too_many_members", "At most 500 student ids per request."],
  CROSS_TENANT_STUDENT: [400, "cross_tenant_student", "None of the students belongs to this school."],
  MEMBER_NOT_FOUND: [404, "member_not_found", "A listed student is not a member of this group."],
  INVALID_COURSE_ID: [400, "invalid_course_id", "The course id in the path is not a valid UUID."],
  INVALID_GROUP_ID: [400, "invalid_group_id", "The group id in the path is not a valid UUID."],
  COURSE_NOT_FOUND: [404, "course_not_found", "No such published course."],
  COURSE_GROUP_ENROLLMENT_NOT_FOUND: [404, "course_group_enrollment_not_found", "The group is not enrolled in this course."],
  INVALID_BODY: [400, "invalid_body", "Send exactly one of group_id or student_ids."],
});
