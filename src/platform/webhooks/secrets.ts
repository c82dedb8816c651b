import { decodeKey32, fromBase64Url, toBase64Url } from "../../core/lib/crypto";

/**
 * Webhook signing secrets (docs/decisions/webhooks.md, "Secrets"): `whsec_` + base64 of 32 random
 * bytes, shown once. Stored AES-256-GCM sealed under a key derived (HKDF) from PUSH_TOKEN_KEY with
 * its own label, bound to the school and the webhook, so one configured key serves both kinds of
 * write-only secret and a ciphertext copied onto another row does not open.
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const FORMAT = "w1";

export async function webhookSecretKey(rawKey: string | undefined | null): Promise<CryptoKey | null> {
  // The same configured key as push tokens, read the same way (core/lib/crypto.ts).
  const bytes = decodeKey32(rawKey);
  if (!bytes) return null;
  const master = await crypto.subtle.importKey("raw", bytes, "HKDF", false, ["deriveKey"]);
  return crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: encoder.encode("webhook-secret-v1") },
    master,
    { name: "AES-GCM", length: 256 },
    false,
    ["encrypt", "decrypt"],
  );
}

/** A fresh signing secret as Standard Webhooks spells it. */
export function newWebhookSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `whsec_${btoa(binary)}`;
}

const binding = (tenantId: string, webhookId: string) => encoder.encode(`webhook-secret:${tenantId}:${webhookId}`);

export async function sealWebhookSecret(key: CryptoKey, secret: string, tenantId: string, webhookId: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: binding(tenantId, webhookId) }, key, encoder.encode(secret));
  return `${FORMAT}.${toBase64Url(iv)}.${toBase64Url(new Uint8Array(sealed))}`;
}

export async function openWebhookSecret(key: CryptoKey, ciphertext: string, tenantId: string, webhookId: string): Promise<string> {
  const [format, iv, data] = ciphertext.split(".");
  if (format !== FORMAT || !iv || !data) throw new Error("unknown webhook secret ciphertext format");
  const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: fromBase64Url(iv), additionalData: binding(tenantId, webhookId) }, key, fromBase64Url(data));
  return decoder.decode(plain);
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
