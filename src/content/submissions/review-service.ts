import { sql, type SQL } from "drizzle-orm";
import { formatHundredthsOrNull, hundredthsOf, parseHundredths } from "../../core/db/decimal";
import { batchable, changedRows, runBatch, type BatchItem } from "../../core/db/batch";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { dispatchQueued } from "../../platform/notifications/enqueue";
import { assignmentsErrors } from "../assignments/errors";
import { contentStatements, prefetchContentPushes, type SubmissionAccepted, type SubmissionRejected, type SubmissionReopened } from "../common/events";
import { changedAt, reopenedEvent, reviewedEvent, SUBMISSION_EVENTS } from "./events";
import { readSubmissionState, submissionStateRead, type SubmissionState } from "./facts";
import { managedStudentSql } from "./present";
import { presentRead, submissionReadsWhere } from "./read";
import type { SubmissionView } from "./present";
import type { ReviewSubmissionBody } from "./schemas";
import { submissionFacts } from "./submission-service";
import { inSchool } from "../../core/db/conditions";
import { submissionAudit } from "./audit";

/**
 * The curators' side (docs/decisions/assignments.md, "Submissions"): review and reopen, for callers with
 * `can_manage_students`; a restricted curator reaches only their own students' submissions
 * (anyone else's is 404 `submission_not_found`). Each write is one conditional UPDATE on the
 * status it starts from, so of concurrent reviews one verdict lands and one push goes; the others
 * answer 409. Each announces its domain event (docs/domain-events.md): `submission.accepted` (whose
 * contributor `rating.scored-awards` awards the student's points in the batch, source `assignment`,
 * key `submission:<id>:<graded_at>`), `submission.rejected`, `submission.reopened`.
 */

function managedSql(ctx: SchoolCtx, id: string): SQL {
  return sql`s.id = ${id} AND ${managedStudentSql(ctx, sql`s.student_id`)}`;
}

async function readState(ctx: SchoolCtx, id: string, extra: readonly BatchItem[]): Promise<{ state: SubmissionState; results: unknown[] }> {
  const results = await runBatch(ctx, [submissionStateRead(ctx, id, managedStudentSql(ctx, sql`s.student_id`)), ...extra]);
  const state = readSubmissionState(results[0]);
  if (!state) throw new ApiError(assignmentsErrors.SUBMISSION_NOT_FOUND);
  return { state, results };
}

/** The score as hundredths: a decimal from 0 to the assignment's maximum, required to accept (400 `invalid_score`). */
function reviewScore(body: ReviewSubmissionBody, maxScoreHundredths: number): number | null {
  if (body.score === undefined || body.score === null) {
    if (body.status === "accepted") throw new ApiError(assignmentsErrors.INVALID_SCORE, { message: "Accepting a submission needs a score." });
    return null;
  }
  const score = parseHundredths(body.score);
  if (score === null || score < 0 || score > maxScoreHundredths) {
    throw new ApiError(assignmentsErrors.INVALID_SCORE, {
      message: `score must be a decimal from 0 to ${(maxScoreHundredths / 100).toFixed(2)} with at most two decimals.`,
    });
  }
  return score;
}

/** The review's event; an acceptance carries the score its points are computed from. */
function reviewEvent(ctx: SchoolCtx, state: SubmissionState, status: "accepted" | "rejected", score: number | null, now: number): SubmissionAccepted | SubmissionRejected {
  const facts = { submissionId: state.id, assignmentId: state.assignmentId, studentId: state.studentId, now };
  const when = changedAt(ctx, state.id, status, "graded_at", now);
  if (status === "rejected" || score === null) return { type: "submission.rejected", ...facts, when };
  return {
    type: "submission.accepted",
    ...facts,
    when,
    score: {
      objectId: state.assignmentId,
      studentId: state.studentId,
      key: `submission:${state.id}:${now}`,
      // score / max_score in hundredths of a percent, half-up (max_score is > 0, the score at most it).
      pct: sql`${hundredthsOf(score * 100, state.maxScoreHundredths)}`,
      // Assignments have no passing score: the rule's threshold_value decides "passed".
      passed: sql`NULL`,
      passingScore: sql`NULL`,
      final: sql`EXISTS (SELECT 1 FROM submissions rs WHERE rs.id = ${state.id} AND ${inSchool("rs", ctx.tenantId)} AND rs.status = 'accepted' AND rs.graded_at = ${now})`,
    },
  };
}

/** POST /submissions/:id/review: submitted → accepted (#48, and the points) or rejected (#49); sets the grader and the time. */
export async function reviewSubmission(ctx: SchoolCtx, input: { id: string; body: ReviewSubmissionBody }): Promise<SubmissionView> {
  const { id, body } = input;
  const prefetch = prefetchContentPushes(ctx, body.status === "accepted" ? "submission.accepted" : "submission.rejected", SUBMISSION_EVENTS.reviewed);
  const { state, results: reads } = await readState(ctx, id, prefetch.statements as BatchItem[]);
  prefetch.remember(reads.slice(1));
  const score = reviewScore(body, state.maxScoreHundredths);
  if (state.status !== "submitted") throw new ApiError(assignmentsErrors.SUBMISSION_NOT_SUBMITTED);
  // Left out keeps what the student already reads (feedback survives a reopen); null or "" clears it.
  const feedback = body.feedback === undefined ? state.feedback : body.feedback || null;
  const now = ctx.clock.now();
  const statements: BatchItem[] = [
    submissionAudit(ctx, id, {
      action: "submission.reviewed",
      summary: body.status === "accepted" ? "Submission accepted" : "Submission rejected",
      from: sql`status = 'submitted'`,
      after: { status: body.status, score: formatHundredthsOrNull(score), feedback },
    }),
    batchable(
      ctx,
      sql`UPDATE submissions SET status = ${body.status}, score_hundredths = ${score}, feedback = ${feedback}, graded_by_id = ${ctx.actor.userId},
          graded_at = ${now}, updated_at = ${now}
        WHERE id = ${id} AND ${inSchool(ctx.tenantId)} AND status = 'submitted'`,
    ),
    await reviewedEvent(ctx, submissionFacts(state), { status: body.status, scoreHundredths: score, feedback }, now),
    ...(await contentStatements(ctx, reviewEvent(ctx, state, body.status, score, now))),
  ];
  const readAt = statements.length;
  statements.push(...submissionReadsWhere(ctx, managedSql(ctx, id)));
  const results = await runBatch(ctx, statements);
  if (changedRows(results[1]) === 0) throw new ApiError(assignmentsErrors.SUBMISSION_NOT_SUBMITTED);
  await dispatchQueued(ctx);
  return presentRead(ctx, results[readAt], results[readAt + 1]);
}

/**
 * POST /submissions/:id/reopen: submitted or rejected → draft of the same attempt, so the student
 * edits and submits it again. The verdict, score and hand-in time are cleared, the feedback kept;
 * `reopened_at` frees the attempt from the closing date. Accepted: 409
 * `submission_already_accepted`; a draft, or an attempt a later one replaced: 409
 * `submission_not_submitted`. Completions already earned stay. #50 to the student.
 */
export async function reopenSubmission(ctx: SchoolCtx, input: { id: string }): Promise<SubmissionView> {
  const { id } = input;
  const prefetch = prefetchContentPushes(ctx, "submission.reopened", SUBMISSION_EVENTS.reopened);
  const { state, results: reads } = await readState(ctx, id, prefetch.statements as BatchItem[]);
  prefetch.remember(reads.slice(1));
  refuseReopen(state.status, state.latest);
  const now = ctx.clock.now();
  const reopenable = sql`status IN ('submitted', 'rejected')
          AND NOT EXISTS (SELECT 1 FROM submissions n WHERE ${inSchool("n", ctx.tenantId)} AND n.assignment_id = ${state.assignmentId}
            AND n.student_id = ${state.studentId} AND n.attempt > ${state.attempt})`;
  const statements: BatchItem[] = [
    submissionAudit(ctx, id, { action: "submission.reopened", summary: "Submission sent back to draft", from: reopenable, after: { status: "draft", score: null } }),
    batchable(
      ctx,
      sql`UPDATE submissions SET status = 'draft', score_hundredths = NULL, graded_by_id = NULL, graded_at = NULL, submitted_at = NULL,
          reopened_at = ${now}, updated_at = ${now}
        WHERE id = ${id} AND ${inSchool(ctx.tenantId)} AND ${reopenable}`,
    ),
    await reopenedEvent(ctx, submissionFacts(state), now),
    ...(await contentStatements(ctx, reopened(ctx, state, now))),
  ];
  const readAt = statements.length;
  statements.push(
    ...submissionReadsWhere(ctx, managedSql(ctx, id)),
    submissionStateRead(ctx, id, sql`1`),
  );
  const results = await runBatch(ctx, statements);
  if (changedRows(results[1]) === 0) {
    const current = readSubmissionState(results[readAt + 2]);
    if (!current) throw new ApiError(assignmentsErrors.SUBMISSION_NOT_FOUND);
    refuseReopen(current.status, current.latest);
    throw new ApiError(assignmentsErrors.SUBMISSION_NOT_SUBMITTED);
  }
  await dispatchQueued(ctx);
  return presentRead(ctx, results[readAt], results[readAt + 1]);
}

function reopened(ctx: SchoolCtx, state: SubmissionState, now: number): SubmissionReopened {
  return {
    type: "submission.reopened",
    submissionId: state.id,
    assignmentId: state.assignmentId,
    studentId: state.studentId,
    now,
    when: changedAt(ctx, state.id, "draft", "reopened_at", now),
  };
}

function refuseReopen(status: SubmissionState["status"], latest: boolean): void {
  if (status === "accepted") throw new ApiError(assignmentsErrors.SUBMISSION_ALREADY_ACCEPTED);
  if (status === "draft") throw new ApiError(assignmentsErrors.SUBMISSION_NOT_SUBMITTED, { message: "The submission is a draft already." });
  if (!latest) throw new ApiError(assignmentsErrors.SUBMISSION_NOT_SUBMITTED, { message: "A later attempt replaced this submission; reopen that one." });
}
