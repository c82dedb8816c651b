import { desc, eq } from "drizzle-orm";
import { emailOutbox } from "../../db/schema";
import type { ServiceContext } from "../../core/http/context";
import { iso } from "../../core/lib/clock";
import { inEveryDatabase } from "../../core/db/client";

const MAILBOX_LIMIT = 50;

/**
 * Every email queued to an address, newest first (DEV_MAILBOX, docs/decisions/email.md, "Email outbox: Resend, leases, retries and the dead-letter queue"). Deliberately across
 * schools: it is a local-development inbox keyed by the recipient, never enabled in production.
 */
export async function readDevMailbox(ctx: ServiceContext, input: { to: string }) {
  // Schools' emails are in their shards, the platform's in the control database: all are read.
  const found = await inEveryDatabase(
    ctx.env,
    (db) =>
      db
    .select({
      id: emailOutbox.id,
      to: emailOutbox.toEmail,
      kind: emailOutbox.kind,
      subject: emailOutbox.subject,
      text: emailOutbox.textBody,
      meta: emailOutbox.meta,
      createdAt: emailOutbox.createdAt,
    })
    .from(emailOutbox)
    .where(eq(emailOutbox.toEmail, input.to))
    .orderBy(desc(emailOutbox.createdAt), desc(emailOutbox.id))
    .limit(MAILBOX_LIMIT),
    { control: true },
  );
  const rows = found.sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1)).slice(0, MAILBOX_LIMIT);
  return {
    messages: rows.map((row) => ({
      id: row.id,
      to: row.to,
      kind: row.kind,
      subject: row.subject,
      text: row.text,
      meta: row.meta ?? null,
      created_at: iso(row.createdAt),
    })),
  };
}
