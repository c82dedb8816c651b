import type { ServiceContext } from "../../core/http/context";
import { hmacHex } from "../../core/lib/crypto";
import { isUuid } from "../../core/lib/ids";

/** Download links are signed and expire within the hour (docs/decisions.md). */
const MEDIA_LINK_TTL_SECONDS = 3600;

const decoder = new TextDecoder();
const derivedKeys = new WeakMap<Uint8Array, Promise<string>>();

function linkKey(secret: Uint8Array): Promise<string> {
  let key = derivedKeys.get(secret);
  if (!key) {
    key = hmacHex(decoder.decode(secret), "media-link");
    derivedKeys.set(secret, key);
  }
  return key;
}

/**
 * Signature of a media download link. The key is derived from the newest JWT key under its own
 * label, so a link signature can never stand in for a token signature (or the other way round).
 */
export async function mediaLinkSignature(secret: Uint8Array, tenantId: string, assetId: string, exp: number): Promise<string> {
  return hmacHex(await linkKey(secret), `${tenantId}:${assetId}:${exp}`);
}

/**
 * A stored avatar or logo as clients read it: a URL unchanged, a media-asset id as a fresh signed
 * download path on this worker. The media area verifies the signature and serves the object.
 */
export async function mediaUrl(ctx: ServiceContext, tenantId: string | null, reference: string | null): Promise<string | null> {
  if (reference === null || !isUuid(reference)) return reference;
  const exp = Math.floor(ctx.clock.now() / 1000) + MEDIA_LINK_TTL_SECONDS;
  const sig = await mediaLinkSignature(ctx.config.jwtKeys[0]!.secret, tenantId ?? "", reference, exp);
  return `/api/v1/media/${reference}/download?exp=${exp}&sig=${sig}`;
}
