import { env } from "cloudflare:test";
import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { app } from "../../src/app";
import { setClockForTests } from "../../src/core/lib/clock";
import { decodeJwtPart } from "../helpers/auth";
import { createSchool, createUser, login } from "../helpers/factories";
import { api, failure, readResponse } from "../helpers/http";
import { fixtureD1 } from "../helpers/databases";

const secretOf = (kid: string) => {
  const entry = env.JWT_SECRETS.split(",").find((item) => item.startsWith(`${kid}:`))!;
  return new TextEncoder().encode(entry.slice(kid.length + 1));
};

async function sign(claims: Record<string, unknown>, options: { kid?: string; secret?: Uint8Array; expiresIn?: number } = {}) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ jti: crypto.randomUUID(), ...claims })
    .setProtectedHeader({ alg: "HS256", kid: options.kid ?? "test1" })
    .setIssuedAt(now)
    .setExpirationTime(now + (options.expiresIn ?? 600))
    .sign(options.secret ?? secretOf(options.kid ?? "test1"));
}

async function member() {
  const school = await createSchool();
  const user = await createUser(school.id, { role: "admin" });
  const session = await login(user, { subdomain: school.subdomain });
  return { school, user, session };
}

describe("access tokens", () => {
  it("carries exactly the spec's claims, signed by the newest key", async () => {
    const { school, user, session } = await member();
    expect(decodeJwtPart(session.token, 0)).toEqual({ alg: "HS256", kid: "test2", typ: "JWT" });
    const claims = decodeJwtPart(session.token, 1);
    expect(Object.keys(claims).sort()).toEqual(["exp", "iat", "jti", "role", "sid", "tenant_id", "user_id"]);
    expect(claims).toMatchObject({ user_id: user.id, tenant_id: school.id, role: "admin", sid: session.session_id });
  });

  it("accepts a token signed with a retired but listed key", async () => {
    const { school, user, session } = await member();
    const token = await sign({ user_id: user.id, tenant_id: school.id, role: "admin", sid: session.session_id }, { kid: "test1" });
    expect((await api("/auth/me", { token, tenant: school.subdomain })).status).toBe(200);
  });

  it("rejects an unlisted kid, alg none, a bad signature and an expired token with 401", async () => {
    const { school, user, session } = await member();
    const claims = { user_id: user.id, tenant_id: school.id, role: "admin", sid: session.session_id };
    const unlisted = await sign(claims, { kid: "old0", secret: new TextEncoder().encode("x".repeat(40)) });
    const wrongSecret = await sign(claims, { kid: "test1", secret: new TextEncoder().encode("y".repeat(40)) });
    const expired = await sign(claims, { expiresIn: -10 });
    const encode = (value: object) => btoa(JSON.stringify(value)).replaceAll("=", "").replaceAll("+", "-").replaceAll("/", "_");
    const none = `${encode({ alg: "none", typ: "JWT" })}.${encode({ ...claims, jti: "x", exp: Math.floor(Date.now() / 1000) + 600 })}.`;
    for (const token of [unlisted, wrongSecret, expired, none, "not-a-jwt"]) {
      const res = await api("/auth/me", { token, tenant: school.subdomain });
      expect(failure(res)).toEqual({ status: 401, error: "unauthorized" });
    }
    expect(failure(await api("/auth/me"))).toEqual({ status: 401, error: "unauthorized" });
    expect(failure(await api("/auth/me", { headers: { authorization: "Basic abc" } }))).toEqual({ status: 401, error: "unauthorized" });
  });

  it("rejects a school token sent with another school's header (401)", async () => {
    const { session } = await member();
    const other = await createSchool();
    const res = await api("/auth/me", { token: session.token, tenant: other.subdomain });
    expect(failure(res)).toEqual({ status: 401, error: "unauthorized" });
  });

  it("rejects a token whose user was deactivated, deleted, or whose school was deleted", async () => {
    const cases = ["UPDATE users SET is_active = 0 WHERE id = ?", "UPDATE users SET deleted_at = 1 WHERE id = ?", "UPDATE tenants SET deleted_at = 1 WHERE id = ?"];
    for (const statement of cases) {
      const { school, user, session } = await member();
      await fixtureD1.prepare(statement).bind(statement.includes("tenants") ? school.id : user.id).run();
      expect(failure(await api("/auth/me", { token: session.token, tenant: school.subdomain }))).toEqual({ status: 401, error: "unauthorized" });
    }
  });

  describe("legacy tokens without sid", () => {
    const call = async (token: string, subdomain: string, mode: string, issuedBefore = "") =>
      readResponse(
        await app.request(
          "https://api.lms.localhost/api/v1/auth/me",
          { headers: { authorization: `Bearer ${token}`, "x-tenant-subdomain": subdomain } },
          { ...env, LEGACY_TOKEN_MODE: mode, LEGACY_TOKENS_ISSUED_BEFORE: issuedBefore },
        ),
        { method: "GET", path: "/api/v1/auth/me" },
      );

    it("deny refuses them, allow accepts them, existing_only accepts only those issued before the cutoff", async () => {
      const { school, user } = await member();
      const token = await sign({ user_id: user.id, tenant_id: school.id, role: "admin" });
      expect(failure(await call(token, school.subdomain, "deny"))).toEqual({ status: 401, error: "unauthorized" });
      expect((await call(token, school.subdomain, "allow")).status).toBe(200);
      const future = new Date(Date.now() + 60_000).toISOString();
      const past = new Date(Date.now() - 60_000).toISOString();
      expect((await call(token, school.subdomain, "existing_only", future)).status).toBe(200);
      expect(failure(await call(token, school.subdomain, "existing_only", past))).toEqual({ status: 401, error: "unauthorized" });
    });
  });
});

describe("verified-token cache", () => {
  it("still refuses a token once it expires, and a token under a configuration without its key", async () => {
    const school = await createSchool();
    const user = await createUser(school.id, { role: "admin" });
    const session = await login(user, { subdomain: school.subdomain });
    const me = async (environment: typeof env) =>
      readResponse(await app.request("https://api.lms.localhost/api/v1/auth/me", { headers: { authorization: `Bearer ${session.token}` } }, environment), { method: "GET", path: "/api/v1/auth/me" });
    expect((await me(env)).status).toBe(200);
    expect((await me(env)).status).toBe(200);
    // The signing key (the first listed) is gone from this configuration: the cached verdict of the other one does not apply.
    const withoutSigner = { ...env, JWT_SECRETS: env.JWT_SECRETS.split(",").slice(1).join(",") };
    expect(failure(await me(withoutSigner))).toEqual({ status: 401, error: "unauthorized" });
    setClockForTests({ now: () => Date.parse(session.access_expires_at) });
    expect(failure(await me(env))).toEqual({ status: 401, error: "unauthorized" });
  });
});
