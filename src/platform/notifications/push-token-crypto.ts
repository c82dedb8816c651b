import { decodeKey32, derivedKey, openSecret, sealedFormat, sealSecret, toHex } from "../../core/lib/crypto";

// In notifications, whose delivery opens the tokens (docs/decisions/platform-layers.md, "Push tokens belong to notifications").

/**
 * Push registration tokens are write-only secrets: stored as AES-256-GCM ciphertext under
 * PUSH_TOKEN_KEY (base64 of exactly 32 bytes) plus a keyed hash for lookups ("which binding holds
 * this token?"). The hash key is derived from the same secret with HKDF, so one configured key
 * serves both without using the AES key as an HMAC key.
 */
interface PushTokenKeys {
  encryption: CryptoKey;
  lookup: CryptoKey;
}

export interface SealedPushToken {
  /** `v2.<iv>.<ciphertext+tag>` (or `v1.` without a binding), base64url parts. */
  ciphertext: string;
  /** HMAC-SHA256 hex of the token under the derived lookup key. */
  hash: string;
}

const encoder = new TextEncoder();
const FORMAT = "v1";
const BOUND_FORMAT = "v2";
const keyCache = new Map<string, Promise<PushTokenKeys | null>>();

/** The keys for a configured PUSH_TOKEN_KEY; null when it is missing or not base64 of 32 bytes. */
export function pushTokenKeys(rawKey: string | undefined | null): Promise<PushTokenKeys | null> {
  const trimmed = rawKey?.trim() ?? "";
  if (trimmed === "") return Promise.resolve(null);
  let cached = keyCache.get(trimmed);
  if (!cached) {
    cached = importKeys(trimmed);
    keyCache.set(trimmed, cached);
  }
  return cached;
}

async function importKeys(base64: string): Promise<PushTokenKeys | null> {
  const bytes = decodeKey32(base64);
  if (!bytes) return null;
  // The configured bytes themselves, not a derived key: the stored tokens were sealed under them.
  const encryption = await crypto.subtle.importKey("raw", bytes, { name: "AES-GCM" }, false, ["encrypt", "decrypt"]);
  const lookup = await derivedKey(bytes, "push-token-lookup-v1", { name: "HMAC", hash: "SHA-256", length: 256 }, ["sign"]);
  return { encryption, lookup };
}

export async function pushTokenHash(keys: PushTokenKeys, token: string): Promise<string> {
  return toHex(await crypto.subtle.sign("HMAC", keys.lookup, encoder.encode(token)));
}

/**
 * The binding a ciphertext is sealed to (AES-GCM additional data): the school and the installation,
 * so a ciphertext copied onto another row does not open. A registration made at sign-in without an
 * installation id gets its `auth-device:<id>` installation in the same batch, after sealing, so
 * those are bound to the school only.
 */
export function pushTokenBinding(tenantId: string, installationId: string | null): string {
  const installation = installationId === null || installationId.startsWith("auth-device:") ? "auth-device" : installationId;
  return `push-token:${tenantId}:${installation}`;
}

/**
 * `v1.` ciphertexts (no binding) are still read; new ones are `v2.`, sealed to `binding`
 * (`pushTokenBinding`) when one is given.
 */
export async function sealPushToken(keys: PushTokenKeys, token: string, binding?: string): Promise<SealedPushToken> {
  return {
    ciphertext: await sealSecret(keys.encryption, binding === undefined ? FORMAT : BOUND_FORMAT, token, binding),
    hash: await pushTokenHash(keys, token),
  };
}

/** The token back from its ciphertext (delivery only); throws on a wrong key, binding or tampered data. */
export async function openPushToken(keys: PushTokenKeys, ciphertext: string, binding?: string): Promise<string> {
  const format = sealedFormat(ciphertext);
  if (format !== FORMAT && format !== BOUND_FORMAT) throw new Error("unknown push token ciphertext format");
  if (format === BOUND_FORMAT && binding === undefined) throw new Error("a bound push token needs its binding to open");
  return openSecret(keys.encryption, format, ciphertext, format === BOUND_FORMAT ? binding : undefined);
}
