import { errorCatalogue } from "../../core/http/errors";

/**
 * Failures of sign-in, session credentials, registration and password reset. The messages are
 * the ones clients have always received, so moving to the catalogue changed no response body.
 */
export const authErrors = errorCatalogue({
  INVALID_CREDENTIALS: [400, "invalid credentials", "Invalid email or password."],
  EMAIL_NOT_VERIFIED: [403, "email_not_verified", "Confirm your email address before signing in."],
  /** The sign-in lock; POST /t/me/password shares it, so a wrong current password answers the same. */
  SIGN_IN_LOCKED: [423, "too many attempts, try again later", "Too many attempts, try again later."],

  SESSION_ID_REQUIRED: [400, "session_id_required", "session_id is required."],
  AUTH_DEVICE_ID_REQUIRED: [400, "auth_device_id_required", "auth_device_id is required."],
  REFRESH_TOKEN_REQUIRED: [400, "refresh_token_required", "No refresh token was sent (cookie or refresh_token)."],

  SCHOOL_OR_EMAIL_TAKEN: [400, "duplicate key", "The slug, subdomain or email is already taken."],
  INVALID_EMAIL_VERIFICATION: [400, "invalid_or_expired_email_verification", "The verification link is invalid, expired or already used."],

  /** The body-validation identifier the contract gives the password-reset endpoints. */
  PASSWORD_RESET_VALIDATION: [400, "validation error", "The request body is invalid."],
  NO_ACCOUNT_FOR_RESET: [404, "no account with this email and school", "No account with this email and school."],
  INVALID_RESET_CODE: [400, "invalid or expired confirmation code", "Invalid or expired confirmation code."],
  RESET_CODE_BLOCKED: [423, "too many attempts, request a new code", "Too many attempts, request a new code."],
});
