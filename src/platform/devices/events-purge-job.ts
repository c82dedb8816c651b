import { lt, sql } from "drizzle-orm";
import { deviceReplacementTokens } from "../../db/schema";
import { batchable, changedRows, runBatch } from "../../core/db/batch";
import { DEFAULT_DEVICE_POLICY } from "./policy";
import type { ServiceContext } from "../../core/http/context";
import { DAY_MS } from "../../core/lib/clock";

const PURGE_CHUNK = 2000;
const MAX_ROUNDS = 10;

/** The smallest UUIDv7 of an instant: event ids are UUIDv7 of their creation time, so `id <` it is a primary-key range. */
function uuidv7Floor(ms: number): string {
  const hex = ms.toString(16).padStart(12, "0");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-0000-0000-000000000000`;
}

/**
 * Deletes security events older than each school's `event_retention_days` (schools without a
 * saved policy and the platform's own events use the default). Both deletes walk an index
 * (tenant + time, or the time-ordered primary key) in bounded chunks, so a cron run never holds
 * D1 for long; whatever is left goes in the next run. Replacement tokens go a day after expiry.
 */
export async function purgeDeviceEvents(ctx: ServiceContext): Promise<number> {
  const now = ctx.clock.now();
  const defaultCutoff = now - DEFAULT_DEVICE_POLICY.eventRetentionDays * DAY_MS;
  let purged = 0;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const [withPolicy, withDefault] = await runBatch(ctx, [
      batchable(
        ctx,
        sql`DELETE FROM device_events WHERE id IN (
              SELECT e.id FROM device_policies p
              JOIN device_events e ON e.tenant_id = p.tenant_id AND e.created_at < ${now} - p.event_retention_days * ${DAY_MS}
              LIMIT ${PURGE_CHUNK})`,
      ),
      batchable(
        ctx,
        sql`DELETE FROM device_events WHERE id IN (
              SELECT e.id FROM device_events e
              WHERE e.id < ${uuidv7Floor(defaultCutoff)} AND e.created_at < ${defaultCutoff}
                AND NOT EXISTS (SELECT 1 FROM device_policies p WHERE p.tenant_id = e.tenant_id)
              LIMIT ${PURGE_CHUNK})`,
      ),
    ]);
    const counts = [withPolicy, withDefault].map(changedRows);
    purged += counts[0]! + counts[1]!;
    if (counts.every((count) => count < PURGE_CHUNK)) break;
  }
  await ctx.db.delete(deviceReplacementTokens).where(lt(deviceReplacementTokens.expiresAt, now - DAY_MS));
  return purged;
}
