import { describe, expect, it } from "vitest";
import { openPushToken, pushTokenHash, pushTokenKeys, sealPushToken } from "../../src/platform/notifications/push-token-crypto";

const KEY = btoa("0123456789abcdef0123456789abcdef");
const OTHER_KEY = btoa("fedcba9876543210fedcba9876543210");

describe("push token crypto", () => {
  it("accepts only base64 of exactly 32 bytes", async () => {
    expect(await pushTokenKeys(KEY)).not.toBeNull();
    for (const bad of [undefined, null, "", "   ", btoa("too short"), btoa("x".repeat(33)), "%%%not-base64%%%"]) {
      expect(await pushTokenKeys(bad)).toBeNull();
    }
  });

  it("seals with a fresh IV each time, opens back, and hashes deterministically under the key", async () => {
    const keys = (await pushTokenKeys(KEY))!;
    const a = await sealPushToken(keys, "device-token-1");
    const b = await sealPushToken(keys, "device-token-1");
    expect(a.ciphertext).not.toBe(b.ciphertext);
    expect(a.ciphertext).not.toContain("device-token-1");
    expect(a.hash).toBe(b.hash);
    expect(a.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(await openPushToken(keys, a.ciphertext)).toBe("device-token-1");
    expect(await pushTokenHash(keys, "device-token-2")).not.toBe(a.hash);
  });

  it("refuses a wrong key or tampered ciphertext", async () => {
    const keys = (await pushTokenKeys(KEY))!;
    const other = (await pushTokenKeys(OTHER_KEY))!;
    const sealed = await sealPushToken(keys, "device-token");
    await expect(openPushToken(other, sealed.ciphertext)).rejects.toThrow();
    const tampered = sealed.ciphertext.slice(0, -2) + (sealed.ciphertext.endsWith("A") ? "BB" : "AA");
    await expect(openPushToken(keys, tampered)).rejects.toThrow();
    expect(await pushTokenHash(other, "device-token")).not.toBe(sealed.hash);
  });

  it("opens ciphertexts in the stored formats (v1 unbound, v2 bound), made here with WebCrypto alone, and seals what WebCrypto opens", async () => {
    const keys = (await pushTokenKeys(KEY))!;
    const aes = await crypto.subtle.importKey("raw", new TextEncoder().encode("0123456789abcdef0123456789abcdef"), { name: "AES-GCM" }, false, ["encrypt", "decrypt"]);
    const b64url = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
    const fromB64url = (text: string) => Uint8Array.from(atob(text.replaceAll("-", "+").replaceAll("_", "/") + "=".repeat((4 - (text.length % 4)) % 4)), (c) => c.charCodeAt(0));
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const v1 = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv }, aes, new TextEncoder().encode("stored-unbound")));
    expect(await openPushToken(keys, `v1.${b64url(iv)}.${b64url(v1)}`)).toBe("stored-unbound");
    const binding = "push-token:school-1:installation-1";
    const v2 = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: new TextEncoder().encode(binding) }, aes, new TextEncoder().encode("stored-bound")));
    expect(await openPushToken(keys, `v2.${b64url(iv)}.${b64url(v2)}`, binding)).toBe("stored-bound");
    await expect(openPushToken(keys, `v2.${b64url(iv)}.${b64url(v2)}`, "push-token:school-2:installation-1")).rejects.toThrow();
    await expect(openPushToken(keys, `v2.${b64url(iv)}.${b64url(v2)}`)).rejects.toThrow();
    await expect(openPushToken(keys, `w1.${b64url(iv)}.${b64url(v2)}`, binding)).rejects.toThrow();

    const [format, sealedIv, data] = (await sealPushToken(keys, "fresh", binding)).ciphertext.split(".");
    expect(format).toBe("v2");
    const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: fromB64url(sealedIv!), additionalData: new TextEncoder().encode(binding) }, aes, fromB64url(data!));
    expect(new TextDecoder().decode(plain)).toBe("fresh");
  });
});
