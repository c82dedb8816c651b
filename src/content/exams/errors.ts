import { errorCatalogue } from "../../core/http/errors";

/** Failures of exams, their sections and exam attempts. */
export const examsErrors = errorCatalogue({
  EXAM_NOT_FOUND: [404, "exam_not_found", "No such exam."],
  INVALID_STATUS: [400, "invalid_status", "status must be published or draft."],
  EXAM_PUBLISHED_IMMUTABLE: [409, "exam_published_immutable", "time_limit_seconds, passing_score, max_attempts and retake_policy cannot change on a published exam."],
  EXAM_HAS_IN_PROGRESS_ATTEMPTS: [409, "exam_has_in_progress_attempts", "The exam has attempts in progress; delete it after they finish."],
  EXAM_SECTION_REQUIRED: [400, "exam_section_required", "Add at least one section before publishing the exam."],
  EXAM_ALREADY_PUBLISHED: [409, "exam_already_published", "The exam is already published."],
  INVALID_WEIGHT: [400, "invalid_weight", "weight must be a whole number from 1 to 1000."],
  EXAM_SECTION_NOT_FOUND: [404, "exam_section_not_found", "No such section in this exam."],
  EXAM_NOT_PUBLISHED: [400, "exam_not_published", "The exam is not published."],
  MAX_EXAM_ATTEMPTS_REACHED: [409, "max_exam_attempts_reached", "Every attempt allowed for this exam is used."],
  EXAM_ATTEMPT_NOT_FOUND: [404, "exam_attempt_not_found", "No such exam attempt."],
  INVALID_SECTION_INDEX: [400, "invalid_section_index", "section_index must be the 0-based index of a section of the exam."],
  EXAM_ATTEMPT_ALREADY_SUBMITTED: [409, "exam_attempt_already_submitted", "The exam attempt is already submitted."],
  QUESTION_NOT_IN_SECTION: [400, "question_not_in_section", "A question_id is not a question of this section's quiz."],
});
