import { sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "../../core/db/batch";
import { isoTimeSql } from "../../core/db/sql-time";
import { inSchool } from "../../core/db/conditions";
import type { SchoolActor, SchoolCtx } from "../../core/http/context";
import { publicLink } from "../../core/http/public-links";
import { webhookOutboxRowsStatements } from "../../platform/webhooks/outbox";

/**
 * `certificate.issued` / `certificate.revoked` (05 section 5; docs/decisions/webhooks.md,
 * "Producers"): one event per certificate the batch issued or revoked, written in that batch after
 * the certificate's own statement, none in a school without an active webhook. `data` is the
 * certificate as GET /t/certificates/:id shows it, without its signed token and PDF link (the
 * receiver reads those through the API).
 */

const iso = (column: string) => isoTimeSql(sql.raw(column));
const grouped = sql.raw(`substr(wc.code, 1, 4) || '-' || substr(wc.code, 5, 4) || '-' || substr(wc.code, 9, 4) || '-' || substr(wc.code, 13, 4)`);

function certificateRows(ctx: SchoolCtx<SchoolActor>, where: SQL, occurrence: SQL): SQL {
  return sql`SELECT json_object('id', wc.id, 'code', ${grouped}, 'course_id', wc.course_id, 'course_title', wc.course_title, 'title', wc.title,
      'student_id', wc.student_id, 'holder_name', trim(wc.holder_first_name || ' ' || wc.holder_last_name), 'school_name', wc.school_name,
      'issued_at', ${iso("wc.issued_at")}, 'status', CASE WHEN wc.revoked_at IS NULL THEN 'valid' ELSE 'revoked' END,
      'revoked_at', ${iso("wc.revoked_at")}, 'revoke_reason', wc.revoke_reason,
      'verify_url', ${publicLink(ctx, "/api/v1/verify/")} || ${grouped}) AS data, ${occurrence} AS occurrence
    FROM certificates wc WHERE ${inSchool("wc", ctx.tenantId)} AND ${where} ORDER BY wc.id`;
}

/** The certificates of the course the batch issued at `now` (`only` narrows them, over `wc`). */
export function issuedWebhooks(ctx: SchoolCtx<SchoolActor>, courseId: string, now: number, only: SQL = sql`1`): BatchItem[] {
  return webhookOutboxRowsStatements(ctx, "certificate.issued", certificateRows(ctx, sql`wc.course_id = ${courseId} AND wc.issued_at = ${now} AND (${only})`, sql`'certificate:' || wc.id`));
}

/** The certificate the batch revoked at `now`. */
export function revokedWebhooks(ctx: SchoolCtx<SchoolActor>, certificateId: string, now: number): BatchItem[] {
  return webhookOutboxRowsStatements(ctx, "certificate.revoked", certificateRows(ctx, sql`wc.id = ${certificateId} AND wc.revoked_at = ${now}`, sql`'certificate:' || wc.id || ':revoked'`));
}
