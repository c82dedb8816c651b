import type { ContentfulStatusCode } from "hono/utils/http-status";

export interface ErrorDetail {
  path: string;
  message: string;
}

/**
 * The one error type of the API. `code` is the spec's identifier, verbatim (some contain spaces,
 * such as `invalid credentials`); `data` carries what the spec says accompanies an error.
 */
export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    message?: string,
    readonly extra: { data?: unknown; details?: ErrorDetail[] } = {},
  ) {
    super(message ?? defaultMessage(status, code));
    this.name = "ApiError";
  }
}

export const unauthorized = () => new ApiError(401, "unauthorized", "Authentication is required or the token is invalid.");

function defaultMessage(status: number, code: string): string {
  const known = MESSAGES[code];
  if (known) return known;
  if (code.includes(" ")) return code.charAt(0).toUpperCase() + code.slice(1) + ".";
  switch (status) {
    case 400:
      return "The request is invalid.";
    case 401:
      return "Authentication is required.";
    case 403:
      return "You do not have access to this resource.";
    case 404:
      return "The resource was not found.";
    case 409:
      return "The request conflicts with the current state.";
    default:
      return code.replaceAll("_", " ");
  }
}

const MESSAGES: Record<string, string> = {
  forbidden: "You do not have access to this resource.",
  permission_denied: "Your role or permissions do not allow this action.",
  PAYMENT_REQUIRED: "The school's subscription is suspended or expired.",
  not_found: "The requested route does not exist.",
  internal_error: "An unexpected error occurred. Quote the request id when reporting it.",
  tenant_header_not_allowed: "The X-Tenant-Subdomain header must not be sent to /admin routes.",
  tenant_required: "This endpoint needs a school: send X-Tenant-Subdomain.",
  email_not_verified: "Confirm your email address before signing in.",
  stale_refresh_token: "This refresh token was just rotated by a concurrent request; use the newest one.",
  session_id_required: "session_id is required.",
  auth_device_id_required: "auth_device_id is required.",
  refresh_token_required: "No refresh token was sent (cookie or refresh_token).",
  invalid_or_expired_email_verification: "The verification link is invalid, expired or already used.",
};
