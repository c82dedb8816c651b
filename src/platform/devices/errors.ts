import { errorCatalogue } from "../../core/http/errors";

/**
 * Failures of the device policy, the device inventory and revocations, of signing in on a device
 * (limit, blocks, replacement, push registration) and of refreshing its session. The messages are
 * the ones clients have always received.
 */
export const devicesErrors = errorCatalogue({
  /** Device endpoints under `/t/users/:id` manage students only; any other id answers this. */
  STUDENT_NOT_FOUND: [404, "user_not_found", "No student with this id in this school."],
  DEVICE_NOT_FOUND: [404, "device_not_found", "No such device for this user."],
  OVERRIDE_NOT_FOUND: [404, "device_policy_override_not_found", "This student has no override in force; the school's device policy applies."],
  SELF_MANAGEMENT_DISABLED: [403, "device_self_management_disabled", "The school does not allow students to manage their devices."],
  /** The body-validation identifier of PATCH /t/tenant/device-policy, for any bad or unknown field. */
  INVALID_DEVICE_POLICY: [400, "invalid_device_policy", "The device policy is invalid."],

  DEVICE_BLOCKED: [403, "device_blocked", "This device is blocked by the school."],
  /** Thrown with `data` (DeviceLimitErrorData): the limit, the active devices and, when allowed, a replacement token. */
  DEVICE_LIMIT_REACHED: [409, "device_limit_reached", "This account is already signed in on the maximum number of devices."],
  INSTALLATION_ID_REQUIRED: [409, "installation_id_required", "This app must send installation_id to sign in; update the app."],
  INVALID_REPLACEMENT_TOKEN: [409, "invalid_device_replacement_token", "The replacement token is wrong, expired or already used; sign in again."],
  SELF_REPLACEMENT_DISABLED: [403, "device_self_replacement_disabled", "The school does not allow replacing a device yourself; ask an administrator."],
  DEVICE_REGISTRATION_FAILED: [503, "device_registration_failed", "The device could not be registered for notifications; sign in again."],

  /** Refreshing a session (./session-service.ts) with a secret a concurrent refresh just rotated. */
  STALE_REFRESH_TOKEN: [409, "stale_refresh_token", "This refresh token was just rotated by a concurrent request; use the newest one."],
});
