import { errorCatalogue } from "../../core/http/errors";

/** Failures of assignments, their attachments and group targets, and of submissions. */
export const assignmentsErrors = errorCatalogue({
  ASSIGNMENT_NOT_FOUND: [404, "assignment_not_found", "No such assignment."],
  ATTACHMENT_NOT_FOUND: [404, "attachment_not_found", "No such attachment on this assignment."],
  ATTACHMENT_NOT_IN_TENANT: [400, "attachment_not_in_tenant", "media_asset_id must be a confirmed file of this school."],
  ATTACHMENT_DUPLICATE: [409, "attachment_duplicate", "The file is already attached to this assignment."],
  NOT_AUTHORIZED: [403, "not_authorized", "Only course managers and students enrolled in a course holding the assignment may download its files."],
  STUDENT_ONLY: [403, "student_only", "Only students have assignment progress."],
  STUDENT_NOT_IN_TARGETED_GROUP: [403, "student_not_in_targeted_group", "The assignment is set for groups you are not in."],
  MAX_ATTEMPTS_REACHED: [409, "max_attempts_reached", "Every attempt allowed for this assignment is used."],
  SUBMISSION_NOT_FOUND: [404, "submission_not_found", "No such submission."],
  SUBMISSION_NOT_DRAFT: [409, "submission_not_draft", "Only a draft submission can be changed or submitted."],
  SUBMISSION_NOT_SUBMITTED: [409, "submission_not_submitted", "Only a submitted submission can be reviewed."],
  SUBMISSION_ALREADY_ACCEPTED: [409, "submission_already_accepted", "An accepted submission cannot be reopened."],
  INVALID_SCORE: [400, "invalid_score", "score must be a decimal from 0 to the assignment's max_score (required to accept)."],
});
