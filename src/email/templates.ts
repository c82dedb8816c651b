import type { Locale } from "../env";

export type EmailKind = "verification" | "password_reset" | "welcome";

export interface EmailVariables {
  verification: { schoolTitle: string; firstName: string; verifyUrl: string; expiresAt: string };
  password_reset: { schoolTitle: string | null; firstName: string; code: string; validMinutes: number };
  welcome: { schoolTitle: string; firstName: string; loginUrl: string; email: string; setPasswordNote: boolean };
}

export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
}

export function renderEmail<K extends EmailKind>(kind: K, locale: Locale, variables: EmailVariables[K]): RenderedEmail {
  // Filled in by the email templates work (ru default, en available).
  return { subject: `${kind} ${locale}`, text: JSON.stringify(variables), html: `<pre>${JSON.stringify(variables)}</pre>` };
}
