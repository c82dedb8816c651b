import { upsert } from "../lib/sql.mjs";
import { DEMO, id } from "./demo.mjs";

/**
 * The demo school has one webhook, disabled, pointing at a receiver on this machine
 * (http://127.0.0.1:9999/webhooks; loopback is allowed by `WEBHOOKS_ALLOW_LOOPBACK` in .dev.vars):
 * start a receiver there, enable it (PATCH status active) and send a test delivery. Its secret is
 * sealed as the Worker seals one (docs/decisions/webhooks.md, "Secrets"); rotate it to see a fresh
 * one. Without PUSH_TOKEN_KEY the webhook is left out. A later run puts back URL, events and status.
 */
export const DEMO_WEBHOOK_ID = id(0x2601);
const DEMO_SECRET = `whsec_${Buffer.from("demo-webhook-secret-32-bytes-abc").toString("base64")}`;

export async function webhooks({ now, pushTokenKey }) {
  const sealed = pushTokenKey ? await seal(pushTokenKey, DEMO_SECRET, DEMO.tenantId, DEMO_WEBHOOK_ID) : null;
  if (!sealed) return [];
  return [
    upsert(
      "webhooks",
      {
        id: DEMO_WEBHOOK_ID,
        tenant_id: DEMO.tenantId,
        url: "http://127.0.0.1:9999/webhooks",
        events: JSON.stringify(["*"]),
        description: "Demo: a receiver on this machine",
        status: "disabled",
        secret_ciphertext: sealed,
        consecutive_failures: 0,
        created_at: now,
        updated_at: now,
      },
      { restore: ["url", "events", "status"], touch: "updated_at" },
    ),
  ];
}

const b64url = (bytes) => Buffer.from(bytes).toString("base64url");

/** AES-GCM under the HKDF-derived webhook key, bound to the school and webhook (src/platform/webhooks/secrets.ts). */
async function seal(pushTokenKey, secret, tenantId, webhookId) {
  const raw = Buffer.from(pushTokenKey.trim().replace(/=+$/, ""), "base64url");
  if (raw.byteLength !== 32) return null;
  const master = await crypto.subtle.importKey("raw", raw, "HKDF", false, ["deriveKey"]);
  const key = await crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: new TextEncoder().encode("webhook-secret-v1") },
    master,
    { name: "AES-GCM", length: 256 },
    false,
    ["encrypt"],
  );
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const data = await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: new TextEncoder().encode(`webhook-secret:${tenantId}:${webhookId}`) }, key, new TextEncoder().encode(secret));
  return `w1.${b64url(iv)}.${b64url(new Uint8Array(data))}`;
}
