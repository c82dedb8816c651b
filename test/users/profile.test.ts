import { describe, expect, it } from "vitest";
import * as schema from "../../src/db/schema";
import { DEFAULT_DEVICE_POLICY } from "../../src/platform/devices/policy";
import { createSchool, createUser, db, login } from "../helpers/factories";
import { api, failure } from "../helpers/http";
import { as, sessionRow, signedIn, type Member } from "../helpers/users";
import { storedImage } from "../media/helpers";

async function secondSession(member: Member) {
  const session = await login({ email: member.email, password: member.password }, { subdomain: member.subdomain });
  return { ...member, token: session.token, sessionId: session.session_id };
}

describe("GET /t/me/profile", () => {
  it("answers the caller's user fields, role and a school summary", async () => {
    const school = await createSchool();
    for (const role of ["student", "curator", "admin"] as const) {
      const member = await signedIn(school, { role });
      const res = await as(member, "/t/me/profile");
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({
        id: member.id,
        tenant_id: school.id,
        email: member.email,
        first_name: "Test",
        last_name: "User",
        avatar: null,
        role,
        is_active: true,
        // Signing in is activity: the member's own profile shows when.
        last_active_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
        created_at: expect.any(String),
        updated_at: expect.any(String),
        tenant: {
          id: school.id,
          subdomain: school.subdomain,
          title: school.title,
          plan_state: "paid",
          expires_at: new Date(school.expiresAt!).toISOString(),
          days_remaining: expect.any(Number),
        },
      });
    }
  });

  it("answers 403 `forbidden` to the superadmin (no school profile) and 401 without a token", async () => {
    const school = await createSchool();
    const superadmin = await createUser(null);
    const session = await login(superadmin);
    const res = await api("/t/me/profile", { token: session.token, tenant: school.subdomain });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe("forbidden");
    expect(failure(await api("/t/me/profile", { tenant: school.subdomain }))).toEqual({ status: 401, error: "unauthorized" });
  });

  it("answers PATCH /t/me/profile and POST /t/me/password with 403 `forbidden` to the superadmin", async () => {
    const school = await createSchool();
    const superadmin = await createUser(null);
    const session = await login(superadmin);
    const call = (path: string, method: string, body: unknown) => api(path, { method, body, token: session.token, tenant: school.subdomain });
    expect(failure(await call("/t/me/profile", "PATCH", { first_name: "Platform" }))).toEqual({ status: 403, error: "forbidden" });
    const password = await call("/t/me/password", "POST", { current_password: superadmin.password, new_password: "a-brand-new-secret" });
    expect(failure(password)).toEqual({ status: 403, error: "forbidden" });
    await expect(login({ email: superadmin.email, password: superadmin.password })).resolves.toMatchObject({ token: expect.any(String) });
  });
});

describe("PATCH /t/me/profile", () => {
  it("updates own names and avatar (an asset id reads as a signed link; null removes it)", async () => {
    const school = await createSchool();
    const member = await signedIn(school, { role: "student" });
    const res = await as(member, "/t/me/profile", {
      method: "PATCH",
      body: { first_name: "Sardor", last_name: "Rahimov", avatar: "https://cdn.example.com/s.png" },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: {
        id: member.id,
        tenant_id: school.id,
        email: member.email,
        first_name: "Sardor",
        last_name: "Rahimov",
        avatar: "https://cdn.example.com/s.png",
        role: "student",
        is_active: true,
        // Signing in is activity: the member's own profile shows when.
        last_active_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
        created_at: expect.any(String),
        updated_at: expect.any(String),
        tenant: {
          id: school.id,
          subdomain: school.subdomain,
          title: school.title,
          plan_state: "paid",
          expires_at: new Date(school.expiresAt!).toISOString(),
          days_remaining: expect.any(Number),
        },
      },
    });
    const asset = await storedImage(school.id);
    const withAsset = await as(member, "/t/me/profile", { method: "PATCH", body: { avatar: asset } });
    expect(withAsset.body.data.avatar).toMatch(new RegExp(`^https://api\\.lms\\.localhost/api/v1/media/${asset}/download\\?exp=\\d+&sig=[0-9a-f]{64}$`));
    const removed = await as(member, "/t/me/profile", { method: "PATCH", body: { avatar: null } });
    expect(removed.body.data.avatar).toBeNull();
    expect((await as(member, "/t/me/profile")).body.data.first_name).toBe("Sardor");
  });

  it("answers 400 `invalid_request_body` for short names, a non-https avatar or a role or status change (keys the profile does not list)", async () => {
    const school = await createSchool();
    const member = await signedIn(school, { role: "student" });
    for (const body of [{ first_name: "S" }, { last_name: "" }, { avatar: "ftp://example.com/a.png" }, { avatar: 7 }]) {
      const res = await as(member, "/t/me/profile", { method: "PATCH", body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe("invalid_request_body");
    }
    const sneaky = await as(member, "/t/me/profile", { method: "PATCH", body: { role: "admin", is_active: false } });
    expect(failure(sneaky)).toEqual({ status: 400, error: "invalid_request_body" });
    expect(sneaky.body.message).toMatch(/"role"/);
    expect((await as(member, "/t/me/profile")).body.data).toMatchObject({ role: "student", is_active: true });
  });
});

describe("POST /t/me/password", () => {
  it("changes the password and, by the default policy, revokes the other sessions but not the current one", async () => {
    const school = await createSchool();
    const member = await signedIn(school, { role: "student" });
    const other = await secondSession(member);
    const res = await as(member, "/t/me/password", { body: { current_password: member.password, new_password: "a-brand-new-secret" } });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ password_changed: true, other_sessions_revoked: 1 });
    expect((await sessionRow(other.sessionId))!.revokedAt).not.toBeNull();
    expect(failure(await as(other, "/t/me/profile"))).toEqual({ status: 401, error: "unauthorized" });
    expect((await as(member, "/t/me/profile")).status).toBe(200);
    await expect(login({ email: member.email, password: "a-brand-new-secret" }, { subdomain: school.subdomain })).resolves.toMatchObject({ token: expect.any(String) });
    await expect(login({ email: member.email, password: member.password }, { subdomain: school.subdomain })).rejects.toThrow(/400/);
  });

  it("keeps the other sessions when the school's revoke_on_password_change is off", async () => {
    const school = await createSchool();
    await db()
      .insert(schema.devicePolicies)
      .values({ tenantId: school.id, ...DEFAULT_DEVICE_POLICY, revokeOnPasswordChange: false, updatedAt: Date.now() });
    const member = await signedIn(school, { role: "curator" });
    const other = await secondSession(member);
    const res = await as(member, "/t/me/password", { body: { current_password: member.password, new_password: "another-new-secret" } });
    expect(res.body.data).toEqual({ password_changed: true, other_sessions_revoked: 0 });
    expect((await as(other, "/t/me/profile")).status).toBe(200);
  });

  it("locks current-password guessing like sign-in: 423 from the 6th wrong try", async () => {
    const school = await createSchool();
    const user = await createUser(school.id, { role: "student" });
    const session = await login(user, { subdomain: school.subdomain });
    const attempt = (current: string) =>
      api("/t/me/password", { token: session.token, tenant: school.subdomain, body: { current_password: current, new_password: "next-password-1" } });
    for (let i = 0; i < 5; i++) expect((await attempt("wrong-password")).body.error).toBe("invalid current password");
    const locked = await attempt(user.password);
    expect(failure(locked)).toEqual({ status: 423, error: "too many attempts, try again later" });
  });

  it("answers 400 `invalid current password` for a wrong current password and `invalid_request_body` for a short new one", async () => {
    const school = await createSchool();
    const member = await signedIn(school, { role: "admin" });
    const other = await secondSession(member);
    const wrong = await as(member, "/t/me/password", { body: { current_password: "not-the-password", new_password: "a-brand-new-secret" } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe("invalid current password");
    expect((await as(other, "/t/me/profile")).status).toBe(200);
    for (const body of [{ current_password: member.password, new_password: "short" }, { new_password: "long-enough-1" }]) {
      const res = await as(member, "/t/me/password", { body });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe("invalid_request_body");
    }
  });
});
