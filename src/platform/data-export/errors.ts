import { errorCatalogue } from "../../core/http/errors";

/** Failures of personal-data exports (05 section 7), then the project's own signed download link. */
export const dataExportErrors = errorCatalogue({
  /** One export per person per 24 hours (whoever asked); `Retry-After` says when the next one may start. */
  EXPORT_RATE_LIMITED: [429, "export_rate_limited", "An export of this person's data was started in the last 24 hours; try again later."],
  /** POST /t/users/:id/data-export: no live user of this school. */
  USER_NOT_FOUND: [404, "user_not_found", "User not found."],
  /** Unknown, another school's, expired, or neither asked for by the caller nor read by an admin. */
  DATA_EXPORT_NOT_FOUND: [404, "data_export_not_found", "No such data export."],
  /** The signed download link. */
  LINK_EXPIRED: [403, "data_export_link_expired", "The download link has expired; read the export again for a fresh one."],
});
