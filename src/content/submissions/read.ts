import { sql, type SQL } from "drizzle-orm";
import { batchable, rowsOf, runBatch, type BatchItem } from "../../core/db/batch";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { assignmentsErrors } from "../assignments/errors";
import {
  managedStudentSql,
  managesStudents,
  presentSubmission,
  SUBMISSION_COLUMNS,
  submissionFilesSql,
  submissionVisibleSql,
  type SubmissionFileRow,
  type SubmissionRow,
  type SubmissionView,
} from "./present";
import { inSchool, liveInSchool } from "../../core/db/conditions";

/**
 * One submission with its files as two statements, for a read's batch or at the end of a write's
 * batch (so a write answers what it wrote without another round trip). `where` is a condition on
 * the submission `s` (its school is added here).
 */
export function submissionReadsWhere(ctx: SchoolCtx, where: SQL): [BatchItem, BatchItem] {
  const matching = sql`FROM submissions s WHERE s.tenant_id = ${ctx.tenantId} AND ${where}`;
  return [batchable(ctx, sql`SELECT ${SUBMISSION_COLUMNS} ${matching}`), batchable(ctx, submissionFilesSql(ctx.tenantId, sql`SELECT s.id ${matching}`))];
}

/** The submission by id, if the caller may read it (its owner, or a manager of students in scope). */
export function submissionReads(ctx: SchoolCtx, id: string): [BatchItem, BatchItem] {
  return submissionReadsWhere(ctx, sql`s.id = ${id} AND ${submissionVisibleSql(ctx)}`);
}

/** The student's latest attempt at the assignment (the highest attempt number). */
export function latestAttemptSql(ctx: SchoolCtx, assignmentId: string, studentId: string | SQL): SQL {
  return sql`s.id = (SELECT la.id FROM submissions la WHERE la.tenant_id = ${ctx.tenantId} AND la.assignment_id = ${assignmentId}
    AND la.student_id = ${studentId} ORDER BY la.attempt DESC LIMIT 1)`;
}

/** The submission the two statements read, or 404 `submission_not_found`. */
export async function presentRead(ctx: SchoolCtx, row: unknown, files: unknown): Promise<SubmissionView> {
  const [found] = rowsOf<SubmissionRow>(row);
  if (!found) throw new ApiError(assignmentsErrors.SUBMISSION_NOT_FOUND);
  return presentSubmission(ctx, ctx.tenantId, found, rowsOf<SubmissionFileRow>(files));
}

/** Every submission the statements read, in their order. */
export async function presentAll(ctx: SchoolCtx, rows: unknown, files: unknown): Promise<SubmissionView[]> {
  const fileRows = rowsOf<SubmissionFileRow>(files);
  return Promise.all(rowsOf<SubmissionRow>(rows).map((row) => presentSubmission(ctx, ctx.tenantId, row, fileRows)));
}

/** GET /submissions/:id: the owner, or a manager of students within scope; anyone else 404. */
export async function getSubmission(ctx: SchoolCtx, input: { id: string }): Promise<SubmissionView> {
  const [row, files] = await runBatch(ctx, submissionReads(ctx, input.id));
  return presentRead(ctx, row, files);
}

/**
 * GET /assignments/:id/submissions/history: every attempt of one student, newest first. The
 * caller's own; a manager of students names the student with `student_id` (one outside a
 * restricted curator's scope has no history to show). Anyone else naming another student sees
 * nothing.
 */
export async function submissionHistory(ctx: SchoolCtx, input: { assignmentId: string; query: { student_id?: string } }): Promise<{ submissions: SubmissionView[] }> {
  const studentId = input.query.student_id ?? ctx.actor.userId;
  const own = studentId === ctx.actor.userId;
  if (!own && !managesStudents(ctx)) return { submissions: [] };
  const allowed = own ? sql`1` : managedStudentSql(ctx, sql`s.student_id`);
  const where = sql`s.assignment_id = ${input.assignmentId} AND s.student_id = ${studentId} AND ${allowed}
    AND EXISTS (SELECT 1 FROM assignments ha WHERE ha.id = s.assignment_id AND ${liveInSchool("ha", ctx.tenantId)})`;
  const matching = sql`FROM submissions s WHERE ${inSchool("s", ctx.tenantId)} AND ${where}`;
  const [rows, files] = await runBatch(ctx, [
    batchable(ctx, sql`SELECT ${SUBMISSION_COLUMNS} ${matching} ORDER BY s.attempt DESC`),
    batchable(ctx, submissionFilesSql(ctx.tenantId, sql`SELECT s.id ${matching}`)),
  ]);
  return { submissions: await presentAll(ctx, rows, files) };
}
