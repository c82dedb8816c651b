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
});
