import { fromBase64Url, hmacHex, timingSafeEqual, toBase64Url } from "../../core/lib/crypto";

/**
 * Deployed Workers cap PBKDF2 at 100,000 iterations (local workerd does not), so this is both the
 * cost and the ceiling; a test keeps it there. Hashes are self-describing so the scheme can change.
 */
export const PBKDF2_ITERATIONS = 100_000;
const PBKDF2_MAX_ITERATIONS_ON_WORKERS = 100_000;
const SALT_BYTES = 16;
const HASH_BITS = 256;
const SCHEME = "pbkdf2-sha256";

export async function hashPassword(password: string, pepper: string): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(SALT_BYTES));
  const hash = await derive(password, pepper, salt, PBKDF2_ITERATIONS);
  return `${SCHEME}$${PBKDF2_ITERATIONS}$${toBase64Url(salt)}$${toBase64Url(hash)}`;
}

interface PasswordCheck {
  valid: boolean;
  /** The stored hash uses an older cost or scheme: store a fresh hash after a successful login. */
  needsRehash: boolean;
}

export async function verifyPassword(password: string, stored: string, pepper: string): Promise<PasswordCheck> {
  const [scheme, iterationsText, saltText, hashText] = stored.split("$");
  const iterations = Number(iterationsText);
  if (scheme !== SCHEME || !saltText || !hashText || !Number.isInteger(iterations) || iterations < 1 || iterations > PBKDF2_MAX_ITERATIONS_ON_WORKERS) {
    return { valid: false, needsRehash: false };
  }
  const hash = await derive(password, pepper, fromBase64Url(saltText), iterations);
  return { valid: timingSafeEqual(toBase64Url(hash), hashText), needsRehash: iterations !== PBKDF2_ITERATIONS };
}

/**
 * A stored hash of a password nobody knows, so that an unknown email costs one full PBKDF2 run,
 * exactly like a wrong password.
 */
export const DUMMY_PASSWORD_HASH = `${SCHEME}$${PBKDF2_ITERATIONS}$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`;

async function derive(password: string, pepper: string, salt: Uint8Array, iterations: number): Promise<Uint8Array> {
  // The pepper keys an HMAC of the password, so a leaked database alone cannot be brute-forced.
  const peppered = await hmacHex(pepper, password.normalize("NFC"));
  const material = await crypto.subtle.importKey("raw", new TextEncoder().encode(peppered), "PBKDF2", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations }, material, HASH_BITS);
  return new Uint8Array(bits);
}
