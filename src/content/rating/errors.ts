import { errorCatalogue } from "../../core/http/errors";

/** Failures of point rules, adjustments and the rating reads (identifiers exactly as the spec writes them, spaces included). */
export const ratingErrors = errorCatalogue({
  INVALID_CALC_MODE: [400, "invalid_calc_mode", "calc_mode must be fixed, raw or above_threshold."],
  ASSIGNMENT_NO_PASSING_SCORE: [400, "assignment_no_passing_score", "Assignments have no passing score: use threshold_source rule_specified with a threshold_value."],
  ASSIGNMENT_PASSED_REQUIRES_THRESHOLD: [400, "assignment_passed_requires_threshold", "For assignments, above_threshold and award_only_if_passed need a threshold_value."],
  INVALID_TARGET_ID: [400, "invalid_target_id", "target_id must be a UUID."],
  RULE_NOT_FOUND: [404, "rule_not_found", "No such override."],
  STUDENT_NOT_FOUND: [404, "student_not_found", "No such student."],
  INVALID_ID: [400, "invalid_id", "id must be a UUID."],
  INVALID_TIME: [400, "invalid_time", "from and to must be RFC 3339 timestamps, from before to."],
  INVALID_SIGN: [400, "invalid_sign", "sign must be positive, negative or all."],
  INVALID_GROUP_ID: [400, "invalid group_id", "group_id must be a UUID."],
  INVALID_MODULE_ID: [400, "invalid module_id", "module_id must be a UUID."],
  INVALID_SOURCE_ID: [400, "invalid source_id", "source_id must be a UUID."],
});
