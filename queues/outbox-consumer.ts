import { and, eq, inArray, sql } from "drizzle-orm";
import { emailOutbox } from "../src/db/schema";
import { outboxLeaseFree } from "../src/platform/email/outbox";
import type { Env, EmailMessage } from "../src/core/env";
import type { SchoolActor, SchoolCtx, ServiceContext } from "../src/core/http/context";
import { jobContext } from "../src/contributors";
import { systemActor } from "../src/core/school";
import { forSchoolId } from "../src/platform/schools/lookup";
import { mailProvider } from "./providers";
import type { FetchFn, MailProvider, SendResult } from "./providers/types";
import { log } from "../src/core/lib/log";
import { inSchool } from "../src/core/db/conditions";

/** wrangler.toml: the queue the outbox consumer dead-letters into; its batches arrive here too. */
export const OUTBOX_QUEUE = "lms-outbox";
export const OUTBOX_DLQ = "lms-outbox-dlq";
/** Sends per row; on the last failure the row is marked `failed` so the sweep stops re-enqueuing it. */
export const MAX_SEND_ATTEMPTS = 5;
/** Longer than a provider call can take (the Resend client times out after 10 s). */
export const LEASE_MS = 60_000;
const BACKOFF_BASE_SECONDS = 60;
const BACKOFF_CAP_SECONDS = 900;

/** 60 s, 120 s, 240 s, 480 s, then 15 min at most. */
export function backoffSeconds(attempts: number): number {
  return Math.min(BACKOFF_CAP_SECONDS, BACKOFF_BASE_SECONDS * 2 ** Math.max(0, attempts - 1));
}

interface OutboxDeps {
  fetch: FetchFn;
}

const defaultDeps: OutboxDeps = { fetch: (input, init) => fetch(input, init) };

type OutboxRow = typeof emailOutbox.$inferSelect;

/** Where a row is: the control database (a platform context) or a school's shard (its school context). */
type OutboxCtx = ServiceContext | SchoolCtx<SchoolActor>;

/**
 * The context of the database a message's row is in: the school's (one control read) when the
 * message names a shard, else the control database. Null when the school is gone or no longer on
 * that shard: nothing is left to send from there.
 */
async function outboxCtx(ctx: ServiceContext, body: Partial<EmailMessage>): Promise<OutboxCtx | null> {
  if (body.shard === undefined && body.tenant_id === undefined) return ctx;
  if (typeof body.tenant_id !== "string" || typeof body.shard !== "string") return null;
  const school = await forSchoolId(ctx, body.tenant_id, systemActor("email_outbox"));
  return school?.tenant.shard === body.shard ? school : null;
}

/** The row by id, within its school when it is a school's (every school query carries the tenant condition). */
function rowIs(ctx: OutboxCtx, outboxId: string) {
  return and(eq(emailOutbox.id, outboxId), "tenantId" in ctx ? inSchool(emailOutbox, ctx.tenantId) : undefined);
}

/**
 * Delivers outbox emails. The row, not the message, is the source of truth: a message only says
 * "look at row X", so redeliveries, sweep re-enqueues and concurrent consumers all meet at the
 * row's conditional claim, and a row that is `sent` is never sent again.
 */
export async function handleOutboxBatch(batch: MessageBatch<EmailMessage>, env: Env, deps: OutboxDeps = defaultDeps): Promise<void> {
  const ctx = jobContext(env);

  const provider = mailProvider(ctx.config, deps.fetch);
  // One at a time: providers rate-limit per account, and a batch is at most 10 messages.
  for (const message of batch.messages) {
    try {
      await deliver(ctx, provider, message);
    } catch (err) {
      // Infrastructure trouble (D1): let the queue retry; after max_retries it dead-letters.
      log.error("outbox delivery crashed", { outbox_id: outboxIdOf(message.body), message_attempts: message.attempts, error: String(err) });
      message.retry();
    }
  }
}

async function deliver(platform: ServiceContext, provider: MailProvider, message: Message<EmailMessage>): Promise<void> {
  const outboxId = outboxIdOf(message.body);
  if (!outboxId) {
    log.warn("outbox message without an outbox id dropped", { message_id: message.id });
    message.ack();
    return;
  }
  const ctx = await outboxCtx(platform, message.body);
  if (!ctx) {
    log.warn("outbox message of a school that is gone dropped", { message_id: message.id, outbox_id: outboxId });
    message.ack();
    return;
  }

  const row = await claim(ctx, outboxId);
  if (!row) return settleUnclaimed(ctx, message, outboxId);

  const result: SendResult =
    row.textBody === null || row.htmlBody === null
      ? { ok: false, retryable: false, error: "outbox row has no body" }
      : await provider.send({
          id: row.id,
          to: row.toEmail,
          from: ctx.config.mailFrom,
          kind: row.kind,
          subject: row.subject,
          text: row.textBody,
          html: row.htmlBody,
        });

  if (result.ok) {
    await markSent(ctx, row, result.providerMessageId);
    log.info("email sent", { outbox_id: row.id, kind: row.kind, provider: provider.name, attempts: row.attempts });
    message.ack();
    return;
  }
  if (!result.retryable || row.attempts >= MAX_SEND_ATTEMPTS) {
    const error = result.retryable ? `gave up after ${row.attempts} attempts: ${result.error}` : result.error;
    await markFailed(ctx, row, error);
    message.ack();
    return;
  }
  const delaySeconds = Math.max(backoffSeconds(row.attempts), result.retryAfterSeconds ?? 0);
  await scheduleRetry(ctx, row, result.error, delaySeconds);
  log.warn("email send failed; retrying", { outbox_id: row.id, kind: row.kind, provider: provider.name, attempts: row.attempts, delay_seconds: delaySeconds, error: result.error });
  message.retry({ delaySeconds });
}

/** Takes the row for LEASE_MS if it is pending and nobody holds it; the changed-row count decides, not a prior read. */
async function claim(ctx: OutboxCtx, outboxId: string): Promise<OutboxRow | undefined> {
  const now = ctx.clock.now();
  const [row] = await ctx.db
    .update(emailOutbox)
    .set({ leaseUntil: now + LEASE_MS, attempts: sql`${emailOutbox.attempts} + 1` })
    .where(and(rowIs(ctx, outboxId), eq(emailOutbox.status, "pending"), outboxLeaseFree(now)))
    .returning();
  return row;
}

/** Not claimed: already settled (ack, so a redelivered message sends once) or leased elsewhere (come back when the lease ends). */
async function settleUnclaimed(ctx: OutboxCtx, message: Message<EmailMessage>, outboxId: string): Promise<void> {
  const [row] = await ctx.db
    .select({ status: emailOutbox.status, leaseUntil: emailOutbox.leaseUntil })
    .from(emailOutbox)
    .where(rowIs(ctx, outboxId))
    .limit(1);
  if (!row || row.status !== "pending") {
    if (!row) log.warn("outbox row not found", { outbox_id: outboxId });
    message.ack();
    return;
  }
  const remainingMs = (row.leaseUntil ?? 0) - ctx.clock.now();
  message.retry({ delaySeconds: Math.max(1, Math.ceil(remainingMs / 1000)) });
}

async function markSent(ctx: OutboxCtx, row: OutboxRow, providerMessageId: string | null): Promise<void> {
  await ctx.db
    .update(emailOutbox)
    .set({
      status: "sent",
      providerMessageId,
      sentAt: ctx.clock.now(),
      leaseUntil: null,
      // The bodies and meta hold one-time secrets (verification token, reset code); once the email
      // is out they only widen what a database leak exposes. The dev mailbox needs them, so it keeps them.
      ...(ctx.config.devMailbox ? {} : { textBody: null, htmlBody: null, meta: null }),
    })
    .where(rowIs(ctx, row.id));
}

/**
 * Terminal: the sweep ignores `failed` rows. Bodies stay so an operator can set the row back to
 * `pending` once the cause (say, a missing API key) is fixed; the secrets in them expire anyway.
 */
async function markFailed(ctx: OutboxCtx, row: OutboxRow, error: string): Promise<void> {
  await ctx.db.update(emailOutbox).set({ status: "failed", lastError: error, leaseUntil: null }).where(rowIs(ctx, row.id));
  log.error("email delivery failed", { outbox_id: row.id, kind: row.kind, attempts: row.attempts, error });
}

/**
 * The lease turns into "not before the retry is due", so neither the sweep nor a duplicate message
 * sends ahead of the backoff. A second of slack keeps the delayed message itself from bouncing.
 */
async function scheduleRetry(ctx: OutboxCtx, row: OutboxRow, error: string, delaySeconds: number): Promise<void> {
  const notBefore = ctx.clock.now() + delaySeconds * 1000 - 1000;
  await ctx.db.update(emailOutbox).set({ lastError: error, leaseUntil: notBefore }).where(rowIs(ctx, row.id));
}

/**
 * Messages the queue gave up on (max_retries exhausted, usually because handling kept crashing).
 * Their rows become `failed` unless they were settled meanwhile or a live lease shows another
 * delivery is on them.
 */
export async function handleOutboxDeadLetters(batch: MessageBatch<EmailMessage>, env: Env): Promise<void> {
  const platform = jobContext(env);
  const now = platform.clock.now();
  // One UPDATE per database the rows are in (the control database, or a school's shard).
  const byPlace = new Map<string, { body: EmailMessage; ids: Set<string> }>();
  for (const message of batch.messages) {
    const outboxId = outboxIdOf(message.body);
    if (outboxId === null) continue;
    const place = `${message.body.shard ?? ""} ${message.body.tenant_id ?? ""}`;
    const entry = byPlace.get(place) ?? { body: message.body, ids: new Set<string>() };
    entry.ids.add(outboxId);
    byPlace.set(place, entry);
  }
  const markedIds = new Set<string>();
  for (const { body, ids } of byPlace.values()) {
    const ctx = await outboxCtx(platform, body);
    if (!ctx) continue;
    const marked = await ctx.db
      .update(emailOutbox)
      .set({
        status: "failed",
        leaseUntil: null,
        lastError: sql`'dead-lettered: queue retries exhausted' || coalesce('; last error: ' || ${emailOutbox.lastError}, '')`,
      })
      .where(and(inArray(emailOutbox.id, [...ids]), "tenantId" in ctx ? inSchool(emailOutbox, ctx.tenantId) : undefined, eq(emailOutbox.status, "pending"), outboxLeaseFree(now)))
      .returning({ id: emailOutbox.id });
    for (const row of marked) markedIds.add(row.id);
  }
  for (const message of batch.messages) {
    const outboxId = outboxIdOf(message.body);
    log.error("email dead-lettered", {
      queue: batch.queue,
      message_id: message.id,
      outbox_id: outboxId,
      message_attempts: message.attempts,
      marked_failed: outboxId !== null && markedIds.has(outboxId),
    });
  }
  batch.ackAll();
}

function outboxIdOf(body: unknown): string | null {
  if (typeof body !== "object" || body === null) return null;
  const { kind, outbox_id } = body as Partial<EmailMessage>;
  return kind === "email" && typeof outbox_id === "string" && outbox_id.length > 0 ? outbox_id : null;
}
