import { errorCatalogue } from "../../core/http/errors";

/** Failures of the audit-log read (05 section 6). */
export const auditErrors = errorCatalogue({
  /** A query value the schema cannot catch alone: `from` after `to`. */
  INVALID_PARAMS: [400, "invalid_params", "The query parameters are invalid."],
});
