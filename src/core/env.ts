/** The Worker's bindings, vars and secrets, as wrangler.toml and `wrangler secret put` declare them. */
export interface Env {
  /** The control database (src/core/db/client.ts). */
  DB: D1Database;
  /**
   * The school databases (shards): `DB_SCHOOLS_0` … `DB_SCHOOLS_{N-1}`, as many as wrangler.toml
   * binds. Reached only through a school's stored shard name (`shardDb`).
   */
  DB_SCHOOLS_0: D1Database;
  [shard: `DB_SCHOOLS_${number}`]: D1Database;
  MEDIA: R2Bucket;
  /** Workers rate limiting: 30 certificate look-ups per minute per client address (wrangler.toml `ratelimits`). */
  CERT_VERIFY_LIMITER: { limit(options: { key: string }): Promise<{ success: boolean }> };
  /** Typed where it is used (src/platform/devices/session-service.ts): core knows no Durable Object class. */
  SESSION_FAMILY: DurableObjectNamespace;
  /** One per quiz or exam attempt in progress; typed where it is used (src/content/attempts). */
  ATTEMPT_JOURNAL: DurableObjectNamespace;
  /** One per exam attempt: deadline, warning and finalize alarms; typed where it is used (src/content/exams). */
  EXAM_TIMER: DurableObjectNamespace;
  OUTBOX: Queue<EmailMessage>;
  PUSH_OUTBOX: Queue<PushMessage>;
  MEDIA_METADATA: Queue<MediaMetadataMessage>;
  /** Webhook delivery (`lms-webhooks`; src/platform/webhooks). */
  WEBHOOKS: Queue<WebhookMessage>;
  DATA_EXPORT: Queue<DataExportMessage>;
  /** Item analysis snapshots (`lms-item-analysis`; src/content/item-analysis). */
  ITEM_ANALYSIS: Queue<ItemAnalysisMessage>;
  /** Regrade chunks of large quizzes (`lms-regrade`; src/content/regrade). */
  REGRADE: Queue<RegradeMessage>;
  /** Rating window snapshots, a run of students per message (`lms-rating-windows`; src/content/rating/windows.ts). */
  RATING_WINDOWS: Queue<RatingWindowMessage>;
  /** Curator analytics snapshots, slices of students per message (`lms-curator-reports`; src/content/analytics/reports.ts). */
  CURATOR_REPORTS: Queue<CuratorReportMessage>;

  APP_DOMAIN: string;
  /** The origin clients reach this API on (`https://api.example.com`); links the API returns are built on it. Empty locally. */
  PUBLIC_API_ORIGIN?: string;
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
  /** `true` lets webhooks target http(s)://127.0.0.1 and localhost (local development only). */
  WEBHOOKS_ALLOW_LOOPBACK?: string;
  INSTALLATION_ID_REQUIRED?: string;
  /** `true` only in the bench's `wrangler dev`: school routes answer with their D1 statement timing (src/core/db/timing.ts). */
  D1_TIMING?: string;
  PUSH_PROVIDER?: string;
  /** The Firebase service account's JSON key (a secret): project_id, client_email, private_key. */
  FCM_SERVICE_ACCOUNT?: string;
  FCM_API_URL?: string;
  DEV_PUSHBOX?: string;
  MEDIA_UPLOAD_MODE?: string;
  ATTEMPT_GRACE_SECONDS?: string;
  R2_ACCOUNT_ID?: string;
  R2_BUCKET_NAME?: string;
  R2_S3_ENDPOINT?: string;
  R2_ACCESS_KEY_ID?: string;
  R2_SECRET_ACCESS_KEY?: string;

  JWT_SECRETS: string;
  PASSWORD_PEPPER: string;
  /**
   * Certificate signing keys (05 section 4): a JSON array of Ed25519 JWKs, each with its `kid`; the
   * first (with its private part `d`) signs, every one is published in the JWKS, so a retired key
   * stays listed (public part only is enough) while certificates it signed are still around.
   */
  CERT_SIGNING_KEY?: string;
}

/** "Deliver email outbox row X": the row, not the message, holds the email. */
export interface EmailMessage {
  kind: "email";
  outbox_id: string;
  /**
   * Where the row is: the school database (`DB_SCHOOLS_n`) of the school it was written for, with
   * that school's id; both absent for rows of the control database (the superadmin's own mail).
   */
  shard?: string;
  tenant_id?: string;
}

/** "Read the duration or page count of media asset X": the row says where the object is. */
export interface MediaMetadataMessage {
  kind: "media_metadata";
  tenant_id: string;
  asset_id: string;
}

/** "School X has push notifications due": the outbox rows, not the message, hold the pushes. */
export interface PushDispatchMessage {
  kind: "push";
  tenant_id: string;
}

/** "Fan out the next chunk of campaign X": the recipient snapshot says who is left. */
export interface CampaignMessage {
  kind: "campaign";
  tenant_id: string;
  campaign_id: string;
}

export type PushMessage = PushDispatchMessage | CampaignMessage;

/** "School X has webhook deliveries due": the delivery rows, not the message, say what to send. */
export interface WebhookMessage {
  kind: "webhooks";
  tenant_id: string;
}

/** "Build personal-data export X": the row says whose data and for whom. */
export interface DataExportMessage {
  kind: "data_export";
  tenant_id: string;
  export_id: string;
}

/** "Re-score the next chunk of regrade X" (of question Y): the regrade's items say which attempts are left. */
export interface RegradeMessage {
  kind: "regrade";
  tenant_id: string;
  regrade_id: string;
  question_id: string;
}

/** "Recompute the item analysis of quiz X": the snapshot row says whether it is still needed. */
export interface ItemAnalysisMessage {
  kind: "item_analysis";
  tenant_id: string;
  quiz_id: string;
}

/** "Sum rating window X for the students after `after`": the window row says whether it is still needed. */
export interface RatingWindowMessage {
  kind: "rating_window";
  tenant_id: string;
  window_id: string;
  /** The last student summed by the previous run; "" for the first. */
  after: string;
}

/** "Go on with run X of curator report Y": the report row says where the run stands and whether it is still the current one. */
export interface CuratorReportMessage {
  kind: "curator_report";
  tenant_id: string;
  report_id: string;
  run_id: string;
}

/** Every message any queue of the Worker carries; each consumer narrows by `kind`. */
export type QueueMessage =
  | EmailMessage
  | MediaMetadataMessage
  | PushMessage
  | WebhookMessage
  | DataExportMessage
  | ItemAnalysisMessage
  | RegradeMessage
  | RatingWindowMessage
  | CuratorReportMessage;

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
  /**
   * Where every link the API returns points (upload forms, signed downloads); null when not
   * configured (local development), and then the request's own origin is used.
   */
  publicApiOrigin: string | null;
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
  /** Per-request D1 statement timing in a `Server-Timing` header; off unless `D1_TIMING=true`. */
  d1Timing: boolean;
  push: PushConfig;
  /** Local only: every push the log provider delivers is readable at GET /api/v1/dev/pushes. */
  devPushbox: boolean;
  media: MediaConfig;
  /** Quiz and exam saves this long after `deadline_at` still count (network grace). */
  attemptGraceMs: number;
  /** Webhooks may target loopback hosts (`WEBHOOKS_ALLOW_LOOPBACK=true`, local development). */
  webhooksAllowLoopback: boolean;
  /** Newest first: the first key signs, every key verifies. */
  jwtKeys: JwtKey[];
  passwordPepper: string;
}

/**
 * How files reach R2. `worker`: a signed form POSTed to the Worker, which streams it into the bucket
 * (bounded by the Worker's request-body cap). `r2`: a presigned S3 PUT straight to R2, for large
 * files; it needs an R2 API token's key pair and the account's S3 endpoint.
 */
export type MediaConfig =
  | { uploadMode: "worker" }
  | { uploadMode: "r2"; s3Endpoint: string; bucket: string; accessKeyId: string; secretAccessKey: string };

/**
 * `log` writes one line per push (local default). `fcm` is Firebase Cloud Messaging HTTP v1 with a
 * service account; a missing or broken key does not stop the Worker, it fails each delivery with
 * the reason (`problem`), as a misconfigured mail provider does.
 */
export type PushConfig =
  | { provider: "log" }
  | { provider: "fcm"; apiUrl: string; serviceAccount: FcmServiceAccount | null; problem: string | null };

export interface FcmServiceAccount {
  projectId: string;
  clientEmail: string;
  privateKey: string;
  tokenUri: string;
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
    publicApiOrigin: parsePublicApiOrigin(env.PUBLIC_API_ORIGIN),
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
    d1Timing: booleanVar(env.D1_TIMING, false, "D1_TIMING"),
    push: parsePushConfig(env),
    devPushbox: env.DEV_PUSHBOX === "true",
    media: parseMediaConfig(env),
    attemptGraceMs: nonNegativeInt(env.ATTEMPT_GRACE_SECONDS, 15, "ATTEMPT_GRACE_SECONDS") * 1000,
    webhooksAllowLoopback: booleanVar(env.WEBHOOKS_ALLOW_LOOPBACK, false, "WEBHOOKS_ALLOW_LOOPBACK"),
    jwtKeys: parseJwtKeys(env.JWT_SECRETS),
    passwordPepper: requireSecret(env.PASSWORD_PEPPER, "PASSWORD_PEPPER"),
  };
}

function parsePublicApiOrigin(raw: string | undefined): string | null {
  const value = (raw ?? "").trim();
  if (value === "") return null;
  let url: URL | null = null;
  try {
    url = new URL(value);
  } catch {
    // refused below
  }
  // An origin alone serializes as itself plus "/": a path, query, fragment or credentials would show.
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:") || url.href !== `${url.origin}/`) {
    throw new ConfigError("PUBLIC_API_ORIGIN must be an origin such as https://api.example.com (no path, query or credentials)");
  }
  return url.origin;
}

function parseMediaConfig(env: Env): MediaConfig {
  const mode = env.MEDIA_UPLOAD_MODE || "worker";
  if (mode === "worker") return { uploadMode: "worker" };
  if (mode !== "r2") throw new ConfigError("MEDIA_UPLOAD_MODE must be worker or r2");
  const accountId = env.R2_ACCOUNT_ID || "";
  const s3Endpoint = (env.R2_S3_ENDPOINT || (accountId ? `https://${accountId}.r2.cloudflarestorage.com` : "")).replace(/\/+$/, "");
  if (!s3Endpoint) throw new ConfigError("MEDIA_UPLOAD_MODE=r2 needs R2_ACCOUNT_ID (or R2_S3_ENDPOINT)");
  if (!/^https?:\/\/[^/]+$/.test(s3Endpoint)) throw new ConfigError("R2_S3_ENDPOINT must be an origin such as https://<account>.r2.cloudflarestorage.com");
  return {
    uploadMode: "r2",
    s3Endpoint,
    bucket: requireSecret(env.R2_BUCKET_NAME, "R2_BUCKET_NAME"),
    accessKeyId: requireSecret(env.R2_ACCESS_KEY_ID, "R2_ACCESS_KEY_ID"),
    secretAccessKey: requireSecret(env.R2_SECRET_ACCESS_KEY, "R2_SECRET_ACCESS_KEY"),
  };
}

function parsePushConfig(env: Env): PushConfig {
  const provider = env.PUSH_PROVIDER || "log";
  if (provider === "log") return { provider };
  if (provider !== "fcm") throw new ConfigError("PUSH_PROVIDER must be log or fcm");
  const apiUrl = (env.FCM_API_URL || "https://fcm.googleapis.com").replace(/\/+$/, "");
  if (!env.FCM_SERVICE_ACCOUNT) return { provider, apiUrl, serviceAccount: null, problem: "config: PUSH_PROVIDER=fcm but FCM_SERVICE_ACCOUNT is not set" };
  try {
    const key = JSON.parse(env.FCM_SERVICE_ACCOUNT) as Record<string, unknown>;
    const field = (name: string) => (typeof key[name] === "string" && key[name] !== "" ? (key[name] as string) : null);
    const projectId = field("project_id");
    const clientEmail = field("client_email");
    const privateKey = field("private_key");
    if (!projectId || !clientEmail || !privateKey) {
      return { provider, apiUrl, serviceAccount: null, problem: "config: FCM_SERVICE_ACCOUNT lacks project_id, client_email or private_key" };
    }
    const tokenUri = field("token_uri") ?? "https://oauth2.googleapis.com/token";
    return { provider, apiUrl, serviceAccount: { projectId, clientEmail, privateKey, tokenUri }, problem: null };
  } catch {
    return { provider, apiUrl, serviceAccount: null, problem: "config: FCM_SERVICE_ACCOUNT is not JSON" };
  }
}

function positiveInt(raw: string | undefined, fallback: number, name: string): number {
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new ConfigError(`${name} must be a positive integer`);
  return value;
}

function nonNegativeInt(raw: string | undefined, fallback: number, name: string): number {
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new ConfigError(`${name} must be a whole number of seconds`);
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
