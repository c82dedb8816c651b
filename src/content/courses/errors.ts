import { errorCatalogue } from "../../core/http/errors";

/** Failures of the course tree: courses, modules, lessons, blocks and block completion. */
export const coursesErrors = errorCatalogue({
  DUPLICATE_SLUG: [400, "duplicate_slug", "Another course of this school already uses this slug."],
  COURSE_NOT_FOUND: [404, "course_not_found", "No such course."],
  INVALID_COVER_IMAGE: [400, "invalid_cover_image", "cover_image_id must be a confirmed image of this school."],
  COURSE_IN_ACTIVE_PATH: [409, "course_in_active_path", "The course is part of a published learning path; remove it from the path first."],
  COURSE_HAS_GROUP_ENROLLMENTS: [409, "course_has_group_enrollments", "Groups are enrolled in the course; remove their enrollments first."],

  MODULE_NOT_FOUND: [404, "module_not_found", "No such module."],
  LESSON_NOT_FOUND: [404, "lesson_not_found", "No such lesson."],
  GROUP_NOT_IN_TENANT: [400, "group_not_in_tenant", "Every group must be a group of this school."],

  BLOCK_NOT_FOUND: [404, "block_not_found", "No such block."],
  INVALID_BLOCK_TYPE: [400, "invalid_block_type", "type must be one of text, video, image, pdf, file, embed, quiz_ref, assignment_ref, exam_ref."],
  INVALID_BLOCK_PAYLOAD: [400, "invalid_block_payload", "The payload does not fit the block's type."],
  BLOCK_REF_NOT_FOUND: [400, "block_ref_not_found", "The payload names an object this school does not have."],
  BLOCK_TYPE_IMMUTABLE: [400, "block_type_immutable", "A block's type cannot change; create a new block instead."],
  BLOCK_TYPE_COMPLETED_VIA_DOMAIN: [400, "block_type_completed_via_domain", "A quiz block completes when the quiz is passed, not by hand."],
  ASSIGNMENT_NOT_SUBMITTED: [422, "assignment_not_submitted", "Submit the assignment before marking this block complete."],
  SEQUENTIAL_ORDER_REQUIRED: [409, "sequential_order_required", "Complete the earlier blocks of the course first."],
});
