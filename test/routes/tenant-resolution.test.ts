import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createSchool, createUser, login } from "../helpers/factories";

const get = (host: string, token: string, headers: Record<string, string> = {}) =>
  SELF.fetch(`https://${host}/api/v1/t/tenant`, { headers: { authorization: `Bearer ${token}`, ...headers } });

describe("tenant resolution on /t/*", () => {
  it("takes the school from X-Tenant-Subdomain, else from the first label of a Host under APP_DOMAIN", async () => {
    const school = await createSchool();
    const other = await createSchool();
    const admin = await createUser(school.id, { role: "admin" });
    const { token } = await login(admin, { subdomain: school.subdomain });

    const byHost = await get(`${school.subdomain}.lms.localhost`, token);
    expect(byHost.status).toBe(200);
    expect(((await byHost.json()) as { data: { id: string } }).data.id).toBe(school.id);

    // The header wins over the host; naming another school with either is a 401.
    expect((await get(`${other.subdomain}.lms.localhost`, token, { "x-tenant-subdomain": school.subdomain })).status).toBe(200);
    expect((await get(`${school.subdomain}.lms.localhost`, token, { "x-tenant-subdomain": other.subdomain })).status).toBe(401);
    expect((await get(`${other.subdomain}.lms.localhost`, token)).status).toBe(401);

    // No header and a host outside APP_DOMAIN: the school cannot be determined.
    const undetermined = await get("api.example.com", token);
    expect(undetermined.status).toBe(401);
    expect(((await undetermined.json()) as { error: string }).error).toBe("unauthorized");
  });
});
