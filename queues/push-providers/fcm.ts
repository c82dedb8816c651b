import { importPKCS8, SignJWT } from "jose";
import type { FcmServiceAccount } from "../../src/core/env";
import type { PushProvider, PushResult } from "../../src/platform/notifications/delivery";
import type { FetchFn } from "../providers/types";

const SCOPE = "https://www.googleapis.com/auth/firebase.messaging";
const TIMEOUT_MS = 10_000;
/** An access token is reused until a minute before Google's expiry. */
const EXPIRY_MARGIN_MS = 60_000;

interface AccessToken {
  value: string;
  expiresAt: number;
}

// Per isolate: every message of every batch reuses the token (and the imported key).
const tokens = new Map<string, AccessToken>();
const pending = new Map<string, Promise<AccessToken>>();
const keys = new Map<string, Promise<CryptoKey>>();

class TokenError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

/**
 * Firebase Cloud Messaging HTTP v1. The service account signs a JWT (RS256, jose) that Google's
 * token endpoint exchanges for an OAuth access token, cached until shortly before it expires.
 * Answers: 200 delivered; UNREGISTERED (404) or INVALID_ARGUMENT (400) mean the token is dead or
 * malformed, so the device is disabled; 429 and 5xx are retried with backoff (Retry-After
 * respected); 401 drops the cached access token and retries; anything else fails the push.
 */
export function fcmProvider(options: { serviceAccount: FcmServiceAccount; apiUrl: string; fetch: FetchFn }): PushProvider {
  const { serviceAccount, apiUrl } = options;
  const cacheKey = `${serviceAccount.clientEmail} ${serviceAccount.tokenUri}`;
  const endpoint = `${apiUrl}/v1/projects/${encodeURIComponent(serviceAccount.projectId)}/messages:send`;

  async function accessToken(): Promise<AccessToken> {
    const cached = tokens.get(cacheKey);
    if (cached && cached.expiresAt - EXPIRY_MARGIN_MS > Date.now()) return cached;
    let inflight = pending.get(cacheKey);
    if (!inflight) {
      inflight = fetchAccessToken(serviceAccount, options.fetch).finally(() => pending.delete(cacheKey));
      pending.set(cacheKey, inflight);
    }
    const fresh = await inflight;
    tokens.set(cacheKey, fresh);
    return fresh;
  }

  return {
    name: "fcm",
    async send(push): Promise<PushResult> {
      let token: AccessToken;
      try {
        token = await accessToken();
      } catch (err) {
        const retryable = err instanceof TokenError ? err.retryable : true;
        return { ok: false, retryable, disableDevice: false, error: `fcm auth: ${err instanceof Error ? err.message : String(err)}` };
      }
      let response: Response;
      try {
        response = await options.fetch(endpoint, {
          method: "POST",
          headers: { authorization: `Bearer ${token.value}`, "content-type": "application/json" },
          body: JSON.stringify({
            message: {
              token: push.token,
              notification: { title: push.title, body: push.body },
              data: push.data,
              android: { priority: "HIGH" },
              apns: { headers: { "apns-priority": "10" } },
            },
          }),
          signal: AbortSignal.timeout(TIMEOUT_MS),
        });
      } catch (err) {
        return { ok: false, retryable: true, disableDevice: false, error: `fcm network: ${String(err)}` };
      }
      const text = await response.text();
      if (response.ok) {
        const name = parse(text)?.name;
        return { ok: true, providerMessageId: typeof name === "string" ? name : null };
      }
      const { status, errorCode, message } = fcmError(text);
      const error = `fcm ${response.status}${errorCode ? ` ${errorCode}` : status ? ` ${status}` : ""}${message ? `: ${message}` : ""}`.slice(0, 500);
      if (errorCode === "UNREGISTERED" || errorCode === "INVALID_ARGUMENT" || (!errorCode && (status === "NOT_FOUND" || status === "INVALID_ARGUMENT"))) {
        return { ok: false, retryable: false, disableDevice: true, error };
      }
      if (response.status === 401) {
        tokens.delete(cacheKey);
        return { ok: false, retryable: true, disableDevice: false, error };
      }
      if (response.status === 429 || response.status >= 500) {
        return { ok: false, retryable: true, disableDevice: false, error, retryAfterSeconds: retryAfter(response.headers.get("retry-after")) };
      }
      return { ok: false, retryable: false, disableDevice: false, error };
    },
  };
}

async function fetchAccessToken(account: FcmServiceAccount, fetchFn: FetchFn): Promise<AccessToken> {
  let key = keys.get(account.privateKey);
  if (!key) {
    key = importPKCS8(account.privateKey, "RS256");
    keys.set(account.privateKey, key);
  }
  let signingKey: CryptoKey;
  try {
    signingKey = await key;
  } catch {
    keys.delete(account.privateKey);
    throw new TokenError("the service account's private_key is not a PKCS#8 RSA key", false);
  }
  const now = Math.floor(Date.now() / 1000);
  const assertion = await new SignJWT({ scope: SCOPE })
    .setProtectedHeader({ alg: "RS256", typ: "JWT" })
    .setIssuer(account.clientEmail)
    .setSubject(account.clientEmail)
    .setAudience(account.tokenUri)
    .setIssuedAt(now)
    .setExpirationTime(now + 3600)
    .sign(signingKey);
  let response: Response;
  try {
    response = await fetchFn(account.tokenUri, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion }).toString(),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (err) {
    throw new TokenError(`token endpoint unreachable: ${String(err)}`, true);
  }
  const body = parse(await response.text());
  if (!response.ok || typeof body?.access_token !== "string") {
    const retryable = response.status === 429 || response.status >= 500;
    throw new TokenError(`token endpoint answered ${response.status}${typeof body?.error === "string" ? ` ${body.error}` : ""}`, retryable);
  }
  const expiresIn = typeof body.expires_in === "number" ? body.expires_in : 3600;
  return { value: body.access_token, expiresAt: Date.now() + expiresIn * 1000 };
}

function parse(text: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** FCM's error body: `{error: {status, message, details: [{@type: …FcmError, errorCode}]}}`. */
function fcmError(text: string): { status: string | null; errorCode: string | null; message: string | null } {
  const error = parse(text)?.error as { status?: unknown; message?: unknown; details?: unknown } | undefined;
  const details = Array.isArray(error?.details) ? (error.details as Record<string, unknown>[]) : [];
  const code = details.map((detail) => detail.errorCode).find((value) => typeof value === "string");
  return {
    status: typeof error?.status === "string" ? error.status : null,
    errorCode: typeof code === "string" ? code : null,
    message: typeof error?.message === "string" ? error.message : null,
  };
}

function retryAfter(header: string | null): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds);
  const at = Date.parse(header);
  return Number.isFinite(at) ? Math.max(0, Math.ceil((at - Date.now()) / 1000)) : undefined;
}
