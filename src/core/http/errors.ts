export { ApiError, errorCatalogue, type ErrorDetail, type ErrorEntry } from "../lib/errors";
import { ApiError, errorCatalogue, type ErrorDetail } from "../lib/errors";

/** Failures that belong to no area: the guard's, the router's and the validators' defaults. */
export const coreErrors = errorCatalogue({
  UNAUTHORIZED: [401, "unauthorized", "Authentication is required or the token is invalid."],
  FORBIDDEN: [403, "forbidden", "You do not have access to this resource."],
  PERMISSION_DENIED: [403, "permission_denied", "Your role or permissions do not allow this action."],
  PAYMENT_REQUIRED: [403, "PAYMENT_REQUIRED", "The school's subscription is suspended or expired."],
  TENANT_REQUIRED: [403, "tenant_required", "This operation needs a school: send X-Tenant-Subdomain or use the school's own host."],
  ORIGIN_NOT_ALLOWED: [403, "origin_not_allowed", "Requests from this origin are not allowed to sign in or use a session cookie."],
  TENANT_HEADER_NOT_ALLOWED: [400, "tenant_header_not_allowed", "The X-Tenant-Subdomain header must not be sent to /admin routes."],
  ROUTE_NOT_FOUND: [404, "not_found", "The requested route does not exist."],
  BAD_REQUEST: [400, "bad_request", "The request is invalid."],
  INTERNAL_ERROR: [500, "internal_error", "An unexpected error occurred. Quote the request id when reporting it."],
  INVALID_REQUEST_BODY: [400, "invalid_request_body", "The request body is invalid."],
  INVALID_PARAMS: [400, "invalid_params", "The query parameters are invalid."],
  INVALID_ID_FORMAT: [400, "invalid_id_format", "The id in the path is not a valid UUID."],
});

export const unauthorized = () => new ApiError(coreErrors.UNAUTHORIZED);

/** A validation failure under the identifier the route declared for that part of the request. */
export function validationError(code: string, message: string, details?: ErrorDetail[]): ApiError {
  return new ApiError({ status: 400, code, message }, { details });
}
