import { and, asc, eq, lt } from "drizzle-orm";
import { emailOutbox } from "../../db/schema";
import { enqueueEmails, outboxLeaseFree } from "./outbox";
import type { ServiceContext } from "../../core/http/context";
import { MINUTE_MS } from "../../core/lib/clock";

const SWEEP_AFTER_MS = 2 * MINUTE_MS;
const SWEEP_BATCH = 100;

/**
 * Re-enqueues outbox rows still pending a while after they were written (a lost queue send, a
 * crash). Only `pending` rows whose lease has run out: `sent` and `failed` are final, and a live
 * lease means a consumer holds the row or a retry is already scheduled. The equality on status
 * plus the range on created_at walk the (status, created_at) index, oldest first.
 */
export async function sweepOutbox(ctx: ServiceContext): Promise<number> {
  const stuck = await stuckOutboxRows(ctx);
  await enqueueEmails(
    ctx,
    stuck.map((row) => row.id),
  );
  return stuck.length;
}

/** The sweep's query, exported so a test can check its plan uses the status index. */
export function stuckOutboxRows(ctx: ServiceContext) {
  const now = ctx.clock.now();
  return ctx.db
    .select({ id: emailOutbox.id })
    .from(emailOutbox)
    .where(
      and(
        eq(emailOutbox.status, "pending"),
        lt(emailOutbox.createdAt, now - SWEEP_AFTER_MS),
        outboxLeaseFree(now),
      ),
    )
    .orderBy(asc(emailOutbox.createdAt))
    .limit(SWEEP_BATCH);
}
