import { errorCatalogue } from "../../core/http/errors";

/**
 * Failures of the school records: the public branding lookup, the superadmin's school endpoints
 * and the school's own record. The contract spells them per endpoint, validation ones included.
 */
export const tenantsErrors = errorCatalogue({
  /** A school addressed by id (superadmin endpoints) that is missing or soft-deleted. */
  TENANT_NOT_FOUND: [404, "tenant not found", "No such school."],
  /** GET /public/tenant: unknown, pending, billing-blocked and deleted schools answer alike. */
  BRANDING_NOT_FOUND: [404, "tenant_not_found", "No such school."],
  SLUG_OR_SUBDOMAIN_TAKEN: [400, "slug or subdomain already taken", "The slug or subdomain is already taken."],

  /** Query validation of GET /public/tenant (a missing or empty subdomain). */
  SUBDOMAIN_REQUIRED: [400, "subdomain_required", "The subdomain query parameter is required."],
  /** Body validation of the school create and update endpoints. */
  VALIDATION_ERROR: [400, "validation error", "The request is invalid."],
  /** Path-id validation of /admin/tenants/{id}. */
  INVALID_ID_FORMAT: [400, "invalid id format", "The id in the path is not a valid UUID."],
});
