import { log } from "../../src/core/lib/log";
import type { MailProvider } from "./types";

/**
 * Writes one structured line per email instead of sending it. The text carries one-time secrets
 * (verification token, reset code), so it is printed only with DEV_MAILBOX on, i.e. locally.
 */
export function logProvider(options: { devMailbox: boolean }): MailProvider {
  return {
    name: "log",
    async send(email) {
      log.info("email (log provider)", {
        outbox_id: email.id,
        to: email.to,
        kind: email.kind,
        subject: email.subject,
        ...(options.devMailbox ? { text: email.text } : {}),
      });
      return { ok: true, providerMessageId: `log:${email.id}` };
    },
  };
}
