import { describe, expect, it } from "vitest";
import { setClockForTests } from "../../src/core/lib/clock";
import { createSchool, createUser } from "../helpers/factories";
import { api } from "../helpers/http";
import { emailsTo } from "../helpers/outbox";
import { fixtureD1 } from "../helpers/databases";

let seq = 0;
const unique = () => `r${Date.now().toString(36)}${seq++}${Math.floor(Math.random() * 1e4)}`;

function registration(overrides: Record<string, unknown> = {}) {
  const slug = unique();
  return { tenant_title: "Registered School", tenant_slug: slug, email: `founder.${slug}@example.test`, password: "founder-pass-1", first_name: "Dilnoza", last_name: "Karimova", ...overrides };
}

async function register(overrides: Record<string, unknown> = {}) {
  const body = registration(overrides);
  const res = await api("/auth/register", { body });
  return { body, res };
}

describe("POST /auth/register", () => {
  it("creates a pending trial school, its admin and a queued verification email", async () => {
    const { body, res } = await register();
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({ verification_required: true, email: body.email, verification_expires_at: expect.any(String) });
    const school = await fixtureD1.prepare("SELECT * FROM tenants WHERE slug = ?").bind(body.tenant_slug).first<Record<string, unknown>>();
    expect(school).toMatchObject({ status: "pending", plan_state: "trial", subdomain: body.tenant_slug });
    expect(Number(school!.expires_at) - Date.now()).toBeGreaterThan(13 * 86_400_000);
    const admin = await fixtureD1.prepare("SELECT role, tenant_id, email_verified_at FROM users WHERE email = ?").bind(body.email).first();
    expect(admin).toEqual({ role: "admin", tenant_id: school!.id, email_verified_at: null });
    const [email] = await emailsTo(body.email);
    expect(email).toMatchObject({ kind: "verification", tenant_id: school!.id, locale: "ru" });
    expect(typeof email!.metaJson.token).toBe("string");
  });

  it("lower-cases slug, subdomain and email; the subdomain defaults to the slug", async () => {
    const slug = unique().toUpperCase();
    const { res } = await register({ tenant_slug: slug, email: `Mixed.${slug}@Example.TEST`, tenant_subdomain: `${slug}SUB` });
    expect(res.status).toBe(201);
    expect(res.body.data.email).toBe(`mixed.${slug.toLowerCase()}@example.test`);
    const school = await fixtureD1.prepare("SELECT slug, subdomain FROM tenants WHERE slug = ?").bind(slug.toLowerCase()).first();
    expect(school).toEqual({ slug: slug.toLowerCase(), subdomain: `${slug.toLowerCase()}sub` });
  });

  it("400 duplicate key for a taken slug, subdomain or admin email", async () => {
    const existing = await createSchool();
    const admin = await createUser(existing.id, { role: "admin" });
    for (const overrides of [{ tenant_slug: existing.slug }, { tenant_subdomain: existing.subdomain }, { email: admin.email }, { tenant_subdomain: "api" }, { tenant_slug: "WWW" }]) {
      const { res } = await register(overrides);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe("duplicate key");
    }
  });

  it("lets exactly one of two concurrent sign-ups for the same slug win", async () => {
    const body = registration();
    const [a, b] = await Promise.all([api("/auth/register", { body }), api("/auth/register", { body: { ...body, email: `other.${body.email}` } })]);
    expect([a.status, b.status].sort()).toEqual([201, 400]);
  });

  it("holds slug and subdomain as one namespace under concurrency: a slug and another school's subdomain never collide", async () => {
    const name = unique();
    const [a, b] = await Promise.all([
      api("/auth/register", { body: registration({ tenant_slug: name }) }),
      api("/auth/register", { body: registration({ tenant_subdomain: name }) }),
    ]);
    expect([a.status, b.status].sort()).toEqual([201, 400]);
    const count = await fixtureD1.prepare("SELECT count(*) AS n FROM tenants WHERE slug = ?1 OR subdomain = ?1").bind(name).first<{ n: number }>();
    expect(count!.n).toBe(1);
  });

  it("lets the admin email of a deleted school found a new one", async () => {
    const { body } = await register();
    await fixtureD1.prepare("UPDATE tenants SET deleted_at = ? WHERE slug = ?").bind(Date.now(), body.tenant_slug).run();
    const { res } = await register({ email: body.email });
    expect(res.status).toBe(201);
  });

  it("400 invalid_request_body for bad input", async () => {
    for (const overrides of [{ tenant_slug: "a" }, { tenant_slug: "has-dash" }, { password: "short" }, { email: "nope" }, { tenant_title: "x" }, { first_name: "" }]) {
      const { res } = await register(overrides);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe("invalid_request_body");
    }
  });
});

describe("POST /auth/verify-email", () => {
  it("activates the school once; the token is single-use and login then works", async () => {
    const { body } = await register();
    const [email] = await emailsTo(body.email);
    const token = email!.metaJson.token as string;
    const res = await api("/auth/verify-email", { body: { token } });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ login_required: true, tenant_subdomain: body.tenant_slug, user: { id: expect.any(String), email: body.email, role: "admin" } });
    const again = await api("/auth/verify-email", { body: { token } });
    expect(again.status).toBe(400);
    expect(again.body.error).toBe("invalid_or_expired_email_verification");
    const login = await api("/auth/login", { body: { email: body.email, password: body.password, subdomain: body.tenant_slug } });
    expect(login.status).toBe(200);
  });

  it("refuses the link of a school deleted meanwhile", async () => {
    const { body } = await register();
    const [email] = await emailsTo(body.email);
    await fixtureD1.prepare("UPDATE tenants SET deleted_at = ? WHERE slug = ?").bind(Date.now(), body.tenant_slug).run();
    const res = await api("/auth/verify-email", { body: { token: email!.metaJson.token } });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("invalid_or_expired_email_verification");
  });

  it("400 invalid_or_expired_email_verification for an unknown, expired or missing token", async () => {
    const { body } = await register();
    const [email] = await emailsTo(body.email);
    expect((await api("/auth/verify-email", { body: { token: "unknown-token" } })).body.error).toBe("invalid_or_expired_email_verification");
    expect((await api("/auth/verify-email", { body: {} })).body.error).toBe("invalid_or_expired_email_verification");
    const later = Date.now() + 49 * 3_600_000;
    setClockForTests({ now: () => later });
    const expired = await api("/auth/verify-email", { body: { token: email!.metaJson.token } });
    expect(expired.status).toBe(400);
    expect(expired.body.error).toBe("invalid_or_expired_email_verification");
  });
});

describe("POST /auth/resend-verification", () => {
  it("answers neutrally, respects the one-minute cooldown and invalidates the old link", async () => {
    const { body } = await register();
    const neutral = { success: true, data: { message: expect.any(String) } };
    const within = await api("/auth/resend-verification", { body: { email: body.email, subdomain: body.tenant_slug } });
    expect(within.status).toBe(200);
    expect(within.body).toEqual(neutral);
    expect(await emailsTo(body.email)).toHaveLength(1);

    const later = Date.now() + 61_000;
    setClockForTests({ now: () => later });
    const after = await api("/auth/resend-verification", { body: { email: body.email, subdomain: body.tenant_slug } });
    expect(after.body).toEqual(neutral);
    const emails = await emailsTo(body.email);
    expect(emails).toHaveLength(2);
    const [newest, oldest] = emails;
    expect((await api("/auth/verify-email", { body: { token: oldest!.metaJson.token } })).status).toBe(400);
    expect((await api("/auth/verify-email", { body: { token: newest!.metaJson.token } })).status).toBe(200);
  });

  it("gives the same answer for unknown schools, unknown emails and active schools", async () => {
    const active = await createSchool();
    const admin = await createUser(active.id, { role: "admin" });
    const answers = await Promise.all([
      api("/auth/resend-verification", { body: { email: "nobody@example.test", subdomain: "nosuchschool" } }),
      api("/auth/resend-verification", { body: { email: admin.email, subdomain: active.subdomain } }),
    ]);
    for (const res of answers) {
      expect(res.status).toBe(200);
      expect(res.body.data.message).toBe(answers[0]!.body.data.message);
    }
    expect(await emailsTo(admin.email)).toHaveLength(0);
  });

  it("issues one new link for concurrent resends", async () => {
    const { body } = await register();
    const later = Date.now() + 61_000;
    setClockForTests({ now: () => later });
    await Promise.all(Array.from({ length: 5 }, () => api("/auth/resend-verification", { body: { email: body.email, subdomain: body.tenant_slug } })));
    expect(await emailsTo(body.email)).toHaveLength(2);
  });
});
