import type { ContentfulStatusCode } from "hono/utils/http-status";

export interface ErrorDetail {
  path: string;
  message: string;
}

/** One failure an endpoint can answer: the spec's identifier verbatim, its status and a readable text. */
export interface ErrorEntry {
  readonly status: ContentfulStatusCode;
  /** The spec's identifier, verbatim (some contain spaces, such as `invalid credentials`). */
  readonly code: string;
  readonly message: string;
}

type EntrySpec = readonly [status: ContentfulStatusCode, code: string, message: string];

/**
 * An area's error catalogue: `KEY: [status, identifier, message]`. Services throw these entries and
 * routes document them (`defineRoute({ failures })`), so behaviour and documentation share one source.
 * Keys are SCREAMING_SNAKE_CASE named after the situation, whatever the identifier's spelling.
 */
export function errorCatalogue<const T extends Record<string, EntrySpec>>(
  entries: T,
): { readonly [K in keyof T]: ErrorEntry & { readonly status: T[K][0]; readonly code: T[K][1] } } {
  const out: Record<string, ErrorEntry> = {};
  for (const [key, [status, code, message]] of Object.entries(entries)) out[key] = Object.freeze({ status, code, message });
  return out as never;
}

/** The one error type of the API; `data` carries what the spec says accompanies an error. */
export class ApiError extends Error {
  readonly status: ContentfulStatusCode;
  readonly code: string;
  readonly extra: { data?: unknown; details?: ErrorDetail[] };

  constructor(entry: ErrorEntry, extra: { message?: string; data?: unknown; details?: ErrorDetail[] } = {}) {
    super(extra.message ?? entry.message);
    this.name = "ApiError";
    this.status = entry.status;
    this.code = entry.code;
    this.extra = { data: extra.data, details: extra.details };
  }
}

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
