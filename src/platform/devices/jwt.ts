import { jwtVerify, SignJWT, type JWTHeaderParameters, type JWTPayload } from "jose";
import type { Config, JwtKey } from "../../core/env";
import type { Role } from "../../core/http/context";
import { uuidv7 } from "../../core/lib/ids";

/** Exactly the spec's claims (plus iat). Legacy tokens lack `sid`. */
export interface AccessClaims {
  user_id: string;
  tenant_id: string | null;
  role: Role;
  sid?: string;
  jti: string;
  exp: number;
  iat: number;
}

interface IssuedToken {
  token: string;
  expiresAt: number;
}

const cryptoKeys = new WeakMap<JwtKey, Promise<CryptoKey>>();

/** Imported once per key per isolate: importKey on every request would cost more than the HMAC. */
function cryptoKey(key: JwtKey): Promise<CryptoKey> {
  let imported = cryptoKeys.get(key);
  if (!imported) {
    imported = crypto.subtle.importKey("raw", key.secret, { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
    cryptoKeys.set(key, imported);
  }
  return imported;
}

export async function signAccessToken(
  config: Config,
  claims: { user_id: string; tenant_id: string | null; role: Role; sid?: string },
  now: number,
): Promise<IssuedToken> {
  const signingKey = config.jwtKeys[0]!;
  const iat = Math.floor(now / 1000);
  const exp = iat + config.accessTokenTtlSeconds;
  const token = await new SignJWT({ ...claims, jti: uuidv7(now) })
    .setProtectedHeader({ alg: "HS256", kid: signingKey.kid, typ: "JWT" })
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .sign(await cryptoKey(signingKey));
  return { token, expiresAt: exp * 1000 };
}

/**
 * Tokens already verified under a configuration (its keys), with their claims. Verification is a
 * pure function of the token and the keys, so a repeat only needs the expiry check: it saves the
 * HMAC and the parsing on every request of a session. Bounded per configuration, oldest out first.
 */
const verifiedByConfig = new WeakMap<Config, Map<string, AccessClaims>>();
const VERIFIED_CACHE_SIZE = 1024;

/** Verifies signature (any listed key, chosen by `kid`), algorithm and expiry; null when anything is off. */
export async function verifyAccessToken(config: Config, token: string, now: number): Promise<AccessClaims | null> {
  let verified = verifiedByConfig.get(config);
  if (!verified) verifiedByConfig.set(config, (verified = new Map()));
  const known = verified.get(token);
  if (known) return known.exp * 1000 > now ? known : null;
  const claims = await verifySignature(config, token, now);
  if (claims) {
    if (verified.size >= VERIFIED_CACHE_SIZE) verified.delete(verified.keys().next().value!);
    verified.set(token, claims);
  }
  return claims;
}

async function verifySignature(config: Config, token: string, now: number): Promise<AccessClaims | null> {
  try {
    const { payload } = await jwtVerify(
      token,
      (header: JWTHeaderParameters) => {
        const key = config.jwtKeys.find((candidate) => candidate.kid === header.kid);
        if (!key) throw new Error("unknown kid");
        return cryptoKey(key);
      },
      { algorithms: ["HS256"], currentDate: new Date(now) },
    );
    return parseClaims(payload);
  } catch {
    return null;
  }
}

const ROLES: readonly Role[] = ["superadmin", "admin", "curator", "student"];

function parseClaims(payload: JWTPayload): AccessClaims | null {
  const { user_id, tenant_id, role, sid, jti, exp, iat } = payload as Record<string, unknown>;
  if (typeof user_id !== "string" || typeof jti !== "string" || typeof exp !== "number") return null;
  if (!(tenant_id === null || typeof tenant_id === "string")) return null;
  if (typeof role !== "string" || !ROLES.includes(role as Role)) return null;
  if (sid !== undefined && typeof sid !== "string") return null;
  return { user_id, tenant_id, role: role as Role, sid: sid as string | undefined, jti, exp, iat: typeof iat === "number" ? iat : 0 };
}
