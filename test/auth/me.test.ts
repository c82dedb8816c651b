import { describe, expect, it } from "vitest";
import { setClockForTests } from "../../src/core/lib/clock";
import { createSchool, createUser, login } from "../helpers/factories";
import { api, failure } from "../helpers/http";

describe("GET /auth/me", () => {
  it("returns the profile and the school's billing summary with days counted in the school's zone", async () => {
    // 2026-03-10 20:00 UTC is already 2026-03-11 in Tashkent (UTC+5); expiry 2026-03-14 10:00 UTC.
    const now = Date.parse("2026-03-10T20:00:00Z");
    const school = await createSchool({ planState: "trial", expiresAt: Date.parse("2026-03-14T10:00:00Z"), timezone: "Asia/Tashkent" });
    const user = await createUser(school.id, { role: "student", firstName: "Bekzod" });
    setClockForTests({ now: () => now });
    const session = await login(user, { subdomain: school.subdomain });
    const res = await api("/auth/me", { token: session.token, tenant: school.subdomain });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: {
        id: user.id,
        email: user.email,
        role: "student",
        first_name: "Bekzod",
        last_name: "User",
        tenant: { plan_state: "trial", expires_at: "2026-03-14T10:00:00.000Z", days_remaining: 3 },
      },
    });
  });

  it("works without the tenant header for a school user (the token names the school)", async () => {
    const school = await createSchool();
    const user = await createUser(school.id);
    const session = await login(user, { subdomain: school.subdomain });
    expect((await api("/auth/me", { token: session.token })).status).toBe(200);
  });

  it("401 unauthorized without a token, with the failure envelope and a request id", async () => {
    const res = await api("/auth/me");
    expect(failure(res)).toEqual({ status: 401, error: "unauthorized" });
    expect(res.body).toEqual({ success: false, error: "unauthorized", message: expect.any(String), request_id: expect.any(String) });
    expect(res.headers.get("x-request-id")).toBe(res.body.request_id);
  });
});
