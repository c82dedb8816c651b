import { errorCatalogue } from "../../core/http/errors";

/** Failures of quizzes and their questions. */
export const quizzesErrors = errorCatalogue({
  QUIZ_NOT_FOUND: [404, "quiz_not_found", "No such quiz."],
  INVALID_COURSE_ID: [400, "invalid_course_id", "course_id must be a UUID."],
  QUIZ_REFERENCED_BY_EXAM: [409, "quiz_referenced_by_exam", "The quiz is a section of an exam; remove it from the exam first."],
  /** A PATCH asking to draw more questions than the quiz has live (05 section 2). */
  QUESTIONS_PER_ATTEMPT_TOO_LARGE: [400, "questions_per_attempt_too_large", "questions_per_attempt is above the quiz's live question count."],
  QUESTION_NOT_FOUND: [404, "question_not_found", "No such question."],
  QUESTION_CONTENT_REQUIRED: [400, "question_content_required", "A question needs a prompt, an image, or both."],
  ANSWER_CONTENT_REQUIRED: [400, "answer_content_required", "Each answer needs a text, an image, or both."],
  INVALID_QUIZ_IMAGE_ASSET: [400, "invalid_quiz_image_asset", "image_asset_id must be a confirmed image of this school."],
  ANSWERS_NOT_ALLOWED_FOR_FREE_TEXT: [400, "answers_not_allowed_for_free_text", "Free-text questions take correct_text, not answers."],
  ANSWERS_NOT_ALLOWED_FOR_MATCHING: [400, "answers_not_allowed_for_matching", "Matching questions take matches, not answers."],
  CORRECT_TEXT_NOT_ALLOWED_FOR_CHOICE: [400, "correct_text_not_allowed_for_choice", "correct_text is for free-text questions only."],
  SINGLE_CHOICE_MULTIPLE_CORRECT: [400, "single_choice_multiple_correct", "A single-choice question has at most one correct answer."],
  MATCHES_NOT_ALLOWED_FOR_NON_MATCHING_QUESTION: [400, "matches_not_allowed_for_non_matching_question", "matches are for matching questions only."],
});
