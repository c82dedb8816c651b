import { sql, type SQL } from "drizzle-orm";
import { formatHundredths } from "../../core/db/decimal";
import type { BatchItem } from "../../core/db/batch";
import type { SchoolCtx } from "../../core/http/context";
import { eventDefinition } from "../../platform/notifications/catalog";
import { enqueue } from "../../platform/notifications/enqueue";
import { inSchool } from "../../core/db/conditions";

/**
 * The submission pushes (docs/decisions/assignments.md, "Submissions"), one statement each for the write batch
 * that makes the change, sent only when that change took effect (`when`). Keys name the
 * submission and the instant of the change, so a reopened attempt handed in or reviewed again
 * tells again, while a retried batch writes nothing twice:
 * - #47 `assignment.submitted` to the student's curators (or the admins): student_name,
 *   assignment_title, attempt;
 * - #48 `assignment.accepted` / #49 `assignment.rejected` to the student: assignment_title,
 *   score, max_score, feedback / assignment_title, feedback, attempts_left (max_attempts − attempt,
 *   "∞" when unlimited);
 * - #50 `assignment.reopened` to the student: assignment_title.
 */

export const SUBMISSION_EVENTS = {
  submitted: [eventDefinition("assignment.submitted")!],
  reviewed: [eventDefinition("assignment.accepted")!, eventDefinition("assignment.rejected")!],
  reopened: [eventDefinition("assignment.reopened")!],
};

export interface SubmissionFacts {
  id: string;
  studentId: string;
  attempt: number;
  assignmentTitle: string;
  maxScoreHundredths: number;
  maxAttempts: number | null;
}

/** SQL true when the submission is in `status` and `column` holds the batch's instant. */
export function changedAt(ctx: SchoolCtx, id: string, status: string, column: "submitted_at" | "graded_at" | "reopened_at", now: number): SQL {
  return sql`EXISTS (SELECT 1 FROM submissions cs WHERE cs.id = ${id} AND ${inSchool("cs", ctx.tenantId)} AND cs.status = ${status}
    AND ${sql.raw(`cs.${column}`)} = ${now})`;
}

export function submittedEvent(ctx: SchoolCtx, facts: SubmissionFacts, now: number): Promise<BatchItem> {
  const studentName = sql`(SELECT su.first_name || ' ' || su.last_name FROM users su WHERE su.id = ${facts.studentId} AND ${inSchool("su", ctx.tenantId)})`;
  return enqueue(
    ctx,
    "assignment.submitted",
    { token: "student_curators_or_admins", studentId: facts.studentId },
    { student_name: studentName, assignment_title: facts.assignmentTitle, attempt: facts.attempt },
    { id: facts.id },
    `assignment.submitted:${facts.id}:${now}`,
    { when: changedAt(ctx, facts.id, "submitted", "submitted_at", now) },
  );
}

export function reviewedEvent(
  ctx: SchoolCtx,
  facts: SubmissionFacts,
  verdict: { status: "accepted" | "rejected"; scoreHundredths: number | null; feedback: string | null },
  now: number,
): Promise<BatchItem> {
  const student = { token: "student" as const, studentId: facts.studentId };
  const when = changedAt(ctx, facts.id, verdict.status, "graded_at", now);
  const feedback = verdict.feedback ?? "";
  if (verdict.status === "accepted") {
    return enqueue(
      ctx,
      "assignment.accepted",
      student,
      { assignment_title: facts.assignmentTitle, score: formatHundredths(verdict.scoreHundredths ?? 0), max_score: formatHundredths(facts.maxScoreHundredths), feedback },
      { id: facts.id },
      `assignment.accepted:${facts.id}:${now}`,
      { when },
    );
  }
  const attemptsLeft = facts.maxAttempts === null ? "∞" : String(Math.max(0, facts.maxAttempts - facts.attempt));
  return enqueue(
    ctx,
    "assignment.rejected",
    student,
    { assignment_title: facts.assignmentTitle, feedback, attempts_left: attemptsLeft },
    { id: facts.id },
    `assignment.rejected:${facts.id}:${now}`,
    { when },
  );
}

export function reopenedEvent(ctx: SchoolCtx, facts: SubmissionFacts, now: number): Promise<BatchItem> {
  return enqueue(
    ctx,
    "assignment.reopened",
    { token: "student", studentId: facts.studentId },
    { assignment_title: facts.assignmentTitle },
    { id: facts.id },
    `assignment.reopened:${facts.id}:${now}`,
    { when: changedAt(ctx, facts.id, "draft", "reopened_at", now) },
  );
}
