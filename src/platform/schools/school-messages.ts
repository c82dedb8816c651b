import type { QueueMessage } from "../../core/env";
import type { SchoolCtx, ServiceContext, SystemActor } from "../../core/http/context";
import { isUuid } from "../../core/lib/ids";
import { log } from "../../core/lib/log";
import { systemActor } from "../../core/school";
import { forSchoolId } from "./lookup";

/** The kinds of message that name a school. */
type SchoolKind = Extract<QueueMessage, { tenant_id: string }>["kind"];
type MessageOf<K extends SchoolKind> = Extract<QueueMessage, { kind: K }>;

/** One school-scoped queue: which messages it takes and what a message does in its school. */
export interface SchoolMessageConsumer<K extends SchoolKind> {
  kind: K;
  /** For the log lines: "<name> message dropped", "<name> crashed". */
  name: string;
  /** The message's own fields beyond `kind` and `tenant_id` (ids checked with `isUuid`). */
  valid: (body: MessageOf<K>) => boolean;
  /** What the crash log line names the message by (its ids). */
  logged: (body: MessageOf<K>) => Record<string, unknown>;
  /** The work, in the school's context with the system actor named by `kind`; a throw is retried. */
  run: (school: SchoolCtx<SystemActor>, body: MessageOf<K>) => Promise<unknown>;
}

/**
 * The loop every consumer of messages naming one school shares (media metadata, data export, item
 * analysis, regrade, rating windows, curator reports): a message that is not of the queue's kind
 * or fails its checks is dropped with a log line (a retry would fail the same way); a school gone
 * since the message was sent acks it; a crash (D1 unavailable) is retried by the queue. Each
 * consumer's work is safe to repeat.
 */
export async function handleSchoolMessages<K extends SchoolKind>(
  batch: MessageBatch<QueueMessage>,
  ctx: ServiceContext,
  consumer: SchoolMessageConsumer<K>,
): Promise<void> {
  for (const message of batch.messages) {
    // A queue's messages are the Worker's own, but a malformed one must not crash the batch.
    const raw = message.body as { kind?: unknown; tenant_id?: unknown } | null | undefined;
    const body = message.body as MessageOf<K>;
    if (raw?.kind !== consumer.kind || !isUuid(raw.tenant_id) || !consumer.valid(body)) {
      log.warn(`${consumer.name} message dropped`, { message_id: message.id });
      message.ack();
      continue;
    }
    try {
      const school = await forSchoolId(ctx, raw.tenant_id, systemActor(consumer.kind));
      if (school) await consumer.run(school, body);
      message.ack();
    } catch (err) {
      log.error(`${consumer.name} crashed`, { ...consumer.logged(body), message_attempts: message.attempts, error: String(err) });
      message.retry();
    }
  }
}
