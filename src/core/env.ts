/** The Worker's bindings, vars and secrets, as wrangler.toml and `wrangler secret put` declare them. */
export interface Env {
  DB: D1Database;
  MEDIA: R2Bucket;
  /** Typed where it is used (src/platform/auth/session-service.ts): core knows no Durable Object class. */
  SESSION_FAMILY: DurableObjectNamespace;
  OUTBOX: Queue<EmailMessage>;

  APP_DOMAIN: string;
  APP_URL_SCHEME?: string;
  CORS_ORIGINS?: string;
  ACCESS_TOKEN_TTL_SECONDS?: string;
  REFRESH_TOKEN_TTL_DAYS?: string;
  REFRESH_GRACE_SECONDS?: string;
  TRIAL_DAYS?: string;
  EMAIL_VERIFICATION_TTL_HOURS?: string;
  LEGACY_TOKEN_MODE?: string;
  LEGACY_TOKENS_ISSUED_BEFORE?: string;
  MAIL_PROVIDER?: string;
  MAIL_FROM?: string;
  RESEND_API_KEY?: string;
  RESEND_API_URL?: string;
  DEFAULT_EMAIL_LOCALE?: string;
  DEV_MAILBOX?: string;
  PUSH_TOKEN_KEY?: string;
  INSTALLATION_ID_REQUIRED?: string;

  JWT_SECRETS: string;
  PASSWORD_PEPPER: string;
}

/** "Deliver email outbox row X": the row, not the message, holds the email. */
export interface EmailMessage {
  kind: "email";
  outbox_id: string;
}

/** Every message any queue of the Worker carries; each consumer narrows by `kind`. */
export type QueueMessage = EmailMessage;

export type LegacyTokenMode = "allow" | "existing_only" | "deny";
export type Locale = "ru" | "en";

export interface JwtKey {
  kid: string;
  secret: Uint8Array;
}

export interface Config {
  appDomain: string;
  appUrlScheme: "http" | "https";
  corsOrigins: string[];
  accessTokenTtlSeconds: number;
  refreshTokenTtlDays: number;
  refreshGraceMs: number;
  trialDays: number;
  emailVerificationTtlMs: number;
  legacyTokenMode: LegacyTokenMode;
  /** Legacy tokens issued (iat) before this instant are still accepted in `existing_only` mode. */
  legacyTokensIssuedBefore: number | null;
  mailProvider: "log" | "resend";
  mailFrom: string;
  resendApiKey: string | null;
  resendApiUrl: string;
  defaultEmailLocale: Locale;
  devMailbox: boolean;
  /** Rollout switch: new student sessions must name an `installation_id` (409 `installation_id_required`). */
  installationIdRequired: boolean;
  /** Newest first: the first key signs, every key verifies. */
  jwtKeys: JwtKey[];
  passwordPepper: string;
}

export class ConfigError extends Error {}

const configCache = new WeakMap<object, Config>();

/** The one place that reads env vars. Parsed once per env object (one per isolate). */
export function getConfig(env: Env): Config {
  const cached = configCache.get(env);
  if (cached) return cached;
  const config = parseConfig(env);
  configCache.set(env, config);
  return config;
}

function parseConfig(env: Env): Config {
  const legacyMode = (env.LEGACY_TOKEN_MODE ?? "deny") as LegacyTokenMode;
  if (!["allow", "existing_only", "deny"].includes(legacyMode)) {
    throw new ConfigError(`LEGACY_TOKEN_MODE must be allow, existing_only or deny`);
  }
  const mailProvider = env.MAIL_PROVIDER ?? "log";
  if (mailProvider !== "log" && mailProvider !== "resend") {
    throw new ConfigError(`MAIL_PROVIDER must be log or resend`);
  }
  const legacyBefore = env.LEGACY_TOKENS_ISSUED_BEFORE ? Date.parse(env.LEGACY_TOKENS_ISSUED_BEFORE) : NaN;
  return {
    appDomain: (env.APP_DOMAIN ?? "localhost").toLowerCase(),
    appUrlScheme: env.APP_URL_SCHEME === "http" ? "http" : "https",
    corsOrigins: (env.CORS_ORIGINS ?? "")
      .split(",")
      .map((origin) => origin.trim())
      .filter(Boolean),
    accessTokenTtlSeconds: positiveInt(env.ACCESS_TOKEN_TTL_SECONDS, 900, "ACCESS_TOKEN_TTL_SECONDS"),
    refreshTokenTtlDays: positiveInt(env.REFRESH_TOKEN_TTL_DAYS, 30, "REFRESH_TOKEN_TTL_DAYS"),
    refreshGraceMs: positiveInt(env.REFRESH_GRACE_SECONDS, 10, "REFRESH_GRACE_SECONDS") * 1000,
    trialDays: positiveInt(env.TRIAL_DAYS, 14, "TRIAL_DAYS"),
    emailVerificationTtlMs: positiveInt(env.EMAIL_VERIFICATION_TTL_HOURS, 48, "EMAIL_VERIFICATION_TTL_HOURS") * 3_600_000,
    legacyTokenMode: legacyMode,
    legacyTokensIssuedBefore: Number.isFinite(legacyBefore) ? legacyBefore : null,
    mailProvider,
    mailFrom: env.MAIL_FROM ?? "LMS <no-reply@localhost>",
    resendApiKey: env.RESEND_API_KEY || null,
    resendApiUrl: env.RESEND_API_URL || "https://api.resend.com/emails",
    defaultEmailLocale: env.DEFAULT_EMAIL_LOCALE === "en" ? "en" : "ru",
    devMailbox: env.DEV_MAILBOX === "true",
    installationIdRequired: booleanVar(env.INSTALLATION_ID_REQUIRED, false, "INSTALLATION_ID_REQUIRED"),
    jwtKeys: parseJwtKeys(env.JWT_SECRETS),
    passwordPepper: requireSecret(env.PASSWORD_PEPPER, "PASSWORD_PEPPER"),
  };
}

function positiveInt(raw: string | undefined, fallback: number, name: string): number {
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new ConfigError(`${name} must be a positive integer`);
  return value;
}

function booleanVar(raw: string | undefined, fallback: boolean, name: string): boolean {
  if (raw === undefined || raw === "") return fallback;
  if (raw === "true" || raw === "false") return raw === "true";
  throw new ConfigError(`${name} must be true or false`);
}

function requireSecret(raw: string | undefined, name: string): string {
  if (!raw) throw new ConfigError(`${name} is not set`);
  return raw;
}

/** `JWT_SECRETS` is `kid:secret[,kid:secret…]`, newest first; each secret at least 32 bytes. */
function parseJwtKeys(raw: string | undefined): JwtKey[] {
  const entries = requireSecret(raw, "JWT_SECRETS")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  const keys = entries.map((entry) => {
    const separator = entry.indexOf(":");
    if (separator <= 0) throw new ConfigError("JWT_SECRETS entries must be kid:secret");
    const secret = new TextEncoder().encode(entry.slice(separator + 1));
    if (secret.byteLength < 32) throw new ConfigError("each JWT secret must be at least 32 bytes");
    return { kid: entry.slice(0, separator), secret };
  });
  if (keys.length === 0) throw new ConfigError("JWT_SECRETS is empty");
  return keys;
}
