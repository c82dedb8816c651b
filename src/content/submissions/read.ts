import { sql } from "drizzle-orm";
import { batchable, rowsOf, runBatch, type BatchItem } from "../../core/db/batch";
import type { TenantCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { assignmentsErrors } from "../assignments/errors";
import { presentSubmission, SUBMISSION_COLUMNS, submissionFilesSql, submissionVisibleSql, type SubmissionFileRow, type SubmissionRow, type SubmissionView } from "./present";

/**
 * One submission with its files as two statements, for a read's batch or at the end of a write's
 * batch (so a write answers what it wrote without another round trip).
 */
export function submissionReads(ctx: TenantCtx, id: string): [BatchItem, BatchItem] {
  const visible = sql`SELECT s.id FROM submissions s WHERE s.id = ${id} AND ${submissionVisibleSql(ctx)}`;
  return [
    batchable(ctx, sql`SELECT ${SUBMISSION_COLUMNS} FROM submissions s WHERE s.id = ${id} AND ${submissionVisibleSql(ctx)}`),
    batchable(ctx, submissionFilesSql(ctx.tenantId, visible)),
  ];
}

/** The submission the two statements read, or 404 `submission_not_found`. */
export async function presentRead(ctx: TenantCtx, row: unknown, files: unknown): Promise<SubmissionView> {
  const [found] = rowsOf<SubmissionRow>(row);
  if (!found) throw new ApiError(assignmentsErrors.SUBMISSION_NOT_FOUND);
  return presentSubmission(ctx, ctx.tenantId, found, rowsOf<SubmissionFileRow>(files));
}

/** GET /submissions/:id: the owner, or a manager of students within scope; anyone else 404. */
export async function getSubmission(ctx: TenantCtx, input: { id: string }): Promise<SubmissionView> {
  const [row, files] = await runBatch(ctx, submissionReads(ctx, input.id));
  return presentRead(ctx, row, files);
}
