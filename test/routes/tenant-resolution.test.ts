import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createSchool, createUser, login } from "../helpers/factories";
import { failure, readResponse } from "../helpers/http";

const get = async (host: string, token: string, headers: Record<string, string> = {}) =>
  readResponse<{ data: { id: string } }>(await SELF.fetch(`https://${host}/api/v1/t/tenant`, { headers: { authorization: `Bearer ${token}`, ...headers } }), {
    method: "GET",
    path: "/api/v1/t/tenant",
  });

describe("tenant resolution on /t/*", () => {
  it("takes the school from X-Tenant-Subdomain, else from the first label of a Host under APP_DOMAIN", async () => {
    const school = await createSchool();
    const other = await createSchool();
    const admin = await createUser(school.id, { role: "admin" });
    const { token } = await login(admin, { subdomain: school.subdomain });

    const byHost = await get(`${school.subdomain}.lms.localhost`, token);
    expect(byHost.status).toBe(200);
    expect(byHost.body.data.id).toBe(school.id);

    // The header wins over the host; naming another school with either is a 401.
    expect((await get(`${other.subdomain}.lms.localhost`, token, { "x-tenant-subdomain": school.subdomain })).status).toBe(200);
    expect(failure(await get(`${school.subdomain}.lms.localhost`, token, { "x-tenant-subdomain": other.subdomain }))).toEqual({ status: 401, error: "unauthorized" });
    expect(failure(await get(`${other.subdomain}.lms.localhost`, token))).toEqual({ status: 401, error: "unauthorized" });

    // No header and a host outside APP_DOMAIN: the school cannot be determined.
    const undetermined = await get("api.example.com", token);
    expect(failure(undetermined)).toEqual({ status: 401, error: "unauthorized" });
  });
});
