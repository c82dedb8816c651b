/**
 * The control database's tables (`DB`; migrations/control): the schools with each school's shard,
 * tariffs, payments, sign-in throttling, and the superadmin's account. The superadmin signs in
 * through the same account machinery as school members (sessions, devices and their policy,
 * history, password resets, emails), so those tables exist here too, holding only the platform's
 * rows; the school databases hold them for their own members.
 */
export { tenants } from "./platform/tenants";
export { tariffs, payments } from "./platform/billing";
export { loginFailures, passwordResetCodes } from "./platform/auth-secrets";
export { users, curatorPermissions } from "./platform/users";
export { authDevices, sessions } from "./platform/sessions";
export { devicePolicies, deviceLimitOverrides, deviceEvents, deviceReplacementTokens } from "./platform/device-policies";
export { emailOutbox } from "./platform/outbox";
