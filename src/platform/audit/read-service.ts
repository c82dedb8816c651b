import { and, count, desc, eq, gte, lte } from "drizzle-orm";
import type { z } from "@hono/zod-openapi";
import { inSchool } from "../../core/db/conditions";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { pageOffset } from "../../core/http/pagination";
import { iso } from "../../core/lib/clock";
import { auditEntries } from "../../db/schema";
import { auditErrors } from "./errors";
import type { AuditLogQuery } from "./schemas";

type Row = typeof auditEntries.$inferSelect;

/** An entry as the API shows it: a system job has no actor; a purged person's id and name are gone, the role stays. */
function present(row: Row) {
  return {
    id: row.id,
    at: iso(row.at),
    actor: row.actorRole === null ? null : { id: row.actorId, role: row.actorRole, name: row.actorName },
    action: row.action,
    target_type: row.targetType,
    target_id: row.targetId,
    summary: row.summary,
    changes: row.changes,
    request_id: row.requestId,
  };
}

/**
 * GET /t/audit-log (admin): newest first. The page and the total are two statements of one batch
 * (one round trip); each filter combination is served by an index of the table (tenant and time,
 * actor, target, action), so neither statement sorts the school's whole log.
 */
export async function listAuditLog(ctx: SchoolCtx, input: { query: z.infer<typeof AuditLogQuery> }) {
  const { query } = input;
  const from = query.from === undefined ? undefined : Date.parse(query.from);
  const to = query.to === undefined ? undefined : Date.parse(query.to);
  if (from !== undefined && to !== undefined && from > to) throw new ApiError(auditErrors.INVALID_PARAMS);
  const where = and(
    inSchool(auditEntries, ctx.tenantId),
    query.actor_id === undefined ? undefined : eq(auditEntries.actorId, query.actor_id),
    query.action === undefined ? undefined : eq(auditEntries.action, query.action),
    query.target_type === undefined ? undefined : eq(auditEntries.targetType, query.target_type),
    query.target_id === undefined ? undefined : eq(auditEntries.targetId, query.target_id),
    from === undefined ? undefined : gte(auditEntries.at, from),
    to === undefined ? undefined : lte(auditEntries.at, to),
  );
  const [rows, totals] = await ctx.db.batch([
    ctx.db
      .select()
      .from(auditEntries)
      .where(where)
      .orderBy(desc(auditEntries.at), desc(auditEntries.id))
      .limit(query.limit)
      .offset(pageOffset(query.page, query.limit)),
    ctx.db.select({ total: count() }).from(auditEntries).where(where),
  ]);
  return { entries: rows.map(present), total: totals[0]?.total ?? 0, page: query.page, limit: query.limit };
}
