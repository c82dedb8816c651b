import { describe, expect, it } from "vitest";
import { DAY_MS } from "../../src/core/lib/clock";
import { tenantRow, schoolRecord } from "../helpers/billing";
import { createSchool, schoolWithMembers } from "../helpers/factories";
import { api, failure } from "../helpers/http";
import { storedImage } from "../media/helpers";

describe("GET /t/tenant", () => {
  it("returns the full record of the caller's school to any member", async () => {
    const { school, student } = await schoolWithMembers();
    const res = await api("/t/tenant", { token: student.token, tenant: school.subdomain });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: schoolRecord(school),
    });
  });

  it("answers 401 without a token or for another school's header", async () => {
    const { school, admin } = await schoolWithMembers();
    const other = await createSchool();
    expect(failure(await api("/t/tenant", { tenant: school.subdomain }))).toEqual({ status: 401, error: "unauthorized" });
    const foreign = await api("/t/tenant", { token: admin.token, tenant: other.subdomain });
    expect(failure(foreign)).toEqual({ status: 401, error: "unauthorized" });
  });
});

describe("PATCH /t/tenant", () => {
  it("lets the school admin change branding, menu flags and time zone; omitted fields are kept", async () => {
    const { school, admin } = await schoolWithMembers();
    const res = await api("/t/tenant", {
      method: "PATCH",
      token: admin.token,
      tenant: school.subdomain,
      body: { title: "Bright School", color_scheme: "#112233", hide_assignments: true, hide_trial_exams: true, timezone: "America/New_York" },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: school.id,
      title: "Bright School",
      color_scheme: "#112233",
      hide_tests: false,
      hide_assignments: true,
      hide_trial_exams: true,
      timezone: "America/New_York",
      slug: school.slug,
    });
    const row = await tenantRow(school.id);
    expect(row.timezone).toBe("America/New_York");
    expect(row.updatedAt).toBeGreaterThanOrEqual(school.updatedAt);
  });

  it("sets and clears the logo (null removes it)", async () => {
    const { school, admin } = await schoolWithMembers();
    const call = (logo: unknown) => api("/t/tenant", { method: "PATCH", token: admin.token, tenant: school.subdomain, body: { logo } });
    expect((await call("https://cdn.example.com/x.png")).body.data.logo).toBe("https://cdn.example.com/x.png");
    expect((await call(null)).body.data.logo).toBeNull();
  });

  it("stores a media-asset logo lower-case (like avatars) and https URLs as the URL parser serializes them; refuses http", async () => {
    const { school, admin } = await schoolWithMembers();
    const call = (logo: unknown) => api("/t/tenant", { method: "PATCH", token: admin.token, tenant: school.subdomain, body: { logo } });
    const assetId = await storedImage(school.id);
    const res = await call(assetId.toUpperCase());
    expect(res.status).toBe(200);
    expect(res.body.data.logo).toMatch(new RegExp(`^https://api\\.lms\\.localhost/api/v1/media/${assetId}/download\\?exp=\\d+&sig=[0-9a-f]{64}$`));
    expect((await tenantRow(school.id)).logo).toBe(assetId);

    expect((await call("https://CDN.example.com/Logo.PNG")).body.data.logo).toBe("https://cdn.example.com/Logo.PNG");
    const http = await call("http://cdn.example.com/Logo.PNG");
    expect([http.status, http.body.error]).toEqual([400, "validation error"]);
    const bad = await call("ftp://cdn.example.com/x.png");
    expect([bad.status, bad.body.error]).toEqual([400, "validation error"]);
  });

  it("answers 400 validation error for bad values, unknown time zones and identifier changes", async () => {
    const { school, admin } = await schoolWithMembers();
    const bad = [{ title: "a" }, { color_scheme: "#GGGGGG" }, { hide_tests: "yes" }, { timezone: "Not/AZone" }, { timezone: "" }, { slug: "x" }, { subdomain: "x" }];
    for (const body of bad) {
      const res = await api("/t/tenant", { method: "PATCH", token: admin.token, tenant: school.subdomain, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe("validation error");
    }
    const utc = await api("/t/tenant", { method: "PATCH", token: admin.token, tenant: school.subdomain, body: { timezone: "UTC" } });
    expect(utc.body.data.timezone).toBe("UTC");
  });

  it("answers 403 forbidden to curators and students", async () => {
    const { school, curator, student } = await schoolWithMembers();
    for (const token of [curator.token, student.token]) {
      const res = await api("/t/tenant", { method: "PATCH", token, tenant: school.subdomain, body: { title: "Hijacked" } });
      expect(res.status).toBe(403);
      expect(res.body.error).toBe("forbidden");
    }
  });

  it("is behind the billing gate while GET /t/tenant stays open (suspension and expiry)", async () => {
    const cases = [
      await schoolWithMembers({ planState: "suspended", suspendedManually: true }),
      await schoolWithMembers({ planState: "suspended" }),
      await schoolWithMembers({ planState: "trial", expiresAt: Date.now() - DAY_MS }),
    ];
    for (const { school, admin, student } of cases) {
      const patch = await api("/t/tenant", { method: "PATCH", token: admin.token, tenant: school.subdomain, body: { title: "Still Here" } });
      expect(patch.status).toBe(403);
      expect(patch.body.error).toBe("PAYMENT_REQUIRED");
      for (const token of [admin.token, student.token]) {
        const read = await api("/t/tenant", { token, tenant: school.subdomain });
        expect(read.status).toBe(200);
        expect(read.body.data.plan_state).toBe("suspended");
      }
    }
  });
});

describe("PATCH /t/tenant response shape", () => {
  it("answers the full school record, the same one GET /t/tenant then returns", async () => {
    const { school, admin } = await schoolWithMembers();
    const res = await api("/t/tenant", { method: "PATCH", token: admin.token, tenant: school.subdomain, body: { hide_tests: true } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: schoolRecord(school, { hide_tests: true, updated_at: expect.any(String) }),
    });
    const read = await api("/t/tenant", { token: admin.token, tenant: school.subdomain });
    expect(read.body.data).toEqual(res.body.data);
  });
});
