import { and, asc, eq, lt } from "drizzle-orm";
import { runBatch } from "../../core/db/batch";
import { emailOutbox } from "../../db/schema";
import { enqueueEmails, outboxLeaseFree } from "./outbox";
import type { SchoolActor, SchoolCtx, ServiceContext } from "../../core/http/context";
import { MINUTE_MS } from "../../core/lib/clock";
import { schoolChunks } from "../schools/school-chunks";
import { inSchool } from "../../core/db/conditions";

const SWEEP_AFTER_MS = 2 * MINUTE_MS;
/** Rows a run re-enqueues at most, over the control database and every school. */
const SWEEP_BATCH = 100;

/**
 * Re-enqueues outbox rows still pending a while after they were written (a lost queue send, a
 * crash). Only `pending` rows whose lease has run out: `sent` and `failed` are final, and a live
 * lease means a consumer holds the row or a retry is already scheduled. The control database's
 * rows (the superadmin's mail) first, then shard by shard each school's (one batch per chunk of
 * schools, a statement per school), each message naming where its row is.
 */
export async function sweepOutbox(ctx: ServiceContext): Promise<number> {
  const stuck = await stuckOutboxRows(ctx);
  await enqueueEmails(
    ctx,
    stuck.map((row) => row.id),
  );
  let swept = stuck.length;
  for await (const { schools } of schoolChunks(ctx, "outbox_sweep")) {
    if (swept >= SWEEP_BATCH) break;
    const found = (await runBatch(schools[0]!, schools.map((school) => stuckOutboxRows(school, SWEEP_BATCH - swept)))) as { id: string }[][];
    for (const [i, rows] of found.entries()) {
      const ids = rows.slice(0, SWEEP_BATCH - swept).map((row) => row.id);
      swept += ids.length;
      await enqueueEmails(schools[i]!, ids);
    }
  }
  return swept;
}

/**
 * The sweep's query, exported so a test can check its plan: in the control database the
 * equality on status plus the range on created_at walk the (status, created_at) index, oldest
 * first; in a school's shard the (tenant, created_at) index.
 */
export function stuckOutboxRows(ctx: ServiceContext | SchoolCtx<SchoolActor>, limit = SWEEP_BATCH) {
  const now = ctx.clock.now();
  return ctx.db
    .select({ id: emailOutbox.id })
    .from(emailOutbox)
    .where(
      and(
        // Every row of the control database is its own; a shard holds many schools' rows.
        "tenantId" in ctx ? inSchool(emailOutbox, ctx.tenantId) : undefined,
        eq(emailOutbox.status, "pending"),
        lt(emailOutbox.createdAt, now - SWEEP_AFTER_MS),
        outboxLeaseFree(now),
      ),
    )
    .orderBy(asc(emailOutbox.createdAt))
    .limit(limit);
}
