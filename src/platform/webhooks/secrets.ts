import { decodeKey32, derivedKey, openSecret, sealSecret } from "../../core/lib/crypto";

/**
 * Webhook signing secrets (docs/decisions/webhooks.md, "Secrets"): `whsec_` + base64 of 32 random
 * bytes, shown once. Stored AES-256-GCM sealed under a key derived (HKDF) from PUSH_TOKEN_KEY with
 * its own label, bound to the school and the webhook, so one configured key serves both kinds of
 * write-only secret and a ciphertext copied onto another row does not open.
 */

const encoder = new TextEncoder();
const FORMAT = "w1";

export async function webhookSecretKey(rawKey: string | undefined | null): Promise<CryptoKey | null> {
  // The same configured key as push tokens, read the same way (core/lib/crypto.ts).
  const bytes = decodeKey32(rawKey);
  if (!bytes) return null;
  return derivedKey(bytes, "webhook-secret-v1", { name: "AES-GCM", length: 256 }, ["encrypt", "decrypt"]);
}

/** A fresh signing secret as Standard Webhooks spells it. */
export function newWebhookSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `whsec_${btoa(binary)}`;
}

const binding = (tenantId: string, webhookId: string) => `webhook-secret:${tenantId}:${webhookId}`;

export function sealWebhookSecret(key: CryptoKey, secret: string, tenantId: string, webhookId: string): Promise<string> {
  return sealSecret(key, FORMAT, secret, binding(tenantId, webhookId));
}

export function openWebhookSecret(key: CryptoKey, ciphertext: string, tenantId: string, webhookId: string): Promise<string> {
  return openSecret(key, FORMAT, ciphertext, binding(tenantId, webhookId));
}

/** `v1,<base64 HMAC-SHA256>` of `{id}.{timestamp}.{body}` under the secret's decoded bytes (Standard Webhooks). */
export async function signatureOf(secret: string, id: string, timestampSeconds: number, body: string): Promise<string> {
  const raw = Uint8Array.from(atob(secret.slice("whsec_".length)), (char) => char.charCodeAt(0));
  const hmac = await crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", hmac, encoder.encode(`${id}.${timestampSeconds}.${body}`)));
  let binary = "";
  for (const byte of mac) binary += String.fromCharCode(byte);
  return `v1,${btoa(binary)}`;
}
