import { emailOutbox } from "../db/schema";
import type { Locale } from "../env";
import type { ServiceContext } from "../http/context";
import { uuidv7 } from "../lib/ids";
import { renderEmail, type EmailKind, type EmailVariables } from "./templates";

export interface QueuedEmail {
  id: string;
  /** Insert statement to put into the same `db.batch` as the change that causes the email. */
  insert: ReturnType<typeof buildInsert>;
}

/**
 * Renders an email and returns its outbox insert, to be batched with the state change that
 * causes it. Call `enqueueEmails` after the batch commits; the cron sweep re-enqueues any row
 * whose queue message was lost, so a committed email is never dropped.
 */
export function queueEmail<K extends EmailKind>(
  ctx: ServiceContext,
  input: { tenantId: string | null; to: string; kind: K; locale: Locale; variables: EmailVariables[K]; meta: Record<string, unknown> },
): QueuedEmail {
  const id = uuidv7(ctx.clock.now());
  return { id, insert: buildInsert(ctx, id, input) };
}

function buildInsert<K extends EmailKind>(
  ctx: ServiceContext,
  id: string,
  input: { tenantId: string | null; to: string; kind: K; locale: Locale; variables: EmailVariables[K]; meta: Record<string, unknown> },
) {
  const rendered = renderEmail(input.kind, input.locale, input.variables);
  return ctx.db.insert(emailOutbox).values({
    id,
    tenantId: input.tenantId,
    toEmail: input.to,
    kind: input.kind,
    locale: input.locale,
    subject: rendered.subject,
    textBody: rendered.text,
    htmlBody: rendered.html,
    meta: input.meta,
    status: "pending",
    createdAt: ctx.clock.now(),
  });
}

export async function enqueueEmails(ctx: ServiceContext, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  try {
    await ctx.env.OUTBOX.sendBatch(ids.map((id) => ({ body: { kind: "email" as const, outbox_id: id } })));
  } catch (err) {
    // The rows are committed; the outbox sweep picks them up.
    console.warn(JSON.stringify({ level: "warn", msg: "outbox enqueue failed; left for the sweep", request_id: ctx.requestId, error: String(err) }));
  }
}

/** Locale of an email from the request's Accept-Language: English when preferred, else the configured default. */
export function emailLocale(acceptLanguage: string | undefined, fallback: Locale): Locale {
  const first = acceptLanguage?.split(",")[0]?.trim().toLowerCase() ?? "";
  if (first.startsWith("en")) return "en";
  if (first.startsWith("ru")) return "ru";
  return fallback;
}
