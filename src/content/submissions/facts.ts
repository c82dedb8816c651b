import { sql, type SQL } from "drizzle-orm";
import { batchable, rowsOf, type BatchItem } from "../../core/db/batch";
import type { SchoolCtx } from "../../core/http/context";
import type { SubmissionStatus } from "../../db/schema";
import type { SubmissionFacts } from "./events";
import { inSchool, liveInSchool } from "../../core/db/conditions";

/**
 * What a state change of one submission needs to know before it writes: the submission's state
 * and its assignment's title, maximum and attempt limit. `where` is a condition on `s` (who may
 * change it); the assignment is live.
 */

export interface SubmissionState extends SubmissionFacts {
  assignmentId: string;
  status: SubmissionStatus;
  feedback: string | null;
  reopenedAt: number | null;
  /** No later attempt of the student exists. */
  latest: boolean;
}

interface StateRow {
  id: string;
  assignment_id: string;
  student_id: string;
  attempt: number;
  status: SubmissionStatus;
  feedback: string | null;
  reopened_at: number | null;
  title: string;
  max_score_hundredths: number;
  max_attempts: number | null;
  latest: number;
}

export function submissionStateRead(ctx: SchoolCtx, id: string, where: SQL): BatchItem {
  const t = ctx.tenantId;
  return batchable(
    ctx,
    sql`SELECT s.id, s.assignment_id, s.student_id, s.attempt, s.status, s.feedback, s.reopened_at, a.title, a.max_score_hundredths, a.max_attempts,
        NOT EXISTS (SELECT 1 FROM submissions n WHERE ${inSchool("n", t)} AND n.assignment_id = s.assignment_id AND n.student_id = s.student_id
          AND n.attempt > s.attempt) AS latest
      FROM submissions s JOIN assignments a ON a.id = s.assignment_id AND ${liveInSchool("a", t)}
      WHERE ${inSchool("s", t)} AND s.id = ${id} AND ${where}`,
  );
}

export function readSubmissionState(result: unknown): SubmissionState | null {
  const [row] = rowsOf<StateRow>(result);
  if (!row) return null;
  return {
    id: row.id,
    assignmentId: row.assignment_id,
    studentId: row.student_id,
    attempt: row.attempt,
    status: row.status,
    feedback: row.feedback,
    reopenedAt: row.reopened_at,
    assignmentTitle: row.title,
    maxScoreHundredths: row.max_score_hundredths,
    maxAttempts: row.max_attempts,
    latest: row.latest === 1,
  };
}
