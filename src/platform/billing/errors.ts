import { errorCatalogue } from "../../core/http/errors";

/**
 * Failures of the tariff catalog and of school billing. The superadmin billing endpoints keep the
 * contract's spaced identifiers, their validation ones included, so they are listed here too.
 */
export const billingErrors = errorCatalogue({
  TARIFF_NOT_FOUND: [404, "tariff not found", "No such tariff."],
  TARIFF_INACTIVE: [400, "tariff is inactive", "This tariff is not offered any more."],
  /** A school addressed by id that is missing or soft-deleted. */
  TENANT_NOT_FOUND: [404, "tenant not found", "No such school."],

  /** Body validation of POST /admin/tenants/:id/activate (either form). */
  INVALID_ACTIVATION_PAYLOAD: [400, "invalid activation payload", "The activation payload is invalid."],
  /** Body and query validation of the other tariff and billing endpoints. */
  VALIDATION_ERROR: [400, "validation error", "The request is invalid."],
  /** Path-id validation of the tariff and billing endpoints. */
  INVALID_ID_FORMAT: [400, "invalid id format", "The id in the path is not a valid UUID."],
});
