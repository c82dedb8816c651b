import type { ServiceContext } from "../../core/http/context";
import type { Config } from "../../core/env";
import { publicLink } from "../../core/http/public-links";
import { hmacHex, timingSafeEqual } from "../../core/lib/crypto";
import { isUuid } from "../../core/lib/ids";

/** Download links are signed and expire within the hour (docs/decisions/media.md, "Media"). */
export const MEDIA_LINK_TTL_SECONDS = 3600;

const decoder = new TextDecoder();
const derivedKeys = new Map<string, WeakMap<Uint8Array, Promise<string>>>();

/**
 * A key derived from a JWT key under its own label (`media-link`, `media-upload`), so a media
 * signature can never stand in for a token signature, nor a link for an upload form.
 */
function labelledKey(secret: Uint8Array, label: string): Promise<string> {
  let byLabel = derivedKeys.get(label);
  if (!byLabel) {
    byLabel = new WeakMap();
    derivedKeys.set(label, byLabel);
  }
  let key = byLabel.get(secret);
  if (!key) {
    key = hmacHex(decoder.decode(secret), label);
    byLabel.set(secret, key);
  }
  return key;
}

export async function labelledSignature(secret: Uint8Array, label: string, message: string): Promise<string> {
  return hmacHex(await labelledKey(secret, label), message);
}

/** Whether `signature` signs `message` under `label` with any configured JWT key (rotation: all verify). */
export async function verifyLabelledSignature(config: Config, label: string, message: string, signature: string): Promise<boolean> {
  for (const key of config.jwtKeys) {
    if (timingSafeEqual(await labelledSignature(key.secret, label, message), signature.toLowerCase())) return true;
  }
  return false;
}

/** Signature of a media download link: the school, the asset and the expiry (unix seconds). */
export async function mediaLinkSignature(secret: Uint8Array, tenantId: string, assetId: string, exp: number): Promise<string> {
  return labelledSignature(secret, "media-link", `${tenantId}:${assetId}:${exp}`);
}

export async function verifyMediaLink(config: Config, tenantId: string, assetId: string, exp: number, signature: string): Promise<boolean> {
  return verifyLabelledSignature(config, "media-link", `${tenantId}:${assetId}:${exp}`, signature);
}

/**
 * A stored reference (avatar, logo, cover) as clients read it: a URL unchanged, a media-asset id as
 * a fresh signed download link to this worker (`GET /api/v1/media/<id>/download`, absolute on the
 * public origin), valid one hour. The link names no school; its signature binds the asset to the
 * school it was signed for.
 */
export async function mediaUrl(ctx: Pick<ServiceContext, "clock" | "config" | "publicOrigin">, tenantId: string | null, reference: string | null): Promise<string | null> {
  if (reference === null || !isUuid(reference)) return reference;
  const exp = Math.floor(ctx.clock.now() / 1000) + MEDIA_LINK_TTL_SECONDS;
  const sig = await mediaLinkSignature(ctx.config.jwtKeys[0]!.secret, tenantId ?? "", reference, exp);
  return publicLink(ctx, `/api/v1/media/${reference}/download?exp=${exp}&sig=${sig}`);
}
