import { describe, expect, it } from "vitest";
import * as schema from "../../src/db/schema";
import { eq } from "drizzle-orm";
import { DAY_MS } from "../../src/core/lib/clock";
import { uuidv7 } from "../../src/core/lib/ids";
import { createSchool, db } from "../helpers/factories";
import { api } from "../helpers/http";

const branding = (subdomain: string) => api(`/public/tenant?subdomain=${encodeURIComponent(subdomain)}`);

describe("GET /public/tenant", () => {
  it("answers an active school's branding, matching the subdomain case-insensitively", async () => {
    const school = await createSchool();
    const res = await branding(school.subdomain.toUpperCase());
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: { title: school.title, subdomain: school.subdomain, logo: null, color_scheme: "#1F6FEB" },
    });
  });

  it("returns a logo URL unchanged and a media-asset logo as a fresh signed link", async () => {
    const withUrl = await createSchool();
    await db().update(schema.tenants).set({ logo: "https://cdn.example.com/a.png" }).where(eq(schema.tenants.id, withUrl.id));
    expect((await branding(withUrl.subdomain)).body.data.logo).toBe("https://cdn.example.com/a.png");

    const withAsset = await createSchool();
    const assetId = uuidv7();
    await db().update(schema.tenants).set({ logo: assetId }).where(eq(schema.tenants.id, withAsset.id));
    const logo = (await branding(withAsset.subdomain)).body.data.logo as string;
    expect(logo).toMatch(new RegExp(`^https://api\\.lms\\.localhost/api/v1/media/${assetId}/download\\?exp=\\d+&sig=[0-9a-f]{64}$`));
  });

  it("answers 400 subdomain_required when the parameter is missing or empty", async () => {
    for (const path of ["/public/tenant", "/public/tenant?subdomain=", "/public/tenant?subdomain=%20"]) {
      const res = await api(path);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe("subdomain_required");
    }
  });

  it("gives unknown, pending, suspended, expired and deleted schools the same 404", async () => {
    const pending = await createSchool({ status: "pending", planState: "trial" });
    const suspended = await createSchool({ planState: "suspended", suspendedManually: true });
    const expiredBySuspension = await createSchool({ planState: "suspended" });
    const expired = await createSchool({ planState: "paid", expiresAt: Date.now() - DAY_MS });
    const deleted = await createSchool();
    await db().update(schema.tenants).set({ deletedAt: Date.now() }).where(eq(schema.tenants.id, deleted.id));

    const subdomains = ["nosuchschool", pending.subdomain, suspended.subdomain, expiredBySuspension.subdomain, expired.subdomain, deleted.subdomain];
    const answers = await Promise.all(subdomains.map(branding));
    for (const res of answers) {
      expect(res.status).toBe(404);
      const { request_id: _id, ...rest } = res.body;
      expect(rest).toEqual({ success: false, error: "tenant_not_found", message: "No such school." });
    }
  });
});
