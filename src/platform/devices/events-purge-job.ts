import { sql } from "drizzle-orm";
import { batchable, changedRows, runBatch, type BatchItem } from "../../core/db/batch";
import { inSchool } from "../../core/db/conditions";
import { DEFAULT_DEVICE_POLICY } from "./policy";
import type { SchoolCtx, ServiceContext, SystemActor } from "../../core/http/context";
import { DAY_MS } from "../../core/lib/clock";
import { schoolChunks } from "../schools/school-chunks";

const PURGE_CHUNK = 2000;
/** Rows a run deletes at most, over all schools; whatever is left goes in the next run. */
const MAX_PURGED = 10 * 2 * PURGE_CHUNK;

/** The smallest UUIDv7 of an instant: event ids are UUIDv7 of their creation time, so `id <` it is a primary-key range. */
function uuidv7Floor(ms: number): string {
  const hex = ms.toString(16).padStart(12, "0");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-0000-0000-000000000000`;
}

/** One school's events past its `event_retention_days` (the default without a saved policy), through the (tenant, time) index. */
function schoolEvents(school: SchoolCtx<SystemActor>, now: number): BatchItem {
  const days = sql`COALESCE((SELECT p.event_retention_days FROM device_policies p WHERE ${inSchool("p", school.tenantId)}), ${DEFAULT_DEVICE_POLICY.eventRetentionDays})`;
  return batchable(
    school,
    sql`DELETE FROM device_events WHERE id IN (
          SELECT e.id FROM device_events e WHERE ${inSchool("e", school.tenantId)} AND e.created_at < ${now} - ${days} * ${DAY_MS}
          LIMIT ${PURGE_CHUNK})`,
  );
}

/** Events of no school (the superadmin's), in the control database, by the time-ordered primary key. */
function platformEvents(ctx: ServiceContext, now: number): BatchItem {
  const cutoff = now - DEFAULT_DEVICE_POLICY.eventRetentionDays * DAY_MS;
  return batchable(
    ctx,
    sql`DELETE FROM device_events WHERE id IN (
          SELECT e.id FROM device_events e WHERE e.tenant_id IS NULL AND e.id < ${uuidv7Floor(cutoff)} AND e.created_at < ${cutoff}
          LIMIT ${PURGE_CHUNK})`,
  );
}

/**
 * Deletes security events older than each school's `event_retention_days` (schools without a
 * saved policy and the platform's own events use the default), shard by shard and school by
 * school: one batch per chunk of schools, a statement per school, each bounded, so a cron run
 * never holds D1 for long. A school that filled its statement gets another round while the run's
 * budget lasts. Replacement tokens go a day after expiry.
 */
export async function purgeDeviceEvents(ctx: ServiceContext): Promise<number> {
  const now = ctx.clock.now();
  let purged = 0;
  for (let round = 0; round < 10; round++) {
    const count = changedRows((await runBatch(ctx, [platformEvents(ctx, now)]))[0]);
    purged += count;
    if (count < PURGE_CHUNK) break;
  }
  for await (const { schools } of schoolChunks(ctx, "device_events_purge")) {
    if (purged >= MAX_PURGED) break;
    const tokens = schools.map((school) =>
      batchable(school, sql`DELETE FROM device_replacement_tokens WHERE ${inSchool(school.tenantId)} AND expires_at < ${now - DAY_MS}`),
    );
    const results = await runBatch(schools[0]!, [...schools.map((school) => schoolEvents(school, now)), ...tokens]);
    purged += results.slice(0, schools.length).reduce<number>((sum, result) => sum + changedRows(result), 0);
    for (let round = schools.filter((_, i) => changedRows(results[i]) === PURGE_CHUNK); round.length > 0 && purged < MAX_PURGED; ) {
      const again = await runBatch(round[0]!, round.map((school) => schoolEvents(school, now)));
      purged += again.reduce<number>((sum, result) => sum + changedRows(result), 0);
      round = round.filter((_, i) => changedRows(again[i]) === PURGE_CHUNK);
    }
  }
  return purged;
}
