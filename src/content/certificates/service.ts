import { sql, type SQL } from "drizzle-orm";
import { batchable, changedRows, rowsOf, runBatch } from "../../core/db/batch";
import { inSchool, liveInSchool } from "../../core/db/conditions";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { pageOffset } from "../../core/http/pagination";
import { publicLink } from "../../core/http/public-links";
import { iso, isoOrNull } from "../../core/lib/clock";
import { auditEntry } from "../../platform/audit/write";
import { dispatchQueued } from "../../platform/notifications/enqueue";
import { revokedWebhooks } from "./webhooks";
import { restrictedScope, scopeCondition } from "../../platform/schools/curator-scope";
import { groupCode } from "./code";
import { certificatesErrors as e } from "./errors";
import { issueMissingStatements, missingCountSql } from "./issuance";
import type { CertificateRuleBody } from "./schemas";
import { certificateToken } from "./signing";

/**
 * Certificates (05 section 4, docs/decisions/certificates.md): the rule, the lists, the detail and
 * revocation. A read is one statement; a change is its read and one batch.
 */

export interface CertificateRow {
  id: string;
  code: string;
  course_id: string;
  student_id: string;
  title: string;
  course_title: string;
  holder_first_name: string;
  holder_last_name: string;
  school_name: string;
  issuer: string;
  issued_at: number;
  revoked_at: number | null;
  revoke_reason: string | null;
  pdf_key: string | null;
}

const COLUMNS = sql.raw(
  "ct.id, ct.code, ct.course_id, ct.student_id, ct.title, ct.course_title, ct.holder_first_name, ct.holder_last_name, ct.school_name, ct.issuer, ct.issued_at, ct.revoked_at, ct.revoke_reason, ct.pdf_key",
);

export const holderName = (row: Pick<CertificateRow, "holder_first_name" | "holder_last_name">) => `${row.holder_first_name} ${row.holder_last_name}`.trim();

export async function presentCertificate(ctx: SchoolCtx, row: CertificateRow) {
  const code = groupCode(row.code);
  return {
    id: row.id,
    code,
    course_id: row.course_id,
    course_title: row.course_title,
    title: row.title,
    student_id: row.student_id,
    holder_name: holderName(row),
    school_name: row.school_name,
    issued_at: iso(row.issued_at),
    status: row.revoked_at === null ? ("valid" as const) : ("revoked" as const),
    revoked_at: isoOrNull(row.revoked_at),
    revoke_reason: row.revoke_reason,
    verify_url: publicLink(ctx, `/api/v1/verify/${code}`),
    pdf_url: publicLink(ctx, `/api/v1/t/certificates/${row.id}/pdf`),
    token: await certificateToken(ctx.env, { code: row.code, issuer: row.issuer, courseTitle: row.course_title, holderName: holderName(row), issuedAt: row.issued_at }),
  };
}

// ---- the rule ----

interface RuleRow {
  course_title: string;
  enabled: number | null;
  title: string | null;
  require_exam_id: string | null;
  min_exam_pct: number | null;
  updated_at: number | null;
  exam_ok: number;
}

function courseWithRuleSql(ctx: SchoolCtx, courseId: string, examId: string | null = null) {
  return batchable(
    ctx,
    sql`SELECT c.title AS course_title, r.enabled, r.title, r.require_exam_id, r.min_exam_pct, r.updated_at,
        ${examId === null ? sql`1` : sql`EXISTS (SELECT 1 FROM exams x WHERE x.id = ${examId} AND ${liveInSchool("x", ctx.tenantId)} AND x.status = 'published')`} AS exam_ok
      FROM courses c LEFT JOIN certificate_rules r ON ${inSchool("r", ctx.tenantId)} AND r.course_id = c.id
      WHERE c.id = ${courseId} AND ${liveInSchool("c", ctx.tenantId)}`,
  );
}

function presentRule(courseId: string, row: RuleRow) {
  return {
    course_id: courseId,
    enabled: row.enabled === 1,
    title: row.title ?? row.course_title,
    require_exam_id: row.require_exam_id,
    min_exam_pct: row.min_exam_pct,
    updated_at: isoOrNull(row.updated_at),
  };
}

async function readRule(ctx: SchoolCtx, courseId: string, examId: string | null = null): Promise<RuleRow> {
  const [row] = rowsOf<RuleRow>((await runBatch(ctx, [courseWithRuleSql(ctx, courseId, examId)]))[0]);
  if (!row) throw new ApiError(e.COURSE_NOT_FOUND);
  return row;
}

/** GET /t/courses/:id/certificate: the rule; `enabled: false` with the course title when none is set. */
export async function getCertificateRule(ctx: SchoolCtx, input: { courseId: string }) {
  return presentRule(input.courseId, await readRule(ctx, input.courseId));
}

/** PUT /t/courses/:id/certificate: creates or replaces the rule; absent fields are null. */
export async function putCertificateRule(ctx: SchoolCtx, input: { courseId: string; body: CertificateRuleBody }) {
  const { courseId, body } = input;
  const examId = body.require_exam_id ?? null;
  const before = await readRule(ctx, courseId, examId);
  if (before.exam_ok !== 1) throw new ApiError(e.INVALID_EXAM_ID);
  const now = ctx.clock.now();
  const results = await runBatch(ctx, [
    batchable(
      ctx,
      sql`INSERT INTO certificate_rules (tenant_id, course_id, enabled, title, require_exam_id, min_exam_pct, updated_by, updated_at)
        SELECT ${ctx.tenantId}, ${courseId}, ${body.enabled ? 1 : 0}, ${body.title ?? null}, ${examId}, ${body.min_exam_pct ?? null}, ${ctx.actor.userId}, ${now}
        WHERE EXISTS (SELECT 1 FROM courses lc WHERE lc.id = ${courseId} AND ${liveInSchool("lc", ctx.tenantId)})
        ON CONFLICT (tenant_id, course_id) DO UPDATE SET enabled = excluded.enabled, title = excluded.title, require_exam_id = excluded.require_exam_id,
          min_exam_pct = excluded.min_exam_pct, updated_by = excluded.updated_by, updated_at = excluded.updated_at`,
    ),
    courseWithRuleSql(ctx, courseId),
  ]);
  const [row] = rowsOf<RuleRow>(results[1]);
  if (!row) throw new ApiError(e.COURSE_NOT_FOUND);
  return presentRule(courseId, row);
}

/** POST /t/courses/:id/certificates/issue-missing: everyone who already qualifies; `{issued}`. */
export async function issueMissing(ctx: SchoolCtx, input: { courseId: string }) {
  const [course] = rowsOf<{ missing: number }>((await runBatch(ctx, [missingCountSql(ctx, input.courseId)]))[0]);
  if (!course) throw new ApiError(e.COURSE_NOT_FOUND);
  const results = await runBatch(ctx, await issueMissingStatements(ctx, input.courseId, course.missing));
  const issued = changedRows(results[0]);
  await dispatchQueued(ctx);
  return { issued };
}

// ---- certificates ----

/** A student sees their own; staff see the school's, a restricted curator only their own students'. */
function visibleTo(ctx: SchoolCtx): SQL {
  if (ctx.actor.role === "student") return sql`ct.student_id = ${ctx.actor.userId}`;
  return scopeCondition(sql`ct.student_id`, restrictedScope(ctx)) ?? sql`1 = 1`;
}

function certificateSql(ctx: SchoolCtx, id: string) {
  return batchable(ctx, sql`SELECT ${COLUMNS} FROM certificates ct WHERE ct.id = ${id} AND ${inSchool("ct", ctx.tenantId)} AND ${visibleTo(ctx)}`);
}

export async function readCertificate(ctx: SchoolCtx, id: string): Promise<CertificateRow> {
  const [row] = rowsOf<CertificateRow>((await runBatch(ctx, [certificateSql(ctx, id)]))[0]);
  if (!row) throw new ApiError(e.CERTIFICATE_NOT_FOUND);
  return row;
}

/** GET /t/certificates/:id (the owner, or staff in scope; others 404). */
export async function getCertificate(ctx: SchoolCtx, input: { id: string }) {
  return presentCertificate(ctx, await readCertificate(ctx, input.id));
}

/** GET /t/students/me/certificates: the caller's, newest first. */
export async function myCertificates(ctx: SchoolCtx) {
  const rows = rowsOf<CertificateRow>(
    (await runBatch(ctx, [batchable(ctx, sql`SELECT ${COLUMNS} FROM certificates ct WHERE ${inSchool("ct", ctx.tenantId)} AND ct.student_id = ${ctx.actor.userId} ORDER BY ct.issued_at DESC, ct.id`)]))[0],
  );
  return { certificates: await Promise.all(rows.map((row) => presentCertificate(ctx, row))) };
}

/** GET /t/courses/:id/certificates: paged, newest first; the course, the page and the total in one batch. */
export async function courseCertificates(ctx: SchoolCtx, input: { courseId: string; page: number; limit: number }) {
  const scope = scopeCondition(sql`ct.student_id`, restrictedScope(ctx));
  const where = sql`${inSchool("ct", ctx.tenantId)} AND ct.course_id = ${input.courseId} ${scope ? sql`AND ${scope}` : sql``}`;
  const [course, page, count] = await runBatch(ctx, [
    batchable(ctx, sql`SELECT 1 AS live FROM courses c WHERE c.id = ${input.courseId} AND ${liveInSchool("c", ctx.tenantId)}`),
    batchable(ctx, sql`SELECT ${COLUMNS} FROM certificates ct WHERE ${where} ORDER BY ct.issued_at DESC, ct.id LIMIT ${input.limit} OFFSET ${pageOffset(input.page, input.limit)}`),
    batchable(ctx, sql`SELECT COUNT(*) AS n FROM certificates ct WHERE ${where}`),
  ]);
  if (rowsOf(course).length === 0) throw new ApiError(e.COURSE_NOT_FOUND);
  const rows = rowsOf<CertificateRow>(page);
  return {
    certificates: await Promise.all(rows.map((row) => presentCertificate(ctx, row))),
    total: rowsOf<{ n: number }>(count)[0]?.n ?? 0,
    page: input.page,
    limit: input.limit,
  };
}

/** POST /t/certificates/:id/revoke: once (409 after), with its audit entry in the same batch. */
export async function revokeCertificate(ctx: SchoolCtx, input: { id: string; reason: string }) {
  const before = await readCertificate(ctx, input.id);
  if (before.revoked_at !== null) throw new ApiError(e.ALREADY_REVOKED);
  const now = ctx.clock.now();
  const unrevoked = sql`EXISTS (SELECT 1 FROM certificates rc WHERE rc.id = ${input.id} AND ${inSchool("rc", ctx.tenantId)} AND rc.revoked_at IS NULL)`;
  const results = await runBatch(ctx, [
    auditEntry(ctx, {
      action: "certificate.revoked",
      targetType: "certificate",
      targetId: input.id,
      summary: `Certificate ${groupCode(before.code)} revoked`,
      changes: { status: ["valid", "revoked"], revoke_reason: [null, input.reason] },
      when: unrevoked,
    }),
    batchable(
      ctx,
      sql`UPDATE certificates SET revoked_at = ${now}, revoke_reason = ${input.reason}, revoked_by = ${ctx.actor.userId}
        WHERE ${inSchool(ctx.tenantId)} AND id = ${input.id} AND revoked_at IS NULL`,
    ),
    certificateSql(ctx, input.id),
    ...revokedWebhooks(ctx, input.id, now),
  ]);
  const [row] = rowsOf<CertificateRow>(results[2]);
  if (!row) throw new ApiError(e.CERTIFICATE_NOT_FOUND);
  if (changedRows(results[1]) === 0) throw new ApiError(e.ALREADY_REVOKED);
  await dispatchQueued(ctx);
  return presentCertificate(ctx, row);
}
