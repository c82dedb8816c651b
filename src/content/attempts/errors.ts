import { errorCatalogue } from "../../core/http/errors";

/** Failures of quiz attempts and their grading. */
export const attemptsErrors = errorCatalogue({
  ATTEMPT_NOT_FOUND: [404, "attempt_not_found", "No such attempt."],
  ATTEMPT_ALREADY_SUBMITTED: [409, "attempt_already_submitted", "The attempt is already submitted."],
  ATTEMPT_NOT_SUBMITTED: [409, "attempt_not_submitted", "Only a submitted attempt can be graded."],
  MAX_ATTEMPTS_REACHED: [409, "max_attempts_reached", "Every attempt allowed for this quiz is used."],
  INVALID_ACTOR_ROLE: [400, "invalid_actor_role", "Only a student, curator or admin of the school can take a quiz."],
  QUESTION_NOT_IN_QUIZ: [400, "question_not_in_quiz", "A question_id is not a question of this quiz."],
  /** A question of the quiz that the attempt's random form did not draw (05 section 2). */
  QUESTION_NOT_IN_FORM: [400, "question_not_in_form", "A question_id is not a question of this attempt's form."],
  /** An extension of a quiz or exam attempt without a time limit. */
  ATTEMPT_NOT_TIMED: [409, "attempt_not_timed", "The attempt has no time limit to extend."],
  POINTS_OUT_OF_RANGE: [400, "points_out_of_range", "awarded_points must be between 0 and the question's points."],
});
