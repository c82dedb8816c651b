import { errorCatalogue } from "../../core/http/errors";

/** Failures of a question regrade (05 section 2). */
export const regradeErrors = errorCatalogue({
  /** Unknown, another school's, deleted, or of a deleted quiz. */
  QUESTION_NOT_FOUND: [404, "question_not_found", "No such question."],
  REGRADE_KEY_REQUIRED: [400, "regrade_key_required", "mode new_key needs correct_answer_ids (choice questions) or correct_text (free text)."],
  /** The body does not fit the question (a key of the other type, unknown answers, a key for another mode). */
  INVALID_REQUEST_BODY: [400, "invalid_request_body", "The request body does not fit this question."],
  REGRADE_IN_PROGRESS: [409, "regrade_in_progress", "Another regrade of this quiz is running; try again when it has finished."],
});
