import { sql, type SQL } from "drizzle-orm";
import { batchable, changedRows, rowsOf, runBatch, type BatchItem } from "../../core/db/batch";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { dispatchQueued } from "../../platform/notifications/enqueue";
import { assignmentsErrors } from "../assignments/errors";
import { contentStatements, prepareContentEvent, type ReferenceCompletion, type SubmissionSubmitted } from "../common/events";
import { coursesErrors } from "../courses/errors";
import { scheduleErrors } from "../schedule/errors";
import { scheduleRefusesEverywhere, type LessonWindows } from "../schedule/availability";
import { assignmentLessonsSql } from "./create-service";
import { changedAt, SUBMISSION_EVENTS, submittedEvent } from "./events";
import { readSubmissionState, submissionStateRead, type SubmissionState } from "./facts";
import { attachIdsStatement, distinctIds, ownAssetsSql } from "./files";
import { presentRead, submissionReadsWhere } from "./read";
import type { SubmissionView } from "./present";
import type { UpdateSubmissionBody } from "./schemas";
import { inSchool } from "../../core/db/conditions";

/**
 * The student's side of a draft (docs/decisions/assignments.md, "Submissions"): PATCH changes its text and files,
 * submit hands it in. Only the owner reaches either (anyone else 404 `submission_not_found`), only
 * while it is a draft (409 `submission_not_draft`); each write is conditional on `status = 'draft'`,
 * so a change racing a submit, or two submits, leave one outcome.
 */

function ownSql(ctx: SchoolCtx, id: string): SQL {
  return sql`s.id = ${id} AND s.student_id = ${ctx.actor.userId}`;
}

function draftSql(ctx: SchoolCtx, id: string): SQL {
  return sql`EXISTS (SELECT 1 FROM submissions ds WHERE ds.id = ${id} AND ${inSchool("ds", ctx.tenantId)} AND ds.student_id = ${ctx.actor.userId}
    AND ds.status = 'draft')`;
}

/** Why a conditional write of the owner's draft changed nothing, from the read-back after it. */
function refusal(rowResult: unknown): ApiError {
  const [row] = rowsOf<{ status: string }>(rowResult);
  return new ApiError(row ? assignmentsErrors.SUBMISSION_NOT_DRAFT : assignmentsErrors.SUBMISSION_NOT_FOUND);
}

/** PATCH /submissions/:id: `text` (null clears) and `attachment_ids` (replaces the files); fields left out stay. */
export async function updateSubmission(ctx: SchoolCtx, input: { id: string; body: UpdateSubmissionBody }): Promise<SubmissionView> {
  const { id, body } = input;
  const reads = submissionReadsWhere(ctx, ownSql(ctx, id));
  if (body.text === undefined && body.attachment_ids === undefined) {
    const [row, files] = await runBatch(ctx, reads);
    const view = await presentRead(ctx, row, files);
    if (view.status !== "draft") throw new ApiError(assignmentsErrors.SUBMISSION_NOT_DRAFT);
    return view;
  }
  const now = ctx.clock.now();
  const ids = body.attachment_ids === undefined ? null : distinctIds(body.attachment_ids);
  const assetsOk = ids ? ownAssetsSql(ctx, ids) : sql`1`;
  // Every statement checks the same state; D1 runs them one after another, so none sees another request between them.
  const when = sql`${draftSql(ctx, id)} AND ${assetsOk}`;
  const sets = [sql`updated_at = ${now}`];
  if (body.text !== undefined) sets.push(sql`text = ${body.text}`);
  const statements: BatchItem[] = [
    batchable(ctx, sql`UPDATE submissions SET ${sql.join(sets, sql`, `)} WHERE id = ${id} AND ${inSchool(ctx.tenantId)} AND ${when}`),
  ];
  if (ids) {
    statements.push(
      batchable(ctx, sql`DELETE FROM submission_attachments WHERE ${inSchool(ctx.tenantId)} AND submission_id = ${id} AND ${when}`),
      attachIdsStatement(ctx, id, ids, when, now),
    );
  }
  const readAt = statements.length;
  statements.push(...reads, batchable(ctx, sql`SELECT ${assetsOk} AS assets_ok`));
  const results = await runBatch(ctx, statements);
  if (changedRows(results[0]) === 0) {
    const [row] = rowsOf<{ status: string }>(results[readAt]);
    if (row?.status === "draft" && rowsOf<{ assets_ok: number }>(results[readAt + 2])[0]?.assets_ok !== 1) {
      throw new ApiError(assignmentsErrors.ATTACHMENT_NOT_IN_TENANT);
    }
    throw refusal(results[readAt]);
  }
  return presentRead(ctx, results[readAt], results[readAt + 1]);
}

/** The completion of the student's `assignment_ref` blocks naming the assignment, when `handedIn` holds. */
function assignmentCompletion(ctx: SchoolCtx, assignmentId: string | SQL, handedIn: SQL): ReferenceCompletion {
  return { blockType: "assignment_ref", source: "assignment", refId: assignmentId, studentId: ctx.actor.userId, passed: handedIn };
}

/** The submission handed in: the contributors complete the student's `assignment_ref` blocks (docs/domain-events.md). */
function handedInEvent(ctx: SchoolCtx, id: string, completes: ReferenceCompletion, now: number): SubmissionSubmitted {
  return { type: "submission.submitted", submissionId: id, now, completes };
}

/**
 * POST /submissions/:id/submit: draft → submitted. The schedule: the first attempt (attempt 1,
 * never reopened) is refused after its closing date; any attempt before its opening date (403
 * `schedule_window_closed`). The same batch completes the student's `assignment_ref` blocks naming
 * the assignment (source `assignment`, with the course and path completion pushes) and sends #47.
 */
export async function submitSubmission(ctx: SchoolCtx, input: { id: string }): Promise<SubmissionView> {
  const { id } = input;
  const own = ownSql(ctx, id);
  const assignmentOf = sql`(SELECT sa.assignment_id FROM submissions sa WHERE sa.id = ${id} AND ${inSchool("sa", ctx.tenantId)})`;
  // Before the submission is read, the event names the assignment through it.
  const prep = prepareContentEvent(ctx, handedInEvent(ctx, id, assignmentCompletion(ctx, assignmentOf, sql`1`), ctx.clock.now()), SUBMISSION_EVENTS.submitted);
  const reads = await runBatch(ctx, [
    submissionStateRead(ctx, id, sql`s.student_id = ${ctx.actor.userId}`),
    batchable(ctx, assignmentLessonsSql(ctx, assignmentOf)),
    ...prep.reads,
    ...prep.prefetch,
  ]);
  const prepared = prep.read(reads.slice(2 + prep.reads.length), reads.slice(2, 2 + prep.reads.length));
  const state = readSubmissionState(reads[0]);
  if (!state) throw new ApiError(assignmentsErrors.SUBMISSION_NOT_FOUND);
  if (state.status !== "draft") throw new ApiError(assignmentsErrors.SUBMISSION_NOT_DRAFT);
  const now = ctx.clock.now();
  const firstAttempt = state.attempt === 1 && state.reopenedAt === null;
  const lessons = rowsOf<LessonWindows & { locked: number }>(reads[1]);
  const open = lessons.filter((lesson) => lesson.locked === 0);
  if (lessons.length > 0 && open.length === 0) throw new ApiError(coursesErrors.SEQUENTIAL_ORDER_REQUIRED);
  if (scheduleRefusesEverywhere(open, now, firstAttempt)) throw new ApiError(scheduleErrors.WINDOW_CLOSED);

  const handedIn = changedAt(ctx, id, "submitted", "submitted_at", now);
  const statements: BatchItem[] = [
    batchable(
      ctx,
      sql`UPDATE submissions SET status = 'submitted', submitted_at = ${now}, updated_at = ${now}
        WHERE id = ${id} AND ${inSchool(ctx.tenantId)} AND student_id = ${ctx.actor.userId} AND status = 'draft'`,
    ),
    ...(await contentStatements(ctx, handedInEvent(ctx, id, assignmentCompletion(ctx, state.assignmentId, handedIn), now), prepared)),
    await submittedEvent(ctx, submissionFacts(state), now),
  ];
  const readAt = statements.length;
  statements.push(...submissionReadsWhere(ctx, own));
  const results = await runBatch(ctx, statements);
  if (changedRows(results[0]) === 0) throw refusal(results[readAt]);
  await dispatchQueued(ctx);
  return presentRead(ctx, results[readAt], results[readAt + 1]);
}

export function submissionFacts(state: SubmissionState) {
  return {
    id: state.id,
    studentId: state.studentId,
    attempt: state.attempt,
    assignmentTitle: state.assignmentTitle,
    maxScoreHundredths: state.maxScoreHundredths,
    maxAttempts: state.maxAttempts,
  };
}
