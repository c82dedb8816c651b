import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { hashPassword, PBKDF2_ITERATIONS, verifyPassword } from "../../src/platform/auth/password";

// Deployed Workers refuse PBKDF2 above 100,000 iterations; local workerd does not, so only this test catches it.
const WORKERS_PBKDF2_CAP = 100_000;

describe("password hashing", () => {
  it("stays within the deployed Workers PBKDF2 iteration cap", async () => {
    expect(PBKDF2_ITERATIONS).toBeLessThanOrEqual(WORKERS_PBKDF2_CAP);
    const stored = await hashPassword("some password", env.PASSWORD_PEPPER);
    const [scheme, iterations, salt, hash] = stored.split("$");
    expect(scheme).toBe("pbkdf2-sha256");
    expect(Number(iterations)).toBeLessThanOrEqual(WORKERS_PBKDF2_CAP);
    expect(salt).toHaveLength(22); // 16 bytes, base64url
    expect(hash).toHaveLength(43); // 32 bytes
  });

  it("verifies the right password only, and depends on the pepper", async () => {
    const stored = await hashPassword("some password", env.PASSWORD_PEPPER);
    expect((await verifyPassword("some password", stored, env.PASSWORD_PEPPER)).valid).toBe(true);
    expect((await verifyPassword("some passw0rd", stored, env.PASSWORD_PEPPER)).valid).toBe(false);
    expect((await verifyPassword("some password", stored, "another-pepper")).valid).toBe(false);
  });

  it("refuses a stored hash whose cost exceeds the cap instead of running it", async () => {
    const tooCostly = `pbkdf2-sha256$${WORKERS_PBKDF2_CAP + 1}$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`;
    expect(await verifyPassword("x", tooCostly, env.PASSWORD_PEPPER)).toEqual({ valid: false, needsRehash: false });
  });
});
