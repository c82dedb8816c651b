import { sql } from "drizzle-orm";
import { batchable, rowsOf, runBatch } from "../../core/db/batch";
import { inSchool, liveInSchool } from "../../core/db/conditions";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { iso } from "../../core/lib/clock";
import { dispatchQueued } from "../../platform/notifications/enqueue";
import { auditEntry } from "../../platform/audit/write";
import { restrictedScope, scopeCondition } from "../../platform/schools/curator-scope";
import type { JournalQuestion } from "./journal-state";
import { attemptsErrors as e } from "./errors";
import { finalizeJournal } from "./attempt-service";
import { journal, journalStart } from "./journal";
import { ATTEMPT_COLUMNS, presentInProgress, type AttemptRow, type AttemptView } from "./present";
import { timeExtendedPush, type ExtendBody } from "./time-extended";

/**
 * POST /t/attempts/:id/extend (docs/decisions/accommodations.md, "Live extensions"): one read
 * batch (the attempt within the caller's scope, its quiz's title, the live questions the journal
 * is started with if its start was lost), one call to the attempt's journal, which moves the
 * deadline and its alarm, then one batch with the new deadline, the audit entry and the push.
 * The journal decides: an extension it accepted counts, whatever a concurrent submit does next.
 */

type Row = AttemptRow & { quiz_title: string };

export async function extendAttempt(ctx: SchoolCtx, input: { id: string; body: ExtendBody }): Promise<AttemptView> {
  const { tenantId } = ctx;
  const { id, body } = input;
  const scope = scopeCondition(sql`a.user_id`, restrictedScope(ctx));
  const reads = await runBatch(ctx, [
    batchable(
      ctx,
      sql`SELECT ${ATTEMPT_COLUMNS}, q.title AS quiz_title
        FROM quiz_attempts a JOIN quizzes q ON q.id = a.quiz_id AND ${inSchool("q", tenantId)}
        WHERE a.id = ${id} AND ${inSchool("a", tenantId)} AND a.exam_attempt_id IS NULL ${scope ? sql`AND ${scope}` : sql``}`,
    ),
    batchable(
      ctx,
      sql`SELECT eq.id, eq.type, eq.points_hundredths FROM quiz_questions eq
        WHERE ${liveInSchool("eq", tenantId)} AND eq.quiz_id = (SELECT qa.quiz_id FROM quiz_attempts qa WHERE qa.id = ${id} AND ${inSchool("qa", tenantId)})
        ORDER BY eq.position, eq.id`,
    ),
  ]);
  const [row] = rowsOf<Row>(reads[0]);
  const questions = rowsOf<JournalQuestion & { points_hundredths: number }>(reads[1]);
  if (!row) throw new ApiError(e.ATTEMPT_NOT_FOUND);
  if (row.deadline_at === null) throw new ApiError(e.ATTEMPT_NOT_TIMED);
  if (row.status === "submitted") throw new ApiError(e.ATTEMPT_ALREADY_SUBMITTED);

  const addMs = body.add_seconds * 1000;
  const outcome = await journal.extend(ctx, id, { tenantId, addMs, ensure: journalStart(ctx, row, questions) });
  switch (outcome.outcome) {
    case "not_found":
      throw new ApiError(e.ATTEMPT_NOT_FOUND);
    case "not_timed":
      throw new ApiError(e.ATTEMPT_NOT_TIMED);
    case "closed":
      throw new ApiError(e.ATTEMPT_ALREADY_SUBMITTED);
    case "closed_now":
      // Too late: the attempt finishes now, as the save that found it past its grace would finish it.
      await finalizeJournal(ctx, outcome.view);
      throw new ApiError(e.ATTEMPT_ALREADY_SUBMITTED);
    case "extended":
      break;
  }
  const deadlineAt = outcome.view.start.deadlineAt!;
  const previous = outcome.previousDeadlineAt;
  const exists = sql`EXISTS (SELECT 1 FROM quiz_attempts xa WHERE xa.id = ${id} AND ${inSchool("xa", tenantId)})`;
  await runBatch(ctx, [
    auditEntry(ctx, {
      action: "attempt.extended",
      targetType: "quiz_attempt",
      targetId: id,
      summary: `Quiz attempt extended by ${body.add_seconds} s: ${body.reason}`,
      changes: { deadline_at: [iso(previous), iso(deadlineAt)] },
      when: exists,
    }),
    // Extensions only move the deadline later: of two racing ones the later deadline (both applied by the journal) stays.
    batchable(ctx, sql`UPDATE quiz_attempts SET deadline_at = ${deadlineAt}, updated_at = ${ctx.clock.now()} WHERE id = ${id} AND ${inSchool(tenantId)} AND deadline_at < ${deadlineAt}`),
    ...(await timeExtendedPush(ctx, {
      attemptId: id,
      aggregateType: "quiz_attempt",
      studentId: row.user_id,
      actorRole: row.actor_role,
      title: row.quiz_title,
      addSeconds: body.add_seconds,
      deadlineAt,
      when: exists,
    })),
  ]);
  await dispatchQueued(ctx);
  const total = questions.reduce((sum, question) => sum + question.points_hundredths, 0);
  return presentInProgress({ ...row, deadline_at: deadlineAt }, { liveTotal: total, entries: outcome.view.entries, now: outcome.view.now });
}
