/**
 * The control database's tables (`DB`; migrations/control): the schools with each school's shard,
 * tariffs, payments, sign-in throttling, and the superadmin's account (users, sessions and devices,
 * password resets and emails of the platform, which school databases hold for their own members).
 */
export { tenants } from "./platform/tenants";
export { tariffs, payments } from "./platform/billing";
export { loginFailures, passwordResetCodes } from "./platform/auth-secrets";
export { users, curatorPermissions } from "./platform/users";
export { authDevices, sessions } from "./platform/sessions";
export { emailOutbox } from "./platform/outbox";
