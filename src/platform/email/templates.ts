import type { Locale } from "../../core/env";

export type EmailKind = "verification" | "password_reset" | "welcome" | "account_invite";

export interface EmailVariables {
  verification: { schoolTitle: string; firstName: string; verifyUrl: string; expiresAt: string };
  /** `schoolTitle` is null for the platform superadmin. */
  password_reset: { schoolTitle: string | null; firstName: string; code: string; validMinutes: number; loginUrl: string };
  welcome: { schoolTitle: string; firstName: string; loginUrl: string; email: string; setPasswordNote: boolean };
  /** A roster import's new user (05 section 3): the link carries a set-password code valid `validDays`. */
  account_invite: { schoolTitle: string; firstName: string; email: string; setPasswordUrl: string; validDays: number };
}

interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
}

/** What one message says; `layout` turns it into the text and HTML parts. */
interface Content {
  subject: string;
  /** The school (or the platform) the message comes from, shown above the heading. */
  sender: string;
  heading: string;
  greeting: string;
  paragraphs: string[];
  /** A one-time code shown large, for messages whose action is typing it in. */
  code?: string;
  action: { label: string; url: string };
  fallbackLinkNote: string;
  footer: string;
}

type Strings = { [K in EmailKind]: (v: EmailVariables[K]) => Content };

/** "2026-05-01T10:30:00.000Z" → "2026-05-01 10:30 UTC": readable in both languages without a zone lookup. */
function utcMinutes(isoString: string): string {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(isoString);
  return match ? `${match[1]} ${match[2]} UTC` : isoString;
}

const RU: Strings = {
  verification: (v) => ({
    subject: `Подтвердите адрес почты — ${v.schoolTitle}`,
    sender: v.schoolTitle,
    heading: "Подтверждение адреса почты",
    greeting: `Здравствуйте, ${v.firstName}!`,
    paragraphs: [
      `Вы зарегистрировали школу «${v.schoolTitle}». Чтобы активировать её, подтвердите адрес почты по ссылке ниже.`,
      `Ссылка действует до ${utcMinutes(v.expiresAt)} и срабатывает один раз. После подтверждения войдите в кабинет со своим паролем.`,
    ],
    action: { label: "Подтвердить почту", url: v.verifyUrl },
    fallbackLinkNote: "Если кнопка не открывается, скопируйте ссылку в браузер:",
    footer: "Если вы не регистрировали школу, просто проигнорируйте это письмо.",
  }),
  password_reset: (v) => ({
    subject: `Код для сброса пароля — ${v.schoolTitle ?? "платформа обучения"}`,
    sender: v.schoolTitle ?? "Платформа обучения",
    heading: "Сброс пароля",
    greeting: `Здравствуйте, ${v.firstName}!`,
    paragraphs: [
      v.schoolTitle === null ? "Ваш код для сброса пароля администратора платформы:" : `Ваш код для сброса пароля в школе «${v.schoolTitle}»:`,
      `Код действует ${v.validMinutes} мин. и подходит только для одного сброса. Введите его на странице входа вместе с новым паролем.`,
    ],
    code: v.code,
    action: { label: "Открыть страницу входа", url: v.loginUrl },
    fallbackLinkNote: "Страница входа:",
    footer: "Если вы не запрашивали сброс пароля, проигнорируйте это письмо: пароль останется прежним.",
  }),
  welcome: (v) => ({
    subject: `Добро пожаловать в «${v.schoolTitle}»`,
    sender: v.schoolTitle,
    heading: "Ваша учётная запись готова",
    greeting: `Здравствуйте, ${v.firstName}!`,
    paragraphs: [
      `Для вас создана учётная запись в школе «${v.schoolTitle}».`,
      `Логин: ${v.email}`,
      ...(v.setPasswordNote ? ["Пароль вам сообщит администратор школы. После первого входа смените его в профиле."] : []),
    ],
    action: { label: "Войти", url: v.loginUrl },
    fallbackLinkNote: "Адрес для входа:",
    footer: "Если вы не ждали этого письма, сообщите администратору школы.",
  }),
  account_invite: (v) => ({
    subject: `Приглашение в «${v.schoolTitle}»`,
    sender: v.schoolTitle,
    heading: "Вас пригласили в школу",
    greeting: `Здравствуйте, ${v.firstName}!`,
    paragraphs: [
      `Для вас создана учётная запись в школе «${v.schoolTitle}».`,
      `Логин: ${v.email}`,
      `Задайте пароль по ссылке ниже. Ссылка действует ${v.validDays} дней и срабатывает один раз.`,
    ],
    action: { label: "Задать пароль", url: v.setPasswordUrl },
    fallbackLinkNote: "Если кнопка не открывается, скопируйте ссылку в браузер:",
    footer: "Если вы не ждали этого письма, сообщите администратору школы.",
  }),
};

const EN: Strings = {
  verification: (v) => ({
    subject: `Confirm your email — ${v.schoolTitle}`,
    sender: v.schoolTitle,
    heading: "Confirm your email address",
    greeting: `Hello, ${v.firstName}!`,
    paragraphs: [
      `You registered the school “${v.schoolTitle}”. Confirm your email address with the link below to activate it.`,
      `The link is valid until ${utcMinutes(v.expiresAt)} and works once. After confirming, sign in with your password.`,
    ],
    action: { label: "Confirm email", url: v.verifyUrl },
    fallbackLinkNote: "If the button does not open, copy this link into your browser:",
    footer: "If you did not register a school, just ignore this email.",
  }),
  password_reset: (v) => ({
    subject: `Password reset code — ${v.schoolTitle ?? "learning platform"}`,
    sender: v.schoolTitle ?? "Learning platform",
    heading: "Password reset",
    greeting: `Hello, ${v.firstName}!`,
    paragraphs: [
      v.schoolTitle === null ? "Your platform administrator password reset code:" : `Your password reset code for “${v.schoolTitle}”:`,
      `The code is valid for ${v.validMinutes} minutes and works for one reset. Enter it on the sign-in page together with your new password.`,
    ],
    code: v.code,
    action: { label: "Open the sign-in page", url: v.loginUrl },
    fallbackLinkNote: "Sign-in page:",
    footer: "If you did not ask to reset your password, ignore this email: your password stays the same.",
  }),
  welcome: (v) => ({
    subject: `Welcome to “${v.schoolTitle}”`,
    sender: v.schoolTitle,
    heading: "Your account is ready",
    greeting: `Hello, ${v.firstName}!`,
    paragraphs: [
      `An account has been created for you at “${v.schoolTitle}”.`,
      `Login: ${v.email}`,
      ...(v.setPasswordNote ? ["Your school administrator will give you the password. Change it in your profile after the first sign-in."] : []),
    ],
    action: { label: "Sign in", url: v.loginUrl },
    fallbackLinkNote: "Sign-in address:",
    footer: "If you did not expect this email, tell your school administrator.",
  }),
  account_invite: (v) => ({
    subject: `Invitation to “${v.schoolTitle}”`,
    sender: v.schoolTitle,
    heading: "You are invited to the school",
    greeting: `Hello, ${v.firstName}!`,
    paragraphs: [
      `An account has been created for you at “${v.schoolTitle}”.`,
      `Login: ${v.email}`,
      `Set your password with the link below. The link is valid for ${v.validDays} days and works once.`,
    ],
    action: { label: "Set password", url: v.setPasswordUrl },
    fallbackLinkNote: "If the button does not open, copy this link into your browser:",
    footer: "If you did not expect this email, tell your school administrator.",
  }),
};

const STRINGS: Record<Locale, Strings> = { ru: RU, en: EN };

export function renderEmail<K extends EmailKind>(kind: K, locale: Locale, variables: EmailVariables[K]): RenderedEmail {
  const strings = STRINGS[locale] as { [P in EmailKind]: (v: EmailVariables[P]) => Content };
  return layout(locale, strings[kind](variables));
}

function layout(locale: Locale, content: Content): RenderedEmail {
  // A title with a line break must not split the subject header.
  const subject = content.subject.replace(/\s+/g, " ").trim();
  const text = [
    content.sender,
    "",
    content.greeting,
    "",
    ...content.paragraphs.flatMap((paragraph, index) => (index === 0 && content.code ? [paragraph, "", content.code, ""] : [paragraph, ""])),
    `${content.action.label}: ${content.action.url}`,
    "",
    "—",
    content.footer,
    "",
  ].join("\n");

  const p = (inner: string, style = "margin:0 0 16px") => `<p style="${style}">${inner}</p>`;
  const paragraphs = content.paragraphs.map((paragraph, index) => {
    const codeBlock = index === 0 && content.code ? p(escapeHtml(content.code), "margin:0 0 16px;font-size:28px;font-weight:bold;letter-spacing:6px") : "";
    return p(escapeHtml(paragraph)) + codeBlock;
  });
  const href = safeHref(content.action.url);
  const action = href
    ? p(
        `<a href="${href}" style="display:inline-block;padding:12px 20px;background:#2563eb;color:#ffffff;text-decoration:none;border-radius:6px">${escapeHtml(content.action.label)}</a>`,
        "margin:24px 0",
      ) + p(`${escapeHtml(content.fallbackLinkNote)}<br><a href="${href}" style="color:#2563eb;word-break:break-all">${escapeHtml(content.action.url)}</a>`, "margin:0 0 16px;font-size:13px;color:#555555")
    : "";
  const html = `<!doctype html>
<html lang="${locale}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(subject)}</title></head>
<body style="margin:0;padding:24px;background:#f4f4f5;font-family:Arial,Helvetica,sans-serif;color:#18181b;line-height:1.5">
<div style="max-width:560px;margin:0 auto;background:#ffffff;border-radius:8px;padding:32px">
${p(escapeHtml(content.sender), "margin:0 0 8px;font-size:13px;color:#71717a")}
<h1 style="margin:0 0 24px;font-size:22px">${escapeHtml(content.heading)}</h1>
${p(escapeHtml(content.greeting))}
${paragraphs.join("\n")}
${action}
${p(escapeHtml(content.footer), "margin:24px 0 0;font-size:13px;color:#71717a")}
</div>
</body>
</html>
`;
  return { subject, text, html };
}

const HTML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char]!);
}

/** Links are built by the server, but only http(s) ever becomes an href (no `javascript:`). */
function safeHref(url: string): string | null {
  return /^https?:\/\//i.test(url) ? escapeHtml(url) : null;
}
