import { describe, expect, it } from "vitest";
import { openWebhookSecret, sealWebhookSecret, webhookSecretKey } from "../../src/platform/webhooks/secrets";

/** The stored format of webhook secrets (docs/decisions/webhooks.md, "Secrets"), checked against WebCrypto alone. */

const RAW = "0123456789abcdef0123456789abcdef";
const b64url = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
const fromB64url = (text: string) => Uint8Array.from(atob(text.replaceAll("-", "+").replaceAll("_", "/") + "=".repeat((4 - (text.length % 4)) % 4)), (c) => c.charCodeAt(0));

/** AES-256-GCM under HKDF-SHA256 (empty salt, info `webhook-secret-v1`) of the configured key. */
async function derived(): Promise<CryptoKey> {
  const master = await crypto.subtle.importKey("raw", new TextEncoder().encode(RAW), "HKDF", false, ["deriveKey"]);
  return crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: new TextEncoder().encode("webhook-secret-v1") },
    master,
    { name: "AES-GCM", length: 256 },
    false,
    ["encrypt", "decrypt"],
  );
}

describe("webhook secret sealing", () => {
  it("opens a w1 ciphertext made with WebCrypto alone, bound to its school and webhook, and seals what WebCrypto opens", async () => {
    const key = (await webhookSecretKey(btoa(RAW)))!;
    const aes = await derived();
    const binding = new TextEncoder().encode("webhook-secret:school-1:hook-1");
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const data = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: binding }, aes, new TextEncoder().encode("whsec_stored")));
    const stored = `w1.${b64url(iv)}.${b64url(data)}`;
    expect(await openWebhookSecret(key, stored, "school-1", "hook-1")).toBe("whsec_stored");
    await expect(openWebhookSecret(key, stored, "school-1", "hook-2")).rejects.toThrow();
    await expect(openWebhookSecret(key, stored, "school-2", "hook-1")).rejects.toThrow();
    await expect(openWebhookSecret(key, `v2.${b64url(iv)}.${b64url(data)}`, "school-1", "hook-1")).rejects.toThrow();

    const sealed = await sealWebhookSecret(key, "whsec_fresh", "school-1", "hook-1");
    const [format, sealedIv, sealedData] = sealed.split(".");
    expect(format).toBe("w1");
    const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: fromB64url(sealedIv!), additionalData: binding }, aes, fromB64url(sealedData!));
    expect(new TextDecoder().decode(plain)).toBe("whsec_fresh");
    expect(await webhookSecretKey(btoa("short"))).toBeNull();
  });
});
