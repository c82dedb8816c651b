import { and, desc, eq, ne, sql } from "drizzle-orm";
import { changedRows, insertWhere, runBatch } from "../../core/db/batch";
import { inSchool } from "../../core/db/conditions";
import { liveRow } from "../../core/db/live-row";
import type { SchoolCtx, ServiceContext } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { DAY_MS, iso, isoOrNull } from "../../core/lib/clock";
import { uuidv7 } from "../../core/lib/ids";
import { log } from "../../core/lib/log";
import { systemActor } from "../../core/school";
import { forSchoolId } from "../schools/lookup";
import { dataExports, users } from "../../db/schema";
import { dataExportErrors as e } from "./errors";
import { EXPORT_LINK_TTL_SECONDS, exportDownloadUrl, verifyExportLink } from "./links";

/** One export per person per this window, whoever asks (05 section 7). */
export const EXPORT_RATE_WINDOW_MS = DAY_MS;
/** How long a ready file is kept (05 section 7: ready_at + 7 days). */
export const EXPORT_TTL_MS = 7 * DAY_MS;

type ExportRow = typeof dataExports.$inferSelect;

/**
 * POST /t/me/data-export and POST /t/users/:id/data-export: a pending export of `userId`'s data,
 * asked for by the caller. The rate limit is the insert's own condition (no export of the person
 * in the last 24 hours), so two requests at once cannot both start one. The queue builds the file.
 */
export async function requestExport(ctx: SchoolCtx, input: { userId: string; checkUser: boolean }) {
  if (input.checkUser) await liveRow(ctx, users, input.userId, e.USER_NOT_FOUND);
  const now = ctx.clock.now();
  const id = uuidv7(now);
  const [inserted] = await runBatch(ctx, [
    insertWhere(
      ctx,
      dataExports,
      { id, tenantId: ctx.tenantId, userId: input.userId, requestedBy: ctx.actor.userId, status: "pending", createdAt: now },
      sql`NOT EXISTS (SELECT 1 FROM data_exports r WHERE ${inSchool("r", ctx.tenantId)} AND r.user_id = ${input.userId} AND r.status <> 'failed' AND r.created_at > ${now - EXPORT_RATE_WINDOW_MS})`,
    ),
  ]);
  if (changedRows(inserted) === 0) throw await rateLimited(ctx, input.userId, now);
  await ctx.env.DATA_EXPORT.send({ kind: "data_export", tenant_id: ctx.tenantId, export_id: id }).catch((err: unknown) => {
    // The row is the truth: the cron sends the message again for an export left pending.
    log.error("data export message not sent", { export_id: id, error: String(err) });
  });
  return { id, status: "pending" as const, created_at: iso(now) };
}

/** The 429 with `Retry-After`: seconds until the person's newest export leaves the window. */
async function rateLimited(ctx: SchoolCtx, userId: string, now: number): Promise<ApiError> {
  const [latest] = await ctx.db
    .select({ createdAt: dataExports.createdAt })
    .from(dataExports)
    .where(and(inSchool(dataExports, ctx.tenantId), eq(dataExports.userId, userId), ne(dataExports.status, "failed")))
    .orderBy(desc(dataExports.createdAt))
    .limit(1);
  const seconds = Math.max(1, Math.ceil(((latest?.createdAt ?? now) + EXPORT_RATE_WINDOW_MS - now) / 1000));
  return new ApiError(e.EXPORT_RATE_LIMITED, { headers: { "Retry-After": String(seconds) } });
}

/**
 * GET /t/data-exports/:id: for whoever asked for it and for admins. Another member's export, one
 * of a deleted person and one past its expiry answer like a missing one
 * (docs/decisions/data-export.md, "Who reads an export").
 */
export async function getExport(ctx: SchoolCtx, input: { id: string }) {
  const [row] = await ctx.db
    .select()
    .from(dataExports)
    .where(and(eq(dataExports.id, input.id), inSchool(dataExports, ctx.tenantId)))
    .limit(1);
  const now = ctx.clock.now();
  const admin = ctx.actor.role === "admin" || ctx.actor.role === "superadmin";
  if (!row || row.userId === null || (!admin && row.requestedBy !== ctx.actor.userId) || (row.expiresAt !== null && row.expiresAt <= now)) {
    throw new ApiError(e.DATA_EXPORT_NOT_FOUND);
  }
  return presentExport(ctx, row);
}

async function presentExport(ctx: SchoolCtx, row: ExportRow) {
  const ready = row.status === "ready" && row.expiresAt !== null;
  return {
    id: row.id,
    user_id: row.userId!,
    status: row.status,
    created_at: iso(row.createdAt),
    ready_at: isoOrNull(row.readyAt),
    expires_at: isoOrNull(row.expiresAt),
    download_url: ready ? await exportDownloadUrl(ctx, ctx.tenantId, row.id, row.expiresAt!) : null,
    size_bytes: row.sizeBytes,
  };
}

/**
 * GET /data-exports/:id/download?school&exp&sig: the file behind a signed link. The link names the
 * school (its shard holds the row) and the signature binds the school, the export and the expiry,
 * so no value of the link can be changed. A bad signature, a missing or expired export answer
 * alike (404); an expired link 403.
 */
export async function downloadExport(ctx: ServiceContext, input: { id: string; school: string; exp: number; sig: string }): Promise<Response> {
  const nowSeconds = Math.floor(ctx.clock.now() / 1000);
  if (input.exp < nowSeconds) throw new ApiError(e.LINK_EXPIRED);
  if (input.exp > nowSeconds + EXPORT_LINK_TTL_SECONDS || !(await verifyExportLink(ctx, input.school, input.id, input.exp, input.sig))) {
    throw new ApiError(e.DATA_EXPORT_NOT_FOUND);
  }
  const school = await forSchoolId(ctx, input.school, systemActor("data_export_download"));
  if (!school) throw new ApiError(e.DATA_EXPORT_NOT_FOUND);
  const [row] = await school.db
    .select()
    .from(dataExports)
    .where(and(eq(dataExports.id, input.id), inSchool(dataExports, school.tenantId), eq(dataExports.status, "ready")))
    .limit(1);
  if (!row?.objectKey || row.userId === null || (row.expiresAt ?? 0) <= ctx.clock.now()) throw new ApiError(e.DATA_EXPORT_NOT_FOUND);
  const object = await ctx.env.MEDIA.get(row.objectKey);
  if (!object) throw new ApiError(e.DATA_EXPORT_NOT_FOUND);
  return new Response(object.body, {
    status: 200,
    headers: {
      "Content-Type": "application/json; charset=utf-8",
      "Content-Disposition": `attachment; filename="personal-data-${row.id}.json"`,
      "Content-Length": String(object.size),
      "X-Content-Type-Options": "nosniff",
      "Cache-Control": "private, no-store",
    },
  });
}
