export * from "./tenants";
export * from "./users";
export * from "./groups";
export * from "./sessions";
export * from "./auth-secrets";
export * from "./outbox";
export * from "./device-policies";
