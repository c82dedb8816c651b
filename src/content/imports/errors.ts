import { errorCatalogue } from "../../core/http/errors";

/** Failures of roster imports (05 section 3). */
export const importsErrors = errorCatalogue({
  INVALID_IMPORT_KIND: [400, "invalid_import_kind", "kind must be users, enrollments or group_members."],
  IMPORT_EMPTY: [400, "import_empty", "The file has no data rows."],
  IMPORT_TOO_LARGE: [400, "import_too_large", "The file is larger than 5 MB or has more than 5,000 data rows."],
  IMPORT_MISSING_COLUMNS: [400, "import_missing_columns", "The header line lacks required columns."],
  UNSUPPORTED_MEDIA_TYPE: [415, "unsupported_media_type", "The body must be CSV text (Content-Type: text/csv)."],
  /** Unknown, another school's, or neither the caller's own import nor an admin asking. */
  IMPORT_NOT_FOUND: [404, "import_not_found", "Import not found."],
  IMPORT_HAS_ERRORS: [409, "import_has_errors", "The plan has error rows; send skip_errors: true to apply the other rows."],
  IMPORT_ALREADY_APPLIED: [409, "import_already_applied", "The import has already been applied."],
  IMPORT_PLAN_STALE: [409, "import_plan_stale", "The data changed since the dry run (or plan_hash is not this plan's): upload the file again."],
  IMPORT_EXPIRED: [410, "import_expired", "The import is older than 24 hours; upload the file again."],
});
