const encoder = new TextEncoder();

export function toBase64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

export function fromBase64Url(text: string): Uint8Array {
  const base64 = text.replaceAll("-", "+").replaceAll("_", "/");
  const binary = atob(base64 + "=".repeat((4 - (base64.length % 4)) % 4));
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

export function toHex(bytes: ArrayBuffer | Uint8Array): string {
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** A fresh secret of `bytes` random bytes, base64url. */
export function randomSecret(bytes = 32): string {
  return toBase64Url(crypto.getRandomValues(new Uint8Array(bytes)));
}

/** Uniform random decimal string of `digits` digits from the CSPRNG (rejection sampling, no modulo bias). */
export function randomDigits(digits: number): string {
  const limit = 10 ** digits;
  const ceiling = Math.floor(0x1_0000_0000 / limit) * limit;
  const buffer = new Uint32Array(1);
  for (;;) {
    crypto.getRandomValues(buffer);
    if (buffer[0]! < ceiling) return String(buffer[0]! % limit).padStart(digits, "0");
  }
}

export async function sha256Hex(text: string): Promise<string> {
  return toHex(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
}

const hmacKeys = new Map<string, Promise<CryptoKey>>();

function hmacKey(secret: string): Promise<CryptoKey> {
  let key = hmacKeys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    hmacKeys.set(secret, key);
  }
  return key;
}

export async function hmacHex(secret: string, message: string): Promise<string> {
  return toHex(await crypto.subtle.sign("HMAC", await hmacKey(secret), encoder.encode(message)));
}

/** Constant-time equality of two strings (length is not secret: all compared values have fixed-length encodings). */
export function timingSafeEqual(a: string, b: string): boolean {
  const left = encoder.encode(a);
  const right = encoder.encode(b);
  if (left.byteLength !== right.byteLength) return false;
  const subtle = crypto.subtle as SubtleCrypto & { timingSafeEqual?: (a: ArrayBufferView, b: ArrayBufferView) => boolean };
  if (typeof subtle.timingSafeEqual === "function") return subtle.timingSafeEqual(left, right);
  let diff = 0;
  for (let i = 0; i < left.byteLength; i++) diff |= left[i]! ^ right[i]!;
  return diff === 0;
}

/** A configured 32-byte key (base64 or base64url, padding optional); null when malformed or another length. */
export function decodeKey32(text: string | undefined | null): Uint8Array | null {
  const trimmed = (text ?? "").trim();
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)) return null;
  try {
    const bytes = fromBase64Url(trimmed.replace(/=+$/, ""));
    return bytes.byteLength === 32 ? bytes : null;
  } catch {
    return null;
  }
}

/**
 * A key derived from a configured 32-byte key with HKDF-SHA256 (empty salt) under `info`, so one
 * configured secret serves several purposes without reusing a key across algorithms.
 */
export async function derivedKey(bytes: Uint8Array, info: string, algorithm: Parameters<SubtleCrypto["deriveKey"]>[2], usages: string[]): Promise<CryptoKey> {
  const master = await crypto.subtle.importKey("raw", bytes, "HKDF", false, ["deriveKey"]);
  return crypto.subtle.deriveKey({ name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: encoder.encode(info) }, master, algorithm, false, usages);
}

/**
 * A write-only secret sealed with AES-256-GCM: `<format>.<iv>.<ciphertext+tag>` (base64url parts,
 * a fresh 12-byte iv). `binding` (the school and row the secret belongs to) is the additional data,
 * so a ciphertext copied onto another row does not open.
 */
export async function sealSecret(key: CryptoKey, format: string, plain: string, binding?: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const params: Parameters<SubtleCrypto["encrypt"]>[0] = binding === undefined ? { name: "AES-GCM", iv } : { name: "AES-GCM", iv, additionalData: encoder.encode(binding) };
  const sealed = await crypto.subtle.encrypt(params, key, encoder.encode(plain));
  return `${format}.${toBase64Url(iv)}.${toBase64Url(new Uint8Array(sealed))}`;
}

/** The format (`v2`, `w1`) a sealed secret names; null when it is not one. */
export function sealedFormat(ciphertext: string): string | null {
  const parts = ciphertext.split(".");
  return parts.length === 3 && parts.every((part) => part !== "") ? parts[0]! : null;
}

/** The secret back from `sealSecret`'s output; throws on another format, a wrong key or binding, or tampered data. */
export async function openSecret(key: CryptoKey, format: string, ciphertext: string, binding?: string): Promise<string> {
  const [, iv, data] = ciphertext.split(".");
  if (sealedFormat(ciphertext) !== format || !iv || !data) throw new Error(`not a sealed secret of format ${format}`);
  const params: Parameters<SubtleCrypto["encrypt"]>[0] = binding === undefined ? { name: "AES-GCM", iv: fromBase64Url(iv) } : { name: "AES-GCM", iv: fromBase64Url(iv), additionalData: encoder.encode(binding) };
  return new TextDecoder().decode(await crypto.subtle.decrypt(params, key, fromBase64Url(data)));
}
