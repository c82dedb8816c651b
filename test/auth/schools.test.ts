import { describe, expect, it } from "vitest";
import { createSchool, createUser } from "../helpers/factories";
import { api } from "../helpers/http";

describe("POST /auth/schools", () => {
  it("lists the active schools of an email with the role there, filtered by scope", async () => {
    const email = `multi.${Date.now()}${Math.floor(Math.random() * 1e6)}@example.test`;
    const teaching = await createSchool();
    const studying = await createSchool();
    const pending = await createSchool({ status: "pending" });
    await createUser(teaching.id, { role: "curator", email });
    await createUser(studying.id, { role: "student", email });
    await createUser(pending.id, { role: "admin", email });

    const all = await api("/auth/schools", { body: { email } });
    expect(all.status).toBe(200);
    expect(all.body.data).toHaveLength(2);
    expect(all.body.data).toEqual(
      expect.arrayContaining([
        { subdomain: teaching.subdomain, title: teaching.title, role: "curator" },
        { subdomain: studying.subdomain, title: studying.title, role: "student" },
      ]),
    );
    expect((await api("/auth/schools", { body: { email, scope: "admin" } })).body.data).toEqual([{ subdomain: teaching.subdomain, title: teaching.title, role: "curator" }]);
    expect((await api("/auth/schools", { body: { email, scope: "student" } })).body.data).toEqual([{ subdomain: studying.subdomain, title: studying.title, role: "student" }]);
    expect((await api("/auth/schools", { body: { email: "nobody@example.test" } })).body.data).toEqual([]);
  });

  it("400 invalid_request_body for a bad email or scope", async () => {
    for (const body of [{}, { email: "x" }, { email: "a@b.co", scope: "teacher" }]) {
      const res = await api("/auth/schools", { body });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe("invalid_request_body");
    }
  });
});
