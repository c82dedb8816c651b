import { sql } from "drizzle-orm";
import { batchable, rowsOf, runBatch } from "../../core/db/batch";
import { inSchool } from "../../core/db/conditions";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { iso } from "../../core/lib/clock";
import { auditEntry } from "../../platform/audit/write";
import { dispatchQueued } from "../../platform/notifications/enqueue";
import { restrictedScope, scopeCondition } from "../../platform/schools/curator-scope";
import { timeExtendedPush, type ExtendBody } from "../attempts/time-extended";
import { EXAM_ATTEMPT_COLUMNS, presentExamAttempt, sectionAttemptsSql, type ExamAttemptRow, type ExamAttemptView, type SectionAttemptRow } from "./attempt-present";
import { examsErrors as e } from "./errors";
import { finishClosed } from "./exam-finalize";
import { timer, timerStart } from "./timer";

/**
 * POST /t/exam-attempts/:id/extend (docs/decisions/accommodations.md, "Live extensions"): one read
 * batch (the attempt within the caller's scope, the exam's title, the sections opened so far),
 * one call to the attempt's timer, which moves the deadline, its alarms and the opened sections'
 * journals, then one batch with the new deadline (the attempt's and its sections' rows), the audit
 * entry and the push.
 */

type Row = ExamAttemptRow & { exam_title: string };

export async function extendExamAttempt(ctx: SchoolCtx, input: { id: string; body: ExtendBody }): Promise<ExamAttemptView> {
  const { tenantId } = ctx;
  const { id, body } = input;
  const scope = scopeCondition(sql`ea.user_id`, restrictedScope(ctx));
  const reads = await runBatch(ctx, [
    batchable(
      ctx,
      sql`SELECT ${EXAM_ATTEMPT_COLUMNS}, ex.title AS exam_title
        FROM exam_attempts ea JOIN exams ex ON ex.id = ea.exam_id AND ${inSchool("ex", tenantId)}
        WHERE ea.id = ${id} AND ${inSchool("ea", tenantId)} ${scope ? sql`AND ${scope}` : sql``}`,
    ),
    sectionAttemptsSql(ctx, id),
  ]);
  const [row] = rowsOf<Row>(reads[0]);
  const sections = rowsOf<SectionAttemptRow>(reads[1]);
  if (!row) throw new ApiError(e.EXAM_ATTEMPT_NOT_FOUND);
  if (row.status === "submitted") throw new ApiError(e.EXAM_ATTEMPT_ALREADY_SUBMITTED);

  const outcome = await timer.extend(ctx, id, {
    tenantId,
    ensure: timerStart(ctx, row),
    addMs: body.add_seconds * 1000,
    sectionAttemptIds: sections.map((section) => section.quiz_attempt_id),
  });
  switch (outcome.outcome) {
    case "not_found":
      throw new ApiError(e.EXAM_ATTEMPT_NOT_FOUND);
    case "closed":
      throw new ApiError(e.EXAM_ATTEMPT_ALREADY_SUBMITTED);
    case "closed_now":
      // Too late: the attempt finishes now, as the save that found it past its grace would finish it.
      await finishClosed(ctx, outcome.view);
      throw new ApiError(e.EXAM_ATTEMPT_ALREADY_SUBMITTED);
    case "extended":
      break;
  }
  const deadlineAt = outcome.view.start.deadlineAt;
  const now = ctx.clock.now();
  const exists = sql`EXISTS (SELECT 1 FROM exam_attempts xe WHERE xe.id = ${id} AND ${inSchool("xe", tenantId)})`;
  await runBatch(ctx, [
    auditEntry(ctx, {
      action: "exam_attempt.extended",
      targetType: "exam_attempt",
      targetId: id,
      summary: `Exam attempt extended by ${body.add_seconds} s: ${body.reason}`,
      changes: { deadline_at: [iso(outcome.previousDeadlineAt), iso(deadlineAt)] },
      when: exists,
    }),
    // Extensions only move deadlines later: of two racing ones the later deadline (both applied by the timer) stays.
    batchable(ctx, sql`UPDATE exam_attempts SET deadline_at = ${deadlineAt}, updated_at = ${now} WHERE id = ${id} AND ${inSchool(tenantId)} AND deadline_at < ${deadlineAt}`),
    batchable(
      ctx,
      sql`UPDATE quiz_attempts SET deadline_at = ${deadlineAt}, updated_at = ${now}
        WHERE ${inSchool(tenantId)} AND exam_attempt_id = ${id} AND status = 'in_progress' AND deadline_at < ${deadlineAt}`,
    ),
    ...(await timeExtendedPush(ctx, {
      attemptId: id,
      aggregateType: "exam_attempt",
      studentId: row.user_id,
      actorRole: row.actor_role,
      title: row.exam_title,
      addSeconds: body.add_seconds,
      deadlineAt,
      when: exists,
    })),
  ]);
  await dispatchQueued(ctx);
  return presentExamAttempt({ ...row, deadline_at: deadlineAt }, sections, [], outcome.view.now);
}
