import type { Env } from "../../core/env";
import { fromBase64Url, toBase64Url } from "../../core/lib/crypto";

/**
 * Opaque ids of the right-hand side of matching questions in the student view. Each token is the
 * match row's id sealed with AES-GCM under a random nonce, bound (additional data) to the school
 * and the question: every read gets new tokens, nothing is stored per read, a saved answer's
 * token still opens for its own question, and a token of another question (or school) does not.
 * The key is derived with HKDF from PASSWORD_PEPPER, a secret every deployment already has.
 */

const INFO = new TextEncoder().encode("quiz-match-token:v1");
const keys = new WeakMap<object, Promise<CryptoKey>>();

function matchKey(env: Pick<Env, "PASSWORD_PEPPER">): Promise<CryptoKey> {
  // Cached per env object: one derivation per isolate and configuration.
  let key = keys.get(env);
  if (!key) {
    key = (async () => {
      const base = await crypto.subtle.importKey("raw", new TextEncoder().encode(env.PASSWORD_PEPPER), "HKDF", false, ["deriveKey"]);
      return crypto.subtle.deriveKey(
        { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(32), info: INFO },
        base,
        { name: "AES-GCM", length: 256 },
        false,
        ["encrypt", "decrypt"],
      );
    })();
    keys.set(env, key);
  }
  return key;
}

const binding = (tenantId: string, questionId: string) => new TextEncoder().encode(`${tenantId}:${questionId}`);

function uuidBytes(id: string): Uint8Array {
  const hex = id.replace(/-/g, "");
  return Uint8Array.from({ length: 16 }, (_, i) => parseInt(hex.slice(i * 2, i * 2 + 2), 16));
}

function uuidText(bytes: Uint8Array): string {
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A fresh token for the match row `matchId` of the question. */
export async function sealMatchToken(env: Pick<Env, "PASSWORD_PEPPER">, tenantId: string, questionId: string, matchId: string): Promise<string> {
  const nonce = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt({ name: "AES-GCM", iv: nonce, additionalData: binding(tenantId, questionId) }, await matchKey(env), uuidBytes(matchId));
  const out = new Uint8Array(12 + sealed.byteLength);
  out.set(nonce, 0);
  out.set(new Uint8Array(sealed), 12);
  return toBase64Url(out);
}

/** The match row id a token names, or null when it is not a token of this question and school. */
export async function openMatchToken(env: Pick<Env, "PASSWORD_PEPPER">, tenantId: string, questionId: string, token: string): Promise<string | null> {
  if (typeof token !== "string" || token.length < 40 || token.length > 80) return null;
  try {
    const bytes = fromBase64Url(token);
    if (bytes.length !== 12 + 16 + 16) return null;
    const plain = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: bytes.slice(0, 12), additionalData: binding(tenantId, questionId) },
      await matchKey(env),
      bytes.slice(12),
    );
    return uuidText(new Uint8Array(plain));
  } catch {
    return null;
  }
}
