import { sql, type SQL } from "drizzle-orm";
import { formatHundredthsOrNull } from "../../core/db/decimal";
import type { ServiceContext, SchoolCtx } from "../../core/http/context";
import { iso, isoOrNull } from "../../core/lib/clock";
import type { SubmissionStatus } from "../../db/schema";
import { restrictedScope, scopeCondition } from "../../platform/schools/curator-scope";
import { mediaUrl } from "../../platform/media/links";
import { inSchool, liveInSchool } from "../../core/db/conditions";

/**
 * The submission as every endpoint answers it, and who may see one (docs/decisions/assignments.md,
 * "Submissions"): its owner, or a caller with `can_manage_students` within a
 * restricted curator's scope. Reads are raw statements over the alias `s`, so writes put them in
 * their own batch.
 */

type Caller = Pick<SchoolCtx, "tenantId" | "actor">;

/** The caller reviews submissions: admin, the superadmin on the school, a curator with `can_manage_students`. */
export function managesStudents(ctx: Pick<SchoolCtx, "actor">): boolean {
  const { role, permissions } = ctx.actor;
  return role === "admin" || role === "superadmin" || (role === "curator" && permissions?.can_manage_students === true);
}

/** The student (id as SQL) is one a manager of students may see: every student, or a restricted curator's own. */
export function managedStudentSql(ctx: Caller, studentId: SQL): SQL {
  return scopeCondition(studentId, restrictedScope(ctx)) ?? sql`1`;
}

/** The submission (alias `s`) is one the caller may read: their own, or a student's they manage. */
export function submissionVisibleSql(ctx: Caller): SQL {
  const live = sql`${inSchool("s", ctx.tenantId)}`;
  const own = sql`s.student_id = ${ctx.actor.userId}`;
  return managesStudents(ctx) ? sql`${live} AND (${own} OR ${managedStudentSql(ctx, sql`s.student_id`)})` : sql`${live} AND ${own}`;
}

export const SUBMISSION_COLUMNS = sql`s.id, s.assignment_id, s.student_id, s.attempt, s.status, s.text, s.score_hundredths, s.feedback, s.graded_by_id,
  s.graded_at, s.submitted_at, s.reopened_at, s.created_at, s.updated_at`;

export interface SubmissionRow {
  id: string;
  assignment_id: string;
  student_id: string;
  attempt: number;
  status: SubmissionStatus;
  text: string | null;
  score_hundredths: number | null;
  feedback: string | null;
  graded_by_id: string | null;
  graded_at: number | null;
  submitted_at: number | null;
  reopened_at: number | null;
  created_at: number;
  updated_at: number;
}

/** A file of a submission joined with its media asset. */
export interface SubmissionFileRow {
  submission_id: string;
  media_asset_id: string;
  position: number;
  filename: string;
  size: number;
  kind: string;
  mime: string;
}

/** The files of the submissions `s` selects (a SELECT of ids as SQL), with their assets, in position order. */
export function submissionFilesSql(tenantId: string, submissionIds: SQL): SQL {
  return sql`SELECT sa.submission_id, sa.media_asset_id, sa.position, m.filename, m.size_bytes AS size, m.kind, m.mime
    FROM submission_attachments sa JOIN media_assets m ON m.id = sa.media_asset_id AND ${liveInSchool("m", tenantId)}
    WHERE ${inSchool("sa", tenantId)} AND sa.submission_id IN (${submissionIds})
    ORDER BY sa.submission_id, sa.position, sa.media_asset_id`;
}

export async function presentSubmission(ctx: Pick<ServiceContext, "clock" | "config" | "publicOrigin">, tenantId: string, row: SubmissionRow, files: readonly SubmissionFileRow[]) {
  const own = files.filter((file) => file.submission_id === row.id);
  return {
    id: row.id,
    assignment_id: row.assignment_id,
    student_id: row.student_id,
    attempt: row.attempt,
    status: row.status,
    text: row.text,
    score: formatHundredthsOrNull(row.score_hundredths),
    feedback: row.feedback,
    graded_by_id: row.graded_by_id,
    graded_at: isoOrNull(row.graded_at),
    submitted_at: isoOrNull(row.submitted_at),
    attachments: await Promise.all(
      own.map(async (file) => ({
        media_asset_id: file.media_asset_id,
        position: file.position,
        filename: file.filename,
        size: file.size,
        kind: file.kind,
        mime: file.mime,
        url: await mediaUrl(ctx, tenantId, file.media_asset_id),
      })),
    ),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

export type SubmissionView = Awaited<ReturnType<typeof presentSubmission>>;
