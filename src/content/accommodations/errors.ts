import { errorCatalogue } from "../../core/http/errors";

/** Failures of accommodation profiles (05 section 1). */
export const accommodationsErrors = errorCatalogue({
  /** Unknown, another school's, deleted, or outside a restricted curator's scope. */
  USER_NOT_FOUND: [404, "user_not_found", "User not found."],
  NOT_A_STUDENT: [400, "not_a_student", "Accommodations are for students; this user is staff."],
});
