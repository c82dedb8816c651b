import { errorCatalogue } from "../../core/http/errors";

/** Failures of the curator analytics read (its query window). */
export const analyticsErrors = errorCatalogue({
  INVALID_FROM: [400, "invalid_from", "from must be an RFC 3339 timestamp with a time zone, such as 2030-09-01T00:00:00Z."],
  INVALID_TO: [400, "invalid_to", "to must be an RFC 3339 timestamp with a time zone, such as 2030-09-30T23:59:59Z."],
  INVALID_DATE_RANGE: [400, "invalid_date_range", "from must not be later than to."],
});
