import { describe, expect, it } from "vitest";
import { api } from "../helpers/http";
import { createSchool, createUser, login } from "../helpers/factories";

describe("POST /auth/login", () => {
  it("signs a native client in and /auth/me answers", async () => {
    const school = await createSchool();
    const user = await createUser(school.id, { role: "admin" });
    const session = await login(user, { subdomain: school.subdomain });
    expect(session.refresh_token).toMatch(/^[0-9a-f-]{36}\./);
    const me = await api("/auth/me", { token: session.token, tenant: school.subdomain });
    expect(me.status).toBe(200);
    expect(me.body.data).toMatchObject({ id: user.id, email: user.email, role: "admin", tenant: { plan_state: "paid" } });
  });
});
