import { describe, expect, it } from "vitest";
import { DAY_MS, setClockForTests } from "../../src/core/lib/clock";
import { uuidv7 } from "../../src/core/lib/ids";
import { superadminToken, tenantRow, schoolRecord } from "../helpers/billing";
import { createSchool, createUser, login, schoolWithMembers } from "../helpers/factories";
import { api, failure } from "../helpers/http";

const slug = () => `n${Date.now().toString(36)}${Math.floor(Math.random() * 1e9).toString(36)}`;

describe("POST /admin/tenants/", () => {
  it("creates a pending school on a trial period, identifiers lower-cased", async () => {
    const token = await superadminToken();
    const now = Date.now();
    setClockForTests({ now: () => now });
    const name = slug();
    const res = await api("/admin/tenants/", {
      token,
      body: { title: "New School", slug: name.toUpperCase(), subdomain: `${name}X`, color_scheme: "#aa00FF", timezone: "Europe/Berlin" },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      data: {
        id: expect.any(String),
        title: "New School",
        slug: name,
        subdomain: `${name}x`,
        logo: null,
        color_scheme: "#aa00FF",
        hide_tests: false,
        hide_assignments: false,
        hide_trial_exams: false,
        status: "pending",
        timezone: "Europe/Berlin",
        storage_cap_bytes: 10 * 1024 * 1024 * 1024,
        plan_state: "trial",
        expires_at: new Date(now + 14 * DAY_MS).toISOString(),
        created_at: new Date(now).toISOString(),
        updated_at: new Date(now).toISOString(),
      },
    });
  });

  it("also accepts the path without the trailing slash", async () => {
    const token = await superadminToken();
    const name = slug();
    const res = await api("/admin/tenants", { token, body: { title: "No Slash", slug: name, subdomain: name } });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ slug: name, subdomain: name, status: "pending", color_scheme: "#1F6FEB", timezone: "Asia/Tashkent" });
  });

  it("answers 400 slug or subdomain already taken, across both namespaces", async () => {
    const token = await superadminToken();
    const existing = await createSchool();
    const cases = [
      { slug: existing.slug, subdomain: slug() },
      { slug: slug(), subdomain: existing.subdomain.toUpperCase() },
      { slug: existing.subdomain, subdomain: slug() },
    ];
    for (const body of cases) {
      const res = await api("/admin/tenants/", { token, body: { title: "Dup School", ...body } });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe("slug or subdomain already taken");
    }
  });

  it("answers 400 validation error for bad fields", async () => {
    const token = await superadminToken();
    const bad = [
      { title: "X", slug: slug(), subdomain: slug() },
      { title: "Good title", slug: "has-dash", subdomain: slug() },
      { title: "Good title", slug: slug() },
      { title: "Good title", slug: slug(), subdomain: slug(), color_scheme: "#12345" },
      { title: "Good title", slug: slug(), subdomain: slug(), timezone: "Mars/Olympus" },
      { title: "Good title", slug: slug(), subdomain: slug(), logo: "javascript:alert(1)" },
    ];
    for (const body of bad) {
      const res = await api("/admin/tenants/", { token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe("validation error");
    }
    const malformed = await api("/admin/tenants/", { token, raw: "{" });
    expect(malformed.body.error).toBe("validation error");
  });

  it("is superadmin-only: 401 without a token, 403 forbidden for school admins, 400 with a tenant header", async () => {
    const { school, admin } = await schoolWithMembers();
    const body = { title: "Nope School", slug: slug(), subdomain: slug() };
    expect(failure(await api("/admin/tenants/", { body }))).toEqual({ status: 401, error: "unauthorized" });
    const asAdmin = await api("/admin/tenants/", { token: admin.token, body });
    expect(asAdmin.status).toBe(403);
    expect(asAdmin.body.error).toBe("forbidden");
    const withHeader = await api("/admin/tenants/", { token: await superadminToken(), tenant: school.subdomain, body });
    expect(withHeader.status).toBe(400);
    expect(withHeader.body.error).toBe("tenant_header_not_allowed");
  });
});

describe("PUT /admin/tenants/:id", () => {
  it("updates branding, flags, time zone and quota; omitted fields keep their value", async () => {
    const token = await superadminToken();
    const school = await createSchool();
    const res = await api(`/admin/tenants/${school.id}`, {
      method: "PUT",
      token,
      body: { title: "Renamed School", hide_tests: true, logo: "https://cdn.example.com/l.png", timezone: "UTC", storage_cap_bytes: 1024 },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: school.id,
      title: "Renamed School",
      slug: school.slug,
      hide_tests: true,
      hide_assignments: false,
      logo: "https://cdn.example.com/l.png",
      timezone: "UTC",
      storage_cap_bytes: 1024,
      color_scheme: "#1F6FEB",
    });
    const empty = await api(`/admin/tenants/${school.id}`, { method: "PUT", token, body: {} });
    expect(empty.body.data.title).toBe("Renamed School");
  });

  it("refuses to change slug or subdomain (400 validation error)", async () => {
    const token = await superadminToken();
    const school = await createSchool();
    for (const body of [{ slug: "other" }, { subdomain: "other" }, { color_scheme: "red" }]) {
      const res = await api(`/admin/tenants/${school.id}`, { method: "PUT", token, body });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe("validation error");
    }
    expect((await tenantRow(school.id)).slug).toBe(school.slug);
  });

  it("answers 400 invalid id format, 404 tenant not found, 403 forbidden", async () => {
    const token = await superadminToken();
    const bad = await api("/admin/tenants/not-a-uuid", { method: "PUT", token, body: {} });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe("invalid id format");
    const missing = await api(`/admin/tenants/${uuidv7()}`, { method: "PUT", token, body: { title: "Whatever" } });
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe("tenant not found");
    const { school, admin } = await schoolWithMembers();
    const forbidden = await api(`/admin/tenants/${school.id}`, { method: "PUT", token: admin.token, body: {} });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error).toBe("forbidden");
  });
});

describe("DELETE /admin/tenants/:id", () => {
  it("soft-deletes: branding disappears, login fails and existing tokens stop at once", async () => {
    const token = await superadminToken();
    const { school, admin, student } = await schoolWithMembers();
    expect((await api(`/public/tenant?subdomain=${school.subdomain}`)).status).toBe(200);
    expect((await api("/t/tenant", { token: student.token, tenant: school.subdomain })).status).toBe(200);

    const res = await api(`/admin/tenants/${school.id}`, { method: "DELETE", token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { deleted: true } });

    expect((await api(`/public/tenant?subdomain=${school.subdomain}`)).body.error).toBe("tenant_not_found");
    const me = await api("/t/tenant", { token: student.token, tenant: school.subdomain });
    expect(failure(me)).toEqual({ status: 401, error: "unauthorized" });
    const relogin = await api("/auth/login", { body: { email: admin.email, password: admin.password, subdomain: school.subdomain } });
    expect(relogin.status).toBe(400);
    expect(relogin.body.error).toBe("invalid credentials");

    const again = await api(`/admin/tenants/${school.id}`, { method: "DELETE", token });
    expect(again.status).toBe(404);
    expect(again.body.error).toBe("tenant not found");
    expect((await api(`/admin/tenants/${school.id}`, { token })).body.error).toBe("tenant not found");
    expect((await api(`/admin/tenants/${school.id}`, { method: "PUT", token, body: {} })).body.error).toBe("tenant not found");
  });

  it("frees the slug and subdomain for a new school", async () => {
    const token = await superadminToken();
    const school = await createSchool();
    await api(`/admin/tenants/${school.id}`, { method: "DELETE", token });
    const res = await api("/admin/tenants/", { token, body: { title: "Reborn", slug: school.slug, subdomain: school.subdomain } });
    expect(res.status).toBe(201);
  });

  it("answers 400 invalid id format and 403 forbidden", async () => {
    const token = await superadminToken();
    expect((await api("/admin/tenants/123", { method: "DELETE", token })).body.error).toBe("invalid id format");
    const school = await createSchool();
    const curator = await createUser(school.id, { role: "curator" });
    const curatorToken = (await login(curator, { subdomain: school.subdomain })).token;
    const res = await api(`/admin/tenants/${school.id}`, { method: "DELETE", token: curatorToken });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe("forbidden");
  });
});

describe("PUT /admin/tenants/:id response shape", () => {
  it("answers the full school record", async () => {
    const now = Date.now();
    setClockForTests({ now: () => now });
    const token = await superadminToken();
    const school = await createSchool();
    const res = await api(`/admin/tenants/${school.id}`, {
      method: "PUT",
      token,
      body: { title: "Full Record", color_scheme: "#0A0B0C", hide_tests: true, hide_assignments: true, hide_trial_exams: true, logo: null },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: schoolRecord(school, {
        title: "Full Record",
        color_scheme: "#0A0B0C",
        hide_tests: true,
        hide_assignments: true,
        hide_trial_exams: true,
        updated_at: new Date(now).toISOString(),
      }),
    });
  });
});
