import { errorCatalogue } from "../../core/http/errors";

/** Failures of learning paths (ordered sets of courses a student unlocks one after the other). */
export const pathsErrors = errorCatalogue({
  PATH_NOT_FOUND: [404, "path_not_found", "No such learning path."],
  INVALID_STATUS_FILTER: [400, "invalid_status_filter", "status must be draft or published."],
  PATH_PUBLISH_EMPTY: [409, "path_publish_empty", "Add at least one course before publishing the path."],
  COURSE_NOT_IN_TENANT: [400, "course_not_in_tenant", "Every course must be a course of this school."],
  COURSE_ALREADY_IN_PATH: [409, "course_already_in_path", "The list names a course more than once."],
});
