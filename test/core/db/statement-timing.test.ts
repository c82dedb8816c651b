import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../../../src/app";
import { as, schoolWithAdmin } from "../../helpers/users";

/**
 * The bench's statement timing (docs/decisions/heavy-reads-bench.md, "The bench's statement timing"):
 * with `D1_TIMING=true` a school route answers `Server-Timing: d1;dur=<slowest ms>;desc="<count>"`;
 * without it (tests, production) there is no such header.
 */
describe("D1 statement timing", () => {
  it("is off by default: no Server-Timing header", async () => {
    const { admin } = await schoolWithAdmin();
    const res = await as(admin, "/t/users?limit=5");
    expect(res.status).toBe(200);
    expect(res.headers.get("server-timing")).toBeNull();
  });

  it("with D1_TIMING=true, a school route names its statement count and slowest statement", async () => {
    const { school, admin } = await schoolWithAdmin();
    const response = await app.request(
      "https://api.lms.localhost/api/v1/t/users?limit=5",
      { headers: { authorization: `Bearer ${admin.token}`, "x-tenant-subdomain": school.subdomain } },
      { ...env, D1_TIMING: "true" },
    );
    expect(response.status).toBe(200);
    // The wrapped session answers what the plain one does.
    expect(await response.json()).toEqual((await as(admin, "/t/users?limit=5")).body);
    const match = /^d1;dur=(\d+\.\d\d);desc="(\d+)"$/.exec(response.headers.get("server-timing") ?? "");
    expect(match).not.toBeNull();
    expect(Number(match![2])).toBeGreaterThanOrEqual(1);
    expect(Number(match![1])).toBeGreaterThanOrEqual(0);
  });

  it("a platform route without a school session carries no header even when on", async () => {
    const response = await app.request("https://api.lms.localhost/api/v1/health", {}, { ...env, D1_TIMING: "true" });
    expect(response.status).toBe(200);
    expect(response.headers.get("server-timing")).toBeNull();
  });
});
