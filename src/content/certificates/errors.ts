import { errorCatalogue } from "../../core/http/errors";

/** Failures of certificates (05 section 4). */
export const certificatesErrors = errorCatalogue({
  /** Unknown, another school's or deleted. */
  COURSE_NOT_FOUND: [404, "course_not_found", "Course not found."],
  /** Not a published, live exam of the school. */
  INVALID_EXAM_ID: [400, "invalid_exam_id", "require_exam_id must be a published exam of the school."],
  /** Unknown, another school's, outside the caller's scope, or (verify) a malformed code. */
  CERTIFICATE_NOT_FOUND: [404, "certificate_not_found", "Certificate not found."],
  ALREADY_REVOKED: [409, "certificate_already_revoked", "The certificate is already revoked."],
  RATE_LIMITED: [429, "rate_limited", "Too many look-ups from this address; retry after the time in Retry-After."],
});
