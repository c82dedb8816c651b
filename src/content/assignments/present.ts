import { formatHundredths, formatHundredthsOrNull } from "../../core/db/decimal";
import type { SchoolCtx } from "../../core/http/context";
import { iso } from "../../core/lib/clock";
import type { SubmissionStatus } from "../../db/schema";
import { isStaff } from "../common/access";

/** An assignment's columns as the reads select them (alias `a`). */
export interface AssignmentRow {
  id: string;
  title: string;
  instructions: string;
  max_score_hundredths: number;
  max_attempts: number | null;
  screenshot_protection_enabled: number;
  created_at: number;
  updated_at: number;
}

/** What a student's read adds: their latest attempt's status and score. */
export interface StudentAssignmentRow extends AssignmentRow {
  my_submission_status: SubmissionStatus | null;
  my_submission_score: number | null;
}

/** An attachment joined with its media asset. */
export interface AttachmentRow {
  id: string;
  assignment_id: string;
  media_asset_id: string;
  position: number;
  filename: string;
  size: number;
  kind: string;
  mime: string;
}

export function presentAttachment(row: AttachmentRow) {
  return { id: row.id, media_asset_id: row.media_asset_id, position: row.position, filename: row.filename, size: row.size, kind: row.kind, mime: row.mime };
}

export type AttachmentView = ReturnType<typeof presentAttachment>;

/**
 * The assignment in the caller's view: students get `my_submission_status` and
 * `my_submission_score` (null without an attempt); other roles never see those keys.
 */
export function presentAssignment(ctx: Pick<SchoolCtx, "actor">, row: AssignmentRow | StudentAssignmentRow, attachments: readonly AttachmentRow[]) {
  const assignment = {
    id: row.id,
    title: row.title,
    instructions: row.instructions,
    max_score: formatHundredths(row.max_score_hundredths),
    max_attempts: row.max_attempts,
    screenshot_protection_enabled: row.screenshot_protection_enabled === 1,
    attachments: attachments.map(presentAttachment),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
  if (isStaff(ctx.actor) || !("my_submission_status" in row)) return assignment;
  return { ...assignment, my_submission_status: row.my_submission_status, my_submission_score: formatHundredthsOrNull(row.my_submission_score) };
}

export type AssignmentView = ReturnType<typeof presentAssignment>;
