import { sql } from "drizzle-orm";
import { batchable, rowsOf, runBatch } from "../../core/db/batch";
import { inSchool } from "../../core/db/conditions";
import type { SchoolCtx, ServiceContext, SystemActor } from "../../core/http/context";
import { DAY_MS } from "../../core/lib/clock";
import { schoolChunks } from "../schools/school-chunks";
import { sendWebhookDispatch } from "./outbox";

/** Deliveries and events are kept this long (05 section 5). */
export const WEBHOOK_RETENTION_DAYS = 30;
/** Rows a school loses per run at most; the rest goes in the next run. */
const PURGE_CHUNK = 1000;

type School = SchoolCtx<SystemActor>;

function due(school: School, now: number) {
  return batchable(
    school,
    sql`SELECT 1 AS due WHERE EXISTS (
      SELECT 1 FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id AND ${inSchool("w", school.tenantId)} AND w.status = 'active'
      WHERE ${inSchool("d", school.tenantId)} AND d.status = 'pending' AND d.next_attempt_at <= ${now} AND (d.lease_until IS NULL OR d.lease_until <= ${now}))`,
  );
}

function purge(school: School, table: "webhook_deliveries" | "webhook_events", column: "created_at" | "occurred_at", cutoff: number) {
  const t = sql.raw(table);
  const c = sql.raw(column);
  return batchable(
    school,
    sql`DELETE FROM ${t} WHERE ${inSchool(school.tenantId)} AND id IN (SELECT p.id FROM ${t} p WHERE ${inSchool("p", school.tenantId)} AND p.${c} < ${cutoff} LIMIT ${PURGE_CHUNK})`,
  );
}

/**
 * Cron: re-sends "deliveries due" for every school with a try due (a retry later than a queue delay
 * reaches, a lost message, a re-enabled webhook), and removes deliveries and events older than 30
 * days. One batch per chunk of schools, three statements per school.
 */
/** Answers the schools it sent a message for. */
export async function sweepWebhooks(ctx: ServiceContext): Promise<{ schools: string[] }> {
  const now = ctx.clock.now();
  const cutoff = now - WEBHOOK_RETENTION_DAYS * DAY_MS;
  const dueSchools: string[] = [];
  for await (const { schools } of schoolChunks(ctx, "webhook_sweep")) {
    const results = await runBatch(
      schools[0]!,
      schools.flatMap((school) => [due(school, now), purge(school, "webhook_deliveries", "created_at", cutoff), purge(school, "webhook_events", "occurred_at", cutoff)]),
    );
    schools.forEach((school, i) => {
      if (rowsOf(results[i * 3]).length > 0) dueSchools.push(school.tenantId);
    });
  }
  await sendWebhookDispatch(ctx, dueSchools);
  return { schools: dueSchools };
}
