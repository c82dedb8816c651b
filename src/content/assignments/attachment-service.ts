import { sql } from "drizzle-orm";
import { batchable, changedRows, rowsOf, runBatch } from "../../core/db/batch";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { gates, passesGate } from "../../core/http/gates";
import { uuidv7 } from "../../core/lib/ids";
import { assignmentAttachments } from "../../db/schema";
import { mediaUrl } from "../../platform/media/links";
import { isStaff } from "../common/access";
import { appendPosition } from "../common/ordering";
import { assignmentInStudentCourseSql, assignmentTargetsStudentSql } from "./access";
import { assignmentsErrors } from "./errors";
import { presentAttachment, type AttachmentRow, type AttachmentView } from "./present";
import { inSchool, liveInSchool } from "../../core/db/conditions";

const liveAssignmentSql = (tenantId: string, id: string) =>
  sql`EXISTS (SELECT 1 FROM assignments a WHERE a.id = ${id} AND ${liveInSchool("a", tenantId)})`;

/**
 * POST /t/assignments/:id/attachments: one batch. The INSERT holds only for a live assignment and
 * a confirmed live asset of the school, and the unique (assignment, asset) index makes a second
 * attachment of the same file, concurrent or not, insert nothing; the read-back in the same batch
 * tells which rule refused: 404 (no assignment), then 400 (no such file), then 409 (already
 * attached). A position left out goes after the last attachment, computed by the INSERT itself.
 */
export async function addAttachment(ctx: SchoolCtx, input: { id: string; body: { media_asset_id: string; position?: number } }): Promise<AttachmentView> {
  const { id, body } = input;
  const t = ctx.tenantId;
  const now = ctx.clock.now();
  const attachmentId = uuidv7(now);
  const position = body.position ?? appendPosition(t, { table: assignmentAttachments, parent: { column: assignmentAttachments.assignmentId, id } });
  const assetOk = sql`EXISTS (SELECT 1 FROM media_assets m WHERE m.id = ${body.media_asset_id} AND ${inSchool("m", t)} AND m.status = 'confirmed' AND m.deleted_at IS NULL)`;
  const [inserted, checks, created] = await runBatch(ctx, [
    batchable(
      ctx,
      sql`INSERT INTO assignment_attachments (id, tenant_id, assignment_id, media_asset_id, position, created_at)
        SELECT ${attachmentId}, ${t}, ${id}, ${body.media_asset_id}, ${position}, ${now}
        WHERE ${liveAssignmentSql(t, id)} AND ${assetOk}
        ON CONFLICT (tenant_id, assignment_id, media_asset_id) DO NOTHING`,
    ),
    batchable(ctx, sql`SELECT ${liveAssignmentSql(t, id)} AS assignment_ok, ${assetOk} AS asset_ok`),
    batchable(
      ctx,
      sql`SELECT aa.id, aa.assignment_id, aa.media_asset_id, aa.position, m.filename, m.size_bytes AS size, m.kind, m.mime
        FROM assignment_attachments aa JOIN media_assets m ON m.id = aa.media_asset_id AND ${inSchool("m", t)}
        WHERE aa.id = ${attachmentId} AND ${inSchool("aa", t)}`,
    ),
  ]);
  const row = rowsOf<AttachmentRow>(created)[0];
  if (changedRows(inserted) === 1 && row) return presentAttachment(row);
  const check = rowsOf<{ assignment_ok: number; asset_ok: number }>(checks)[0];
  if (!check?.assignment_ok) throw new ApiError(assignmentsErrors.ASSIGNMENT_NOT_FOUND);
  if (!check.asset_ok) {
    const message = "must be a confirmed media asset of this school";
    throw new ApiError(assignmentsErrors.ATTACHMENT_NOT_IN_TENANT, { details: [{ path: "media_asset_id", message }] });
  }
  throw new ApiError(assignmentsErrors.ATTACHMENT_DUPLICATE);
}

/**
 * DELETE /t/assignments/:id/attachments/:attachmentId: the row goes (attachments are not kept),
 * in one batch with the check that tells 404 assignment from 404 attachment. The file itself
 * stays in the school's media.
 */
export async function removeAttachment(ctx: SchoolCtx, input: { id: string; attachmentId: string }): Promise<void> {
  const { id, attachmentId } = input;
  const t = ctx.tenantId;
  const [deleted, checks] = await runBatch(ctx, [
    batchable(ctx, sql`DELETE FROM assignment_attachments WHERE id = ${attachmentId} AND ${inSchool(t)} AND assignment_id = ${id} AND ${liveAssignmentSql(t, id)}`),
    batchable(ctx, sql`SELECT ${liveAssignmentSql(t, id)} AS assignment_ok`),
  ]);
  if (changedRows(deleted) === 1) return;
  if (!rowsOf<{ assignment_ok: number }>(checks)[0]?.assignment_ok) throw new ApiError(assignmentsErrors.ASSIGNMENT_NOT_FOUND);
  throw new ApiError(assignmentsErrors.ATTACHMENT_NOT_FOUND);
}

const manageCourses = gates.permission("can_manage_courses");

/**
 * GET /t/assignments/:id/attachments/:attachmentId/download: a fresh signed link to the file. One
 * statement reads the assignment, the attachment and, for a student, whether it targets them and
 * whether a course they study holds it. In order: an assignment the caller may not read is 404
 * (as the detail); a caller who is neither a course manager nor a student reaching it through a
 * course is 403 `not_authorized` (a standalone assignment is for managers only); then the
 * attachment must belong to it (404).
 */
export async function downloadAttachment(ctx: SchoolCtx, input: { id: string; attachmentId: string }): Promise<string> {
  const { id, attachmentId } = input;
  const t = ctx.tenantId;
  const student = !isStaff(ctx.actor);
  const me = ctx.actor.userId;
  const [row] = await ctx.db.all<{ targeted: number; in_course: number; media_asset_id: string | null }>(
    sql`SELECT ${student ? assignmentTargetsStudentSql(t, sql`a.id`, me) : sql`1`} AS targeted,
        ${student ? assignmentInStudentCourseSql(t, sql`a.id`, me) : sql`0`} AS in_course,
        (SELECT aa.media_asset_id FROM assignment_attachments aa WHERE aa.id = ${attachmentId} AND ${inSchool("aa", t)} AND aa.assignment_id = a.id) AS media_asset_id
      FROM assignments a WHERE a.id = ${id} AND ${liveInSchool("a", t)}`,
  );
  if (!row || !row.targeted) throw new ApiError(assignmentsErrors.ASSIGNMENT_NOT_FOUND);
  const allowed = student ? row.in_course === 1 : passesGate(manageCourses, ctx.actor);
  if (!allowed) throw new ApiError(assignmentsErrors.NOT_AUTHORIZED);
  if (!row.media_asset_id) throw new ApiError(assignmentsErrors.ATTACHMENT_NOT_FOUND);
  return (await mediaUrl(ctx, t, row.media_asset_id))!;
}
