import { and, eq, isNull, lt, or } from "drizzle-orm";
import { emailOutbox } from "../db/schema";
import { enqueueEmails } from "../email/outbox";
import type { ServiceContext } from "../http/context";
import { MINUTE_MS } from "../lib/clock";

const SWEEP_AFTER_MS = 2 * MINUTE_MS;
const SWEEP_BATCH = 100;

/** Re-enqueues outbox rows still pending a while after they were written (a lost queue send, a crash). */
export async function sweepOutbox(ctx: ServiceContext): Promise<number> {
  const cutoff = ctx.clock.now() - SWEEP_AFTER_MS;
  const stuck = await ctx.db
    .select({ id: emailOutbox.id })
    .from(emailOutbox)
    .where(
      and(
        eq(emailOutbox.status, "pending"),
        lt(emailOutbox.createdAt, cutoff),
        or(isNull(emailOutbox.leaseUntil), lt(emailOutbox.leaseUntil, ctx.clock.now())),
      ),
    )
    .limit(SWEEP_BATCH);
  await enqueueEmails(
    ctx,
    stuck.map((row) => row.id),
  );
  return stuck.length;
}
