import { sql, type SQL } from "drizzle-orm";
import type { z } from "@hono/zod-openapi";
import { batchable, rowsOf, runBatch, type BatchItem } from "../../core/db/batch";
import { containsText, inSchool, liveInSchool } from "../../core/db/conditions";
import { percent } from "../../core/db/decimal";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { pageOffset } from "../../core/http/pagination";
import { isStaff } from "../common/access";
import { assignmentTargetsStudentSql } from "./access";
import { assignmentsErrors } from "./errors";
import { presentAssignment, type AssignmentRow, type AssignmentView, type AttachmentRow, type StudentAssignmentRow } from "./present";
import type { ListAssignmentsQuery } from "./schemas";

/**
 * The assignment reads as raw statements over the alias `a`, so a write puts them in its own batch
 * (the answer of PATCH) and a read is one batch: the assignments, their attachments, and for a
 * student their latest attempt's status and score as subqueries, whatever the number read.
 */

type Caller = Pick<SchoolCtx, "tenantId" | "actor">;

/** The assignment (alias `a`) is one the caller may read: a live one of the school; for a student, one that targets them. */
export function assignmentVisibleSql(ctx: Caller): SQL {
  const live = sql`${liveInSchool("a", ctx.tenantId)}`;
  return isStaff(ctx.actor) ? live : sql`${live} AND ${assignmentTargetsStudentSql(ctx.tenantId, sql`a.id`, ctx.actor.userId)}`;
}

const ASSIGNMENT_COLUMNS = sql`a.id, a.title, a.instructions, a.max_score_hundredths, a.max_attempts, a.screenshot_protection_enabled, a.created_at, a.updated_at`;

/** The student's latest attempt (highest attempt number) at the assignment `a`. */
function latestSubmissionSql(ctx: Caller, column: SQL): SQL {
  return sql`(SELECT ${column} FROM submissions ms WHERE ${inSchool("ms", ctx.tenantId)} AND ms.assignment_id = a.id AND ms.student_id = ${ctx.actor.userId}
    ORDER BY ms.attempt DESC LIMIT 1)`;
}

/** The columns of the caller's view: a student's add their latest attempt's status and score. */
export function assignmentColumnsSql(ctx: Caller): SQL {
  if (isStaff(ctx.actor)) return ASSIGNMENT_COLUMNS;
  return sql`${ASSIGNMENT_COLUMNS}, ${latestSubmissionSql(ctx, sql`ms.status`)} AS my_submission_status, ${latestSubmissionSql(ctx, sql`ms.score_hundredths`)} AS my_submission_score`;
}

const idsJson = (ids: readonly string[]) => sql`(SELECT value FROM json_each(${JSON.stringify(ids)}))`;

/** The assignments (ids as values) the caller may read, in the caller's view. */
export function assignmentsStatement(ctx: SchoolCtx, ids: readonly string[]): BatchItem {
  return batchable(ctx, sql`SELECT ${assignmentColumnsSql(ctx)} FROM assignments a WHERE a.id IN ${idsJson(ids)} AND ${assignmentVisibleSql(ctx)}`);
}

/** The attachments of those assignments with their files, in position order. */
export function attachmentsStatement(ctx: SchoolCtx, ids: readonly string[]): BatchItem {
  const t = ctx.tenantId;
  return batchable(
    ctx,
    sql`SELECT aa.id, aa.assignment_id, aa.media_asset_id, aa.position, m.filename, m.size_bytes AS size, m.kind, m.mime
      FROM assignment_attachments aa JOIN media_assets m ON m.id = aa.media_asset_id AND ${inSchool("m", t)}
      WHERE ${inSchool("aa", t)} AND aa.assignment_id IN (SELECT a.id FROM assignments a WHERE a.id IN ${idsJson(ids)} AND ${assignmentVisibleSql(ctx)})
      ORDER BY aa.assignment_id, aa.position, aa.id`,
  );
}

/**
 * The assignments the caller may read, with their attachments, after `before` (a write whose
 * answer they are), in one batch. `applied` holds the results of `before`.
 */
export async function readAssignments(ctx: SchoolCtx, ids: readonly string[], before: readonly BatchItem[] = []): Promise<{ assignments: Map<string, AssignmentView>; applied: unknown[] }> {
  const results = await runBatch(ctx, [...before, assignmentsStatement(ctx, ids), attachmentsStatement(ctx, ids)]);
  const [assignmentResult, attachmentResult] = results.slice(before.length);
  const attachments = new Map<string, AttachmentRow[]>();
  for (const row of rowsOf<AttachmentRow>(attachmentResult)) {
    const list = attachments.get(row.assignment_id) ?? [];
    list.push(row);
    attachments.set(row.assignment_id, list);
  }
  const assignments = new Map<string, AssignmentView>();
  for (const row of rowsOf<AssignmentRow | StudentAssignmentRow>(assignmentResult)) assignments.set(row.id, presentAssignment(ctx, row, attachments.get(row.id) ?? []));
  return { assignments, applied: results.slice(0, before.length) };
}

export function assignmentOr404(assignments: Map<string, AssignmentView>, id: string): AssignmentView {
  const assignment = assignments.get(id);
  if (!assignment) throw new ApiError(assignmentsErrors.ASSIGNMENT_NOT_FOUND);
  return assignment;
}

/**
 * GET /t/assignments/:id: one batch. Staff read any live assignment of the school; a student one
 * that targets them (anything else is `assignment_not_found`).
 */
export async function getAssignment(ctx: SchoolCtx, input: { id: string }): Promise<AssignmentView> {
  return assignmentOr404((await readAssignments(ctx, [input.id])).assignments, input.id);
}

/**
 * What an `assignment_ref` block embeds: the assignment in the caller's view, light (no
 * attachments; the detail hydrates them). A student it does not target gets nothing. One statement.
 */
export async function assignmentsForEmbed(ctx: SchoolCtx, ids: readonly string[]): Promise<Map<string, AssignmentView>> {
  const rows = await ctx.db.all<AssignmentRow | StudentAssignmentRow>(sql`SELECT ${assignmentColumnsSql(ctx)} FROM assignments a WHERE a.id IN ${idsJson(ids)} AND ${assignmentVisibleSql(ctx)}`);
  return new Map(rows.map((row) => [row.id, presentAssignment(ctx, row, [])]));
}

/**
 * GET /t/assignments: the page and the total in one batch, newest first (created_at, then id,
 * both descending). Staff list every live assignment; a student those that target them. List rows
 * carry no attachments.
 */
export async function listAssignments(ctx: SchoolCtx, input: { query: z.infer<typeof ListAssignmentsQuery> }) {
  const { q, page, limit } = input.query;
  const where = sql`${assignmentVisibleSql(ctx)} ${q ? sql`AND ${containsText(sql`a.title`, q)}` : sql``}`;
  const [rowsResult, totalResult] = await runBatch(ctx, [
    batchable(ctx, sql`SELECT ${assignmentColumnsSql(ctx)} FROM assignments a WHERE ${where} ORDER BY a.created_at DESC, a.id DESC LIMIT ${limit} OFFSET ${pageOffset(page, limit)}`),
    batchable(ctx, sql`SELECT count(*) AS total FROM assignments a WHERE ${where}`),
  ]);
  const rows = rowsOf<AssignmentRow | StudentAssignmentRow>(rowsResult);
  const total = rowsOf<{ total: number }>(totalResult)[0]?.total ?? 0;
  return { assignments: rows.map((row) => presentAssignment(ctx, row, [])), total, page, limit };
}

/**
 * GET /t/assignments/progress (students): of the live assignments that target the student, how
 * many have a submission beyond draft. One statement.
 */
export async function assignmentProgress(ctx: SchoolCtx) {
  const t = ctx.tenantId;
  const [row] = await ctx.db.all<{ accessible: number; completed: number | null }>(
    sql`SELECT count(*) AS accessible,
        sum(EXISTS (SELECT 1 FROM submissions ps WHERE ${inSchool("ps", t)} AND ps.assignment_id = a.id AND ps.student_id = ${ctx.actor.userId} AND ps.status <> 'draft')) AS completed
      FROM assignments a WHERE ${assignmentVisibleSql(ctx)}`,
  );
  const accessible = row?.accessible ?? 0;
  const completed = row?.completed ?? 0;
  return { completed, accessible, percent: percent(completed, accessible) };
}
