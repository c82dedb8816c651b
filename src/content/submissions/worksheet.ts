import { sql } from "drizzle-orm";
import { batchable, rowsOf, runBatch } from "../../core/db/batch";
import type { SchoolCtx } from "../../core/http/context";
import type { SubmissionStatus } from "../../db/schema";
import { assignmentClosingSql } from "../assignments/deadline";
import { managedStudentSql, managesStudents, presentSubmission, SUBMISSION_COLUMNS, submissionFilesSql, type SubmissionFileRow, type SubmissionRow, type SubmissionView } from "./present";
import { latestAttemptSql, presentAll, submissionReadsWhere } from "./read";
import { inSchool, liveInSchool } from "../../core/db/conditions";

/**
 * GET /assignments/:id/submissions. A manager of students gets the worksheet: one row per student
 * (their latest attempt) among the students they manage, with who the student is, how many
 * attempts they made and whether the latest was handed in late; latest activity first. Anyone
 * else gets their own latest submission, or nothing. One batch: the page, the total and the
 * page's files, whatever the number of students.
 */

interface WorksheetDbRow extends SubmissionRow {
  student_email: string;
  student_first_name: string;
  student_last_name: string;
  attempt_count: number;
  late: number;
}

export type WorksheetView = SubmissionView & {
  student_email: string;
  student_first_name: string;
  student_last_name: string;
  attempt_count: number;
  late: boolean;
};

export interface WorksheetQuery {
  status?: SubmissionStatus;
  limit: number;
  offset: number;
}

export async function listSubmissions(
  ctx: SchoolCtx,
  input: { assignmentId: string; query: WorksheetQuery },
): Promise<{ submissions: (SubmissionView | WorksheetView)[]; total: number }> {
  if (!managesStudents(ctx)) return ownLatest(ctx, input.assignmentId);
  const t = ctx.tenantId;
  const { status, limit, offset } = input.query;
  const matching = sql`FROM submissions s
      JOIN users u ON u.id = s.student_id AND ${liveInSchool("u", t)}
    WHERE ${inSchool("s", t)} AND s.assignment_id = ${input.assignmentId}
      AND EXISTS (SELECT 1 FROM assignments wa WHERE wa.id = s.assignment_id AND ${liveInSchool("wa", t)})
      AND s.attempt = (SELECT max(m.attempt) FROM submissions m WHERE ${inSchool("m", t)} AND m.assignment_id = s.assignment_id AND m.student_id = s.student_id)
      AND ${managedStudentSql(ctx, sql`s.student_id`)}
      ${status ? sql`AND s.status = ${status}` : sql``}`;
  const page = sql`ORDER BY s.updated_at DESC, s.id LIMIT ${limit} OFFSET ${offset}`;
  const closing = assignmentClosingSql(t, sql`s.assignment_id`, sql`s.student_id`);
  const [rows, total, files] = await runBatch(ctx, [
    batchable(
      ctx,
      sql`SELECT ${SUBMISSION_COLUMNS}, u.email AS student_email, u.first_name AS student_first_name, u.last_name AS student_last_name,
          (SELECT count(*) FROM submissions c WHERE ${inSchool("c", t)} AND c.assignment_id = s.assignment_id AND c.student_id = s.student_id) AS attempt_count,
          COALESCE(s.submitted_at IS NOT NULL AND s.submitted_at > ${closing}, 0) AS late
        ${matching} ${page}`,
    ),
    batchable(ctx, sql`SELECT count(*) AS total ${matching}`),
    batchable(ctx, submissionFilesSql(t, sql`SELECT s.id ${matching} ${page}`)),
  ]);
  const fileRows = rowsOf<SubmissionFileRow>(files);
  const submissions = await Promise.all(
    rowsOf<WorksheetDbRow>(rows).map(async (row) => ({
      ...(await presentSubmission(ctx, t, row, fileRows)),
      student_email: row.student_email,
      student_first_name: row.student_first_name,
      student_last_name: row.student_last_name,
      attempt_count: row.attempt_count,
      late: row.late === 1,
    })),
  );
  return { submissions, total: rowsOf<{ total: number }>(total)[0]?.total ?? 0 };
}

async function ownLatest(ctx: SchoolCtx, assignmentId: string): Promise<{ submissions: SubmissionView[]; total: number }> {
  const live = sql`EXISTS (SELECT 1 FROM assignments oa WHERE oa.id = s.assignment_id AND oa.tenant_id = ${ctx.tenantId} AND oa.deleted_at IS NULL)`;
  const [rows, files] = await runBatch(ctx, submissionReadsWhere(ctx, sql`${latestAttemptSql(ctx, assignmentId, ctx.actor.userId)} AND ${live}`));
  const submissions = await presentAll(ctx, rows, files);
  return { submissions, total: submissions.length };
}
