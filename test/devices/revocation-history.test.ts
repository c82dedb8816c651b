import { describe, expect, it } from "vitest";
import { login } from "../helpers/factories";
import { api } from "../helpers/http";
import { emailsTo } from "../helpers/outbox";
import { eventTypes, schoolWithStudent, tenantCall, tokenWorks } from "../helpers/devices";

/** Every path that ends sessions leaves `session_revoked` events with its reason (issue: security history). */
describe("security history of sessions ended outside the device endpoints", () => {
  const revocations = async (userId: string) => (await eventTypes(userId)).filter((event) => event.type === "session_revoked").map((event) => event.detail);

  it("password reset", async () => {
    const { student } = await schoolWithStudent();
    const session = await login(student, { subdomain: student.subdomain });
    await api("/auth/forgot-password", { body: { email: student.email, subdomain: student.subdomain } });
    const [email] = await emailsTo(student.email);
    const res = await api("/auth/reset-password", {
      body: { email: student.email, subdomain: student.subdomain, code: email!.metaJson.code, new_password: "a-new-password" },
    });
    expect(res.status).toBe(200);
    expect(await tokenWorks({ token: session.token, subdomain: student.subdomain })).toBe(false);
    expect(await revocations(student.id)).toEqual([{ reason: "password_reset", sessions: 1 }]);
  });

  it("password change ends the other sessions only", async () => {
    const { student } = await schoolWithStudent();
    const current = await login(student, { subdomain: student.subdomain });
    const other = await login(student, { subdomain: student.subdomain });
    const res = await tenantCall({ token: current.token, subdomain: student.subdomain }, "/t/me/password", {
      method: "POST",
      body: { current_password: student.password, new_password: "another-password-1" },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.other_sessions_revoked).toBe(1);
    expect(await tokenWorks({ token: current.token, subdomain: student.subdomain })).toBe(true);
    expect(await tokenWorks({ token: other.token, subdomain: student.subdomain })).toBe(false);
    expect(await revocations(student.id)).toEqual([{ reason: "password_change", sessions: 1 }]);
  });

  it("deactivation (single and bulk) and deletion", async () => {
    const { admin, student } = await schoolWithStudent();
    const session = await login(student, { subdomain: student.subdomain });
    const deactivated = await tenantCall(admin, "/t/users/bulk-deactivate", { method: "POST", body: { ids: [student.id] } });
    expect(deactivated.status).toBe(200);
    expect(await tokenWorks({ token: session.token, subdomain: student.subdomain })).toBe(false);
    // A repeat ends nothing more and records nothing more.
    await tenantCall(admin, "/t/users/bulk-deactivate", { method: "POST", body: { ids: [student.id] } });
    expect(await revocations(student.id)).toEqual([{ reason: "user_deactivated", sessions: 1 }]);

    const { admin: otherAdmin, student: removed } = await schoolWithStudent();
    await login(removed, { subdomain: removed.subdomain });
    expect((await tenantCall(otherAdmin, `/t/users/${removed.id}`, { method: "DELETE" })).status).toBe(200);
    expect(await revocations(removed.id)).toEqual([{ reason: "user_deleted", sessions: 1 }]);
  });
});

describe("security history of sign-out and refresh-token reuse", () => {
  it("records the caller's address on logout and on confirmed reuse", async () => {
    const { student } = await schoolWithStudent();
    const session = await login(student, { subdomain: student.subdomain });
    const out = await api("/auth/logout", { body: { refresh_token: session.refresh_token }, headers: { "cf-connecting-ip": "192.0.2.10" } });
    expect(out.status).toBe(200);
    const { env } = await import("cloudflare:test");
    const logout = await env.DB.prepare("SELECT type, ip FROM device_events WHERE session_id = ? AND type = 'logout'").bind(session.session_id).first();
    expect(logout).toEqual({ type: "logout", ip: "192.0.2.10" });
  });
});
