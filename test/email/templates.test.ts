import { describe, expect, it } from "vitest";
import { renderEmail } from "../../src/platform/email/templates";

const verification = {
  schoolTitle: "Школа «Альфа»",
  firstName: "Анна",
  verifyUrl: "https://lms.example/verify-email?token=abc123",
  expiresAt: "2030-05-01T10:30:00.000Z",
};
const reset = { schoolTitle: "Школа «Альфа»", firstName: "Анна", code: "042917", validMinutes: 15, loginUrl: "https://lms.example/login" };
const welcome = { schoolTitle: "Школа «Альфа»", firstName: "Анна", loginUrl: "https://alpha.lms.example/login", email: "anna@example.test", setPasswordNote: true };

describe("email templates", () => {
  it("verification: Russian by default wording, title, link and expiry in both parts", () => {
    const email = renderEmail("verification", "ru", verification);
    expect(email.subject).toBe("Подтвердите адрес почты — Школа «Альфа»");
    expect(email.text).toContain("Здравствуйте, Анна!");
    expect(email.text).toContain("Школа «Альфа»");
    expect(email.text).toContain("https://lms.example/verify-email?token=abc123");
    expect(email.text).toContain("2030-05-01 10:30 UTC");
    expect(email.html).toContain('<html lang="ru">');
    expect(email.html).toContain('href="https://lms.example/verify-email?token=abc123"');
    expect(email.html).toContain("Школа «Альфа»");
  });

  it("verification in English", () => {
    const email = renderEmail("verification", "en", verification);
    expect(email.subject).toBe("Confirm your email — Школа «Альфа»");
    expect(email.text).toContain("Hello, Анна!");
    expect(email.text).toContain("Confirm email: https://lms.example/verify-email?token=abc123");
    expect(email.html).toContain('<html lang="en">');
  });

  it("password reset carries the code and the sign-in link; the platform stands in for a missing school", () => {
    const ru = renderEmail("password_reset", "ru", reset);
    expect(ru.subject).toBe("Код для сброса пароля — Школа «Альфа»");
    expect(ru.text).toContain("042917");
    expect(ru.text).toContain("15 мин.");
    expect(ru.text).toContain("https://lms.example/login");
    expect(ru.html).toContain("042917");

    const platform = renderEmail("password_reset", "en", { ...reset, schoolTitle: null });
    expect(platform.subject).toBe("Password reset code — learning platform");
    expect(platform.text).toContain("Learning platform");
    expect(platform.text).toContain("valid for 15 minutes");
  });

  it("welcome names the login and link, with the password note only when asked", () => {
    const withNote = renderEmail("welcome", "ru", welcome);
    expect(withNote.subject).toBe("Добро пожаловать в «Школа «Альфа»»");
    expect(withNote.text).toContain("Логин: anna@example.test");
    expect(withNote.text).toContain("https://alpha.lms.example/login");
    expect(withNote.text).toContain("Пароль вам сообщит администратор школы");

    const withoutNote = renderEmail("welcome", "en", { ...welcome, setPasswordNote: false });
    expect(withoutNote.subject).toBe("Welcome to “Школа «Альфа»”");
    expect(withoutNote.text).toContain("Login: anna@example.test");
    expect(withoutNote.text).not.toContain("administrator will give you the password");
  });

  it("escapes every variable in the HTML part and keeps the subject on one line", () => {
    const hostile = '<script>alert("x")</script> & <b>Co</b>';
    const email = renderEmail("welcome", "en", {
      ...welcome,
      schoolTitle: `${hostile}\r\nBcc: victim@example.test`,
      firstName: '"><img src=x onerror=alert(1)>',
      email: "a&b@example.test",
      loginUrl: 'https://x.example/login?a=1&b="2"',
    });
    expect(email.html).not.toContain("<script>");
    expect(email.html).not.toContain("<b>Co</b>");
    expect(email.html).not.toContain("<img");
    expect(email.html).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;b&gt;Co&lt;/b&gt;");
    expect(email.html).toContain("a&amp;b@example.test");
    expect(email.html).toContain('href="https://x.example/login?a=1&amp;b=&quot;2&quot;"');
    expect(email.subject).not.toMatch(/[\r\n]/);
    expect(email.text).toContain(hostile);
  });

  it("never turns a non-http link into an href", () => {
    const email = renderEmail("verification", "en", { ...verification, verifyUrl: "javascript:alert(1)" });
    expect(email.html).not.toContain("javascript:");
  });
});
