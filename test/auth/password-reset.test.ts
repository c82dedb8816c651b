import { describe, expect, it } from "vitest";
import { setClockForTests } from "../../src/core/lib/clock";
import { createSchool, createUser, login } from "../helpers/factories";
import { api, failure } from "../helpers/http";
import { emailsTo } from "../helpers/outbox";
import { fixtureD1 } from "../helpers/databases";

async function requestCode(email: string, subdomain: string) {
  const res = await api("/auth/forgot-password", { body: { email, subdomain } });
  expect(res.status).toBe(200);
  const [latest] = await emailsTo(email);
  return latest!.metaJson.code as string;
}

const reset = (email: string, subdomain: string, code: string, password = "brand-new-pass") =>
  api("/auth/reset-password", { body: { email, subdomain, code, new_password: password } });

const wrongCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, "0");

/** The user's reset-code rows, oldest first, straight from D1. */
async function codeRows(userId: string) {
  const { results } = await fixtureD1.prepare("SELECT created_at, used_at, invalidated_at FROM password_reset_codes WHERE user_id = ? ORDER BY created_at")
    .bind(userId)
    .all<{ created_at: number; used_at: number | null; invalidated_at: number | null }>();
  return results;
}

describe("POST /auth/forgot-password", () => {
  it("issues a 6-digit code and answers with a message", async () => {
    const school = await createSchool();
    const user = await createUser(school.id);
    const res = await api("/auth/forgot-password", { body: { email: user.email, subdomain: school.subdomain } });
    expect(res.body).toEqual({ success: true, data: { message: expect.any(String) } });
    const [email] = await emailsTo(user.email);
    expect(email!.kind).toBe("password_reset");
    expect(email!.metaJson.code).toMatch(/^\d{6}$/);
  });

  it("404 for an email without an account in that school; 400 validation error for bad input", async () => {
    const school = await createSchool();
    const user = await createUser(school.id);
    const other = await createSchool();
    const missing = await api("/auth/forgot-password", { body: { email: user.email, subdomain: other.subdomain } });
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe("no account with this email and school");
    expect((await api("/auth/forgot-password", { body: { email: user.email } })).body.error).toBe("no account with this email and school");
    for (const body of [{ email: "bad" }, { email: user.email, subdomain: "not valid!" }, {}]) {
      const res = await api("/auth/forgot-password", { body });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe("validation error");
    }
  });
});

describe("POST /auth/reset-password", () => {
  it("sets the new password, consumes the code and revokes existing sessions", async () => {
    const school = await createSchool();
    const user = await createUser(school.id);
    const session = await login(user, { subdomain: school.subdomain });
    const code = await requestCode(user.email, school.subdomain);
    const res = await reset(user.email, school.subdomain, code);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { message: expect.any(String) } });
    expect(failure(await api("/auth/me", { token: session.token, tenant: school.subdomain }))).toEqual({ status: 401, error: "unauthorized" });
    expect((await api("/auth/login", { body: { email: user.email, password: "brand-new-pass", subdomain: school.subdomain } })).status).toBe(200);
    const reused = await reset(user.email, school.subdomain, code);
    expect(reused.status).toBe(400);
    expect(reused.body.error).toBe("invalid or expired confirmation code");
  });

  it("resets the superadmin's password with an empty subdomain", async () => {
    const superadmin = await createUser(null, { role: "superadmin" });
    const code = await requestCode(superadmin.email, "");
    expect((await reset(superadmin.email, "", code)).status).toBe(200);
  });

  it("blocks the code after 5 wrong attempts: 423 even for the right code", async () => {
    const school = await createSchool();
    const user = await createUser(school.id);
    const code = await requestCode(user.email, school.subdomain);
    for (let i = 0; i < 5; i++) {
      const res = await reset(user.email, school.subdomain, wrongCode(code));
      expect(res.status).toBe(400);
      expect(res.body.error).toBe("invalid or expired confirmation code");
    }
    const blocked = await reset(user.email, school.subdomain, code);
    expect(failure(blocked)).toEqual({ status: 423, error: "too many attempts, request a new code" });
  });

  it("counts concurrent wrong attempts atomically", async () => {
    const school = await createSchool();
    const user = await createUser(school.id);
    const code = await requestCode(user.email, school.subdomain);
    const results = await Promise.all(Array.from({ length: 12 }, () => reset(user.email, school.subdomain, wrongCode(code))));
    const answers = results.map(failure);
    expect(answers.filter((answer) => answer.status === 400)).toEqual(Array(5).fill({ status: 400, error: "invalid or expired confirmation code" }));
    expect(answers.filter((answer) => answer.status === 423)).toEqual(Array(7).fill({ status: 423, error: "too many attempts, request a new code" }));
    expect(failure(await reset(user.email, school.subdomain, code))).toEqual({ status: 423, error: "too many attempts, request a new code" });
  });

  it("a newer request (a minute later) replaces the code; an expired code is refused", async () => {
    const school = await createSchool();
    const user = await createUser(school.id);
    const start = Date.now();
    setClockForTests({ now: () => start });
    const first = await requestCode(user.email, school.subdomain);
    // Two random 6-digit codes collide once in a million runs: ask again a minute later until they
    // differ, so the refusal below is always the old code's and never the new one's.
    let second = first;
    let issuedAt = start;
    let requests = 1;
    while (second === first) {
      issuedAt += 61_000;
      setClockForTests({ now: () => issuedAt });
      second = await requestCode(user.email, school.subdomain);
      requests += 1;
    }
    expect(await emailsTo(user.email)).toHaveLength(requests);
    const rows = await codeRows(user.id);
    expect(rows).toHaveLength(requests);
    expect(rows.filter((row) => row.used_at === null && row.invalidated_at === null)).toEqual([expect.objectContaining({ created_at: issuedAt })]);

    expect(failure(await reset(user.email, school.subdomain, first))).toEqual({ status: 400, error: "invalid or expired confirmation code" });
    setClockForTests({ now: () => issuedAt + 16 * 60_000 });
    const expired = await reset(user.email, school.subdomain, second);
    expect(failure(expired)).toEqual({ status: 400, error: "invalid or expired confirmation code" });
  });

  it("throttles code requests per user: one a minute, five an hour, same answer", async () => {
    const school = await createSchool();
    const user = await createUser(school.id);
    const start = Date.now();
    const code = await requestCode(user.email, school.subdomain);
    const again = await api("/auth/forgot-password", { body: { email: user.email, subdomain: school.subdomain } });
    expect(again.status).toBe(200);
    expect(await emailsTo(user.email)).toHaveLength(1);
    // The code already sent still works after a throttled request.
    expect((await reset(user.email, school.subdomain, code)).status).toBe(200);
    for (let minute = 1; minute <= 6; minute++) {
      setClockForTests({ now: () => start + minute * 61_000 });
      await api("/auth/forgot-password", { body: { email: user.email, subdomain: school.subdomain } });
    }
    expect(await emailsTo(user.email)).toHaveLength(5);
  });

  it("400 validation error for a malformed code or a short password", async () => {
    const school = await createSchool();
    const user = await createUser(school.id);
    for (const [code, password] of [["12345", "long-enough-1"], ["12a456", "long-enough-1"], ["123456", "short"]] as const) {
      const res = await reset(user.email, school.subdomain, code, password);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe("validation error");
    }
  });
});
