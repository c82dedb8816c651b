/**
 * The school databases' tables (`DB_SCHOOLS_<n>`; migrations/school): everything of a school's
 * people and content, each row with its `tenant_id` (many schools share a shard).
 */
export * from "./platform/users";
export * from "./platform/groups";
export * from "./platform/sessions";
export { emailVerificationTokens, passwordResetCodes } from "./platform/auth-secrets";
export * from "./platform/outbox";
export * from "./platform/device-policies";
export * from "./platform/notifications";
export * from "./platform/media";
export * from "./platform/audit";
export * from "./platform/data-exports";
export * from "./content/courses";
export * from "./content/enrollments";
export * from "./content/groups";
export * from "./content/paths";
export * from "./content/schedules";
export * from "./content/quizzes";
export * from "./content/exams";
export * from "./content/assignments";
export * from "./content/rating";
export * from "./content/analytics";
export * from "./content/accommodations";
export * from "./content/imports";
export * from "./platform/webhooks";
export * from "./content/certificates";
export * from "./content/item-analysis";
export * from "./content/regrades";
