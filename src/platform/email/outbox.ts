import { log } from "../../core/lib/log";
import { isNull, lte, or, type SQL } from "drizzle-orm";
import { insertWhere, type BatchItem } from "../../core/db/batch";
import { emailOutbox } from "../../db/schema";
import type { EmailMessage, Locale } from "../../core/env";
import type { SchoolActor, SchoolCtx, ServiceContext } from "../../core/http/context";
import { uuidv7 } from "../../core/lib/ids";
import { renderEmail, type EmailKind, type EmailVariables } from "./templates";

type EmailInput<K extends EmailKind> = {
  tenantId: string | null;
  to: string;
  kind: K;
  locale: Locale;
  variables: EmailVariables[K];
  meta: Record<string, unknown>;
};

interface QueuedEmail {
  id: string;
  /** Insert statement to put into the same `db.batch` as the change that causes the email. */
  insert: BatchItem;
  /** The same insert, made only when `condition` holds (e.g. the row the email is about was written). */
  insertWhere(condition: SQL): BatchItem;
}

/**
 * Renders an email and returns its outbox insert, to be batched with the state change that
 * causes it. Call `enqueueEmails` after the batch commits; the cron sweep re-enqueues any row
 * whose queue message was lost, so a committed email is never dropped.
 */
export function queueEmail<K extends EmailKind>(ctx: ServiceContext, input: EmailInput<K>): QueuedEmail {
  const now = ctx.clock.now();
  const id = uuidv7(now);
  const rendered = renderEmail(input.kind, input.locale, input.variables);
  const row: typeof emailOutbox.$inferInsert = {
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
    createdAt: now,
  };
  return {
    id,
    insert: ctx.db.insert(emailOutbox).values(row),
    insertWhere: (condition) => insertWhere(ctx, emailOutbox, row, condition),
  };
}

/**
 * After the batch that wrote the rows committed: one message per row, saying where the row is (a
 * school context's rows are in its shard, a platform context's in the control database), so pass
 * the context that wrote them.
 */
export async function enqueueEmails(ctx: ServiceContext | SchoolCtx<SchoolActor>, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  const where: Pick<EmailMessage, "shard" | "tenant_id"> = "tenant" in ctx ? { shard: ctx.tenant.shard, tenant_id: ctx.tenantId } : {};
  try {
    await ctx.env.OUTBOX.sendBatch(ids.map((id) => ({ body: { kind: "email" as const, outbox_id: id, ...where } })));
  } catch (err) {
    // The rows are committed; the outbox sweep picks them up.
    log.warn("outbox enqueue failed; left for the sweep", { request_id: ctx.requestId, error: String(err) });
  }
}

/**
 * Nobody holds the row: no lease, or it has run out. A lease is a consumer's claim or, after a
 * failed send, "not before the retry is due"; the consumer and the sweep both respect it.
 */
export function outboxLeaseFree(now: number) {
  return or(isNull(emailOutbox.leaseUntil), lte(emailOutbox.leaseUntil, now));
}

/** Locale of an email from the request's Accept-Language: English when preferred, else the configured default. */
export function emailLocale(acceptLanguage: string | undefined, fallback: Locale): Locale {
  const first = acceptLanguage?.split(",")[0]?.trim().toLowerCase() ?? "";
  if (first.startsWith("en")) return "en";
  if (first.startsWith("ru")) return "ru";
  return fallback;
}
