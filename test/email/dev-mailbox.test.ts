import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../../src/app";
import { api } from "../helpers/http";
import { devMailbox, envWith, insertOutboxRow, registerSchool, uniqueSuffix } from "../helpers/email";

describe("GET /dev/mailbox", () => {
  it("shows the verification email of a new school, in Russian by default, and its token verifies", async () => {
    const school = await registerSchool();
    const res = await devMailbox(school.email);
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    const [message] = res.body.data.messages;
    expect(res.body.data.messages).toHaveLength(1);
    expect(message).toEqual({
      id: expect.any(String),
      to: school.email,
      kind: "verification",
      subject: `Подтвердите адрес почты — ${school.title}`,
      text: expect.any(String),
      meta: { token: expect.any(String) },
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    });
    expect(message.text).toContain(school.title);
    expect(message.text).toContain("Здравствуйте, Мария!");
    expect(message.text).toContain(`http://lms.localhost/verify-email?token=${encodeURIComponent(message.meta.token)}`);

    const verified = await api("/auth/verify-email", { body: { token: message.meta.token } });
    expect(verified.status).toBe(200);
    expect(verified.body.data).toMatchObject({ login_required: true, tenant_subdomain: school.slug });
  });

  it("writes the email in English when the client prefers it", async () => {
    const school = await registerSchool({ acceptLanguage: "en-US,en;q=0.9,ru;q=0.5" });
    const res = await devMailbox(school.email);
    const [message] = res.body.data.messages;
    expect(message.subject).toBe(`Confirm your email — ${school.title}`);
    expect(message.text).toContain("Hello, Мария!");
  });

  it("shows the password-reset code with the sign-in link, newest first", async () => {
    const school = await registerSchool();
    const forgot = await api("/auth/forgot-password", { body: { email: school.email, subdomain: school.slug } });
    expect(forgot.status).toBe(200);

    const res = await devMailbox(school.email);
    expect(res.body.data.messages.map((message: { kind: string }) => message.kind)).toEqual(["password_reset", "verification"]);
    const [reset] = res.body.data.messages;
    expect(reset.subject).toBe(`Код для сброса пароля — ${school.title}`);
    expect(reset.meta).toEqual({ code: expect.stringMatching(/^\d{6}$/) });
    expect(reset.text).toContain(reset.meta.code);
    // The admin signs in on the main domain (spec, welcome links).
    expect(reset.text).toContain("http://lms.localhost/login");
  });

  it("orders by creation time, newest first, and matches the address case-insensitively", async () => {
    const to = `order.${uniqueSuffix()}@example.test`;
    const older = await insertOutboxRow({ toEmail: to, createdAt: Date.now() - 60_000 });
    const newer = await insertOutboxRow({ toEmail: to, createdAt: Date.now() });
    const res = await devMailbox(to.toUpperCase());
    expect(res.status).toBe(200);
    expect(res.body.data.messages.map((message: { id: string }) => message.id)).toEqual([newer.id, older.id]);
  });

  it("answers an empty list for an address without email", async () => {
    const res = await devMailbox(`nobody.${uniqueSuffix()}@example.test`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { messages: [] } });
  });

  it("needs `to`: 400 invalid_params", async () => {
    for (const path of ["/dev/mailbox", "/dev/mailbox?to=", "/dev/mailbox?to=%20%20"]) {
      const res = await api(path);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, error: "invalid_params" });
    }
  });

  it("is an unknown route (404 not_found) when DEV_MAILBOX is off, before any validation", async () => {
    const offEnv = envWith({ DEV_MAILBOX: "false" });
    for (const path of ["/api/v1/dev/mailbox?to=someone%40example.test", "/api/v1/dev/mailbox"]) {
      const res = await app.request(path, {}, offEnv);
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ success: false, error: "not_found" });
    }
    expect(env.DEV_MAILBOX).toBe("true");
  });
});
