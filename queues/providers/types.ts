import type { EmailKind } from "../../src/platform/email/templates";

/** One outbox row, as a provider needs it. `id` doubles as the idempotency key upstream. */
interface OutgoingEmail {
  id: string;
  to: string;
  from: string;
  kind: EmailKind;
  subject: string;
  text: string;
  html: string;
}

export type SendResult =
  | { ok: true; providerMessageId: string | null }
  /**
   * `retryable`: the same request may succeed later (network, 429, 5xx). Otherwise the email can
   * never go out as it is (rejected address, misconfiguration) and retrying only burns attempts.
   */
  | { ok: false; retryable: boolean; error: string; retryAfterSeconds?: number };

export interface MailProvider {
  name: string;
  send(email: OutgoingEmail): Promise<SendResult>;
}

export type FetchFn = (input: string, init: RequestInit) => Promise<Response>;
