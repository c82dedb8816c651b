import { sql, type SQL } from "drizzle-orm";
import { batchable, type BatchItem } from "../../core/db/batch";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError, coreErrors } from "../../core/http/errors";
import { checkFileNames, type StagedFile } from "../../platform/media/direct-upload";
import { formBoundary } from "../../platform/media/multipart";
import { SUBMISSION_LIMITS } from "./schemas";
import { inSchool } from "../../core/db/conditions";

/**
 * A submission's files: the student's own confirmed assets, named by id (`attachment_ids`) or sent
 * as file parts of the create request. Positions follow the order given (duplicates collapsed).
 */

const FILE_FIELD = "attachments";

/** The request is a multipart form (its files are read by `readSubmissionFiles`). */
export function isMultipart(request: Request): boolean {
  return formBoundary(request.headers.get("content-type")) !== null;
}

function invalidForm(message: string): ApiError {
  return new ApiError(coreErrors.INVALID_REQUEST_BODY, { message });
}

/**
 * The file parts of a multipart create: 1 to 5 parts named `attachments`, nothing else. The whole
 * form is read before anything is stored, so a sixth file (or any other part) refuses the request
 * with nothing written.
 */
export async function readSubmissionFiles(request: Request): Promise<File[]> {
  let form: FormData;
  try {
    form = await request.formData();
  } catch {
    throw invalidForm("The body is not a valid multipart form.");
  }
  const files: File[] = [];
  for (const [name, value] of form.entries()) {
    if (name !== FILE_FIELD) throw invalidForm(`The form has a part named ${name}; only file parts named ${FILE_FIELD} are accepted.`);
    if (typeof value === "string") throw invalidForm(`Each ${FILE_FIELD} part must be a file.`);
    files.push(value);
  }
  if (files.length === 0) throw invalidForm(`The form has no file part named ${FILE_FIELD}.`);
  if (files.length > SUBMISSION_LIMITS.filesPerRequest) {
    throw invalidForm(`At most ${SUBMISSION_LIMITS.filesPerRequest} files per request; the form has ${files.length}.`);
  }
  checkFileNames(files, FILE_FIELD, coreErrors.INVALID_REQUEST_BODY);
  return files;
}

/** Ids as sent, duplicates collapsed, first position kept. */
export function distinctIds(ids: readonly string[]): string[] {
  return [...new Set(ids)];
}

/** SQL true when every id names a confirmed live asset of the school that the caller uploaded. */
export function ownAssetsSql(ctx: SchoolCtx, ids: readonly string[]): SQL {
  if (ids.length === 0) return sql`1`;
  return sql`(SELECT count(*) FROM media_assets oa WHERE ${inSchool("oa", ctx.tenantId)} AND oa.id IN (SELECT value FROM json_each(${JSON.stringify(ids)}))
    AND oa.status = 'confirmed' AND oa.deleted_at IS NULL AND oa.uploaded_by_user_id = ${ctx.actor.userId}) = ${ids.length}`;
}

/** Attaches the assets named by id (the caller's own confirmed ones) to the submission, when `when` holds. */
export function attachIdsStatement(ctx: SchoolCtx, submissionId: string, ids: readonly string[], when: SQL, now: number): BatchItem {
  return batchable(
    ctx,
    sql`INSERT INTO submission_attachments (tenant_id, submission_id, student_id, media_asset_id, position, created_at)
      SELECT ${ctx.tenantId}, ${submissionId}, ${ctx.actor.userId}, oa.id, CAST(j.key AS INTEGER), ${now}
      FROM json_each(${JSON.stringify(ids)}) j
        JOIN media_assets oa ON oa.id = j.value AND ${inSchool("oa", ctx.tenantId)} AND oa.status = 'confirmed' AND oa.deleted_at IS NULL
          AND oa.uploaded_by_user_id = ${ctx.actor.userId}
      WHERE ${when}`,
  );
}

/** Attaches the files stored in the same batch (their asset rows come first) to the submission. */
export function attachStagedStatement(ctx: SchoolCtx, submissionId: string, staged: readonly StagedFile[], when: SQL, now: number): BatchItem {
  return attachIdsStatement(
    ctx,
    submissionId,
    staged.map((file) => file.id),
    when,
    now,
  );
}
