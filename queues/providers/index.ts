import type { Config } from "../../src/core/env";
import { logProvider } from "./log";
import { resendProvider } from "./resend";
import type { FetchFn, MailProvider } from "./types";

/** The provider MAIL_PROVIDER names. A provider that cannot work fails every email permanently, with the reason. */
export function mailProvider(config: Config, fetchFn: FetchFn): MailProvider {
  if (config.mailProvider === "resend") {
    if (!config.resendApiKey) return misconfigured("resend", "config: MAIL_PROVIDER=resend but RESEND_API_KEY is not set");
    return resendProvider({ apiKey: config.resendApiKey, apiUrl: config.resendApiUrl, fetch: fetchFn });
  }
  return logProvider({ devMailbox: config.devMailbox });
}

function misconfigured(name: string, error: string): MailProvider {
  return { name, send: async () => ({ ok: false, retryable: false, error }) };
}
