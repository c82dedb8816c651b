import { importJWK, SignJWT } from "jose";
import type { Env } from "../../core/env";

/**
 * The certificate token (05 section 4, docs/decisions/certificates.md, "The token"): a compact JWS,
 * EdDSA over Ed25519, under the platform key `CERT_SIGNING_KEY` (a JSON array of JWKs with `kid`;
 * the first signs, all are published). Ed25519 signatures are deterministic, so the token is
 * derived from the stored certificate on every read instead of being stored.
 */

interface SigningJwk {
  kid: string;
  kty: "OKP";
  crv: "Ed25519";
  x: string;
  d?: string;
}

function keysOf(env: Env): SigningJwk[] {
  if (!env.CERT_SIGNING_KEY) throw new Error("CERT_SIGNING_KEY is not set (npm run dev generates a local one)");
  const parsed = JSON.parse(env.CERT_SIGNING_KEY) as unknown;
  const keys = (Array.isArray(parsed) ? parsed : [parsed]) as SigningJwk[];
  for (const key of keys) {
    if (key.kty !== "OKP" || key.crv !== "Ed25519" || typeof key.x !== "string" || typeof key.kid !== "string" || key.kid === "") {
      throw new Error("CERT_SIGNING_KEY: every key is an Ed25519 JWK (kty OKP, crv Ed25519) with x and a kid");
    }
  }
  if (keys.length === 0 || typeof keys[0]!.d !== "string") throw new Error("CERT_SIGNING_KEY: the first key signs and needs its private part d");
  return keys;
}

/** The public keys for `GET /.well-known/jwks.json`: never the private part. */
export function publicJwks(env: Env) {
  return { keys: keysOf(env).map((key) => ({ kty: key.kty, crv: key.crv, x: key.x, kid: key.kid, alg: "EdDSA", use: "sig" })) };
}

export interface TokenClaims {
  code: string;
  issuer: string;
  courseTitle: string;
  holderName: string;
  issuedAt: number;
}

/** `{sub: code, iss: subdomain, course, name, iat}` signed by the current key. */
export async function certificateToken(env: Env, claims: TokenClaims): Promise<string> {
  const [current] = keysOf(env);
  const key = await importJWK({ kty: current!.kty, crv: current!.crv, x: current!.x, d: current!.d }, "EdDSA");
  return new SignJWT({ course: claims.courseTitle, name: claims.holderName })
    .setProtectedHeader({ alg: "EdDSA", kid: current!.kid, typ: "JWT" })
    .setSubject(claims.code)
    .setIssuer(claims.issuer)
    .setIssuedAt(Math.floor(claims.issuedAt / 1000))
    .sign(key);
}
