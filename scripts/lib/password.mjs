import { createHash, createHmac, pbkdf2, randomBytes } from "node:crypto";
import { promisify } from "node:util";

// Mirrors src/platform/auth/password.ts exactly (scheme, cost, salt and hash sizes, pepper as HMAC key).
const SCHEME = "pbkdf2-sha256";
const ITERATIONS = 100_000;
const SALT_BYTES = 16;
const HASH_BYTES = 32;
const pbkdf2Async = promisify(pbkdf2);

/** `pbkdf2-sha256$100000$<salt b64url>$<hash b64url>`; `saltSeed` makes the salt deterministic (demo rows). */
export async function hashPassword(password, pepper, { saltSeed } = {}) {
  const salt = saltSeed === undefined ? randomBytes(SALT_BYTES) : createHash("sha256").update(saltSeed).digest().subarray(0, SALT_BYTES);
  const peppered = createHmac("sha256", pepper).update(password.normalize("NFC"), "utf8").digest("hex");
  const hash = await pbkdf2Async(Buffer.from(peppered, "utf8"), salt, ITERATIONS, HASH_BYTES, "sha256");
  return `${SCHEME}$${ITERATIONS}$${salt.toString("base64url")}$${hash.toString("base64url")}`;
}
