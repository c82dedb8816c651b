import { sql, type SQL } from "drizzle-orm";
import { batchable, changedRows, insertWhere, rowsOf, runBatch } from "../../core/db/batch";
import { contentStatements } from "../common/events";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { uuidv7 } from "../../core/lib/ids";
import { ACTOR_ROLES, examAttempts } from "../../db/schema";
import { restrictedScope, scopeCondition } from "../../platform/schools/curator-scope";
import { attemptsErrors } from "../attempts/errors";
import { lessonChainWindowsSql } from "../common/windows";
import { scheduleRefusesEverywhere, type LessonWindows } from "../schedule/availability";
import { scheduleErrors } from "../schedule/errors";
import { isStaff } from "../common/access";
import { coursesErrors } from "../courses/errors";
import { refAccessLessonsSql } from "../common/ref-access";
import {
  EXAM_ATTEMPT_COLUMNS,
  examAttemptSql,
  presentExamAttempt,
  sectionAttemptsSql,
  sectionResultsSql,
  sectionRowsOf,
  type ExamAttemptRow,
  type ExamAttemptView,
  type SectionAttemptRow,
} from "./attempt-present";
import { examsErrors } from "./errors";
import { finishClosed, type FinishedExam } from "./exam-finalize";
import { timer, timerStart } from "./timer";
import { inSchool, liveInSchool } from "../../core/db/conditions";
import { effectiveMaxAttempts, effectiveTimeLimit, profileColumnsSql, profileOf } from "../accommodations/effective";

/**
 * Starting, reading and submitting exam attempts (docs/decisions/exams.md, "Exam attempts"). A start is one
 * read batch (the exam, the caller's attempt in progress, the lessons naming the exam that a
 * student sees, with their windows) and one conditional INSERT: the attempt limit and the single
 * attempt in progress are conditions of the INSERT, so concurrent starts cannot pass them. The
 * timer object is started after the row exists; every later call that finds the row hands the
 * timer its start again (idempotent), so a lost start call loses nothing.
 */

export function presentFinished(finished: FinishedExam, now: number): ExamAttemptView {
  return presentExamAttempt(finished.row, finished.sectionAttempts, finished.results, now);
}

/**
 * An attempt found in progress, through its timer: still open, or finished here first when the
 * timer is past the deadline and its grace (or closed by a finish that has not reached D1).
 */
export async function currentView(ctx: SchoolCtx, row: ExamAttemptRow, sectionAttempts: readonly SectionAttemptRow[]): Promise<ExamAttemptView> {
  const outcome = await timer.read(ctx, row.id, { tenantId: ctx.tenantId, ensure: timerStart(ctx, row) });
  if (outcome.outcome === "not_found") throw new ApiError(examsErrors.EXAM_ATTEMPT_NOT_FOUND);
  if (outcome.outcome === "open") return presentExamAttempt(row, sectionAttempts, [], outcome.view.now);
  return presentFinished(await finishClosed(ctx, outcome.view), ctx.clock.now());
}

/**
 * After a write refused because the time is up: the attempt is finished by this request when this
 * request is the one that closes the timer. A timer closed before is being finished by whoever
 * closed it, and its retry alarm finishes it should that fail.
 */
export async function finishIfDue(ctx: SchoolCtx, row: ExamAttemptRow): Promise<void> {
  const outcome = await timer.read(ctx, row.id, { tenantId: ctx.tenantId, ensure: timerStart(ctx, row) });
  if (outcome.outcome === "closed_now") await finishClosed(ctx, outcome.view);
}

/** The caller's attempt in progress of the exam (alias `ea`). */
function inProgressSql(ctx: SchoolCtx, examId: string): SQL {
  return sql`SELECT ${EXAM_ATTEMPT_COLUMNS} FROM exam_attempts ea
    WHERE ${inSchool("ea", ctx.tenantId)} AND ea.exam_id = ${examId} AND ea.user_id = ${ctx.actor.userId} AND ea.status = 'in_progress'`;
}

function inProgressIdSql(ctx: SchoolCtx, examId: string): SQL {
  return sql`(SELECT ip.id FROM exam_attempts ip WHERE ${inSchool("ip", ctx.tenantId)} AND ip.exam_id = ${examId}
    AND ip.user_id = ${ctx.actor.userId} AND ip.status = 'in_progress')`;
}

/** The caller's attempts of the exam, any status (the attempt limit counts them all). */
function usedSql(ctx: SchoolCtx, examId: string): SQL {
  return sql`(SELECT count(*) FROM exam_attempts u WHERE ${inSchool("u", ctx.tenantId)} AND u.exam_id = ${examId} AND u.user_id = ${ctx.actor.userId})`;
}

/**
 * The lessons through which the student meets the exam, with their windows: live `exam_ref` blocks
 * naming it in live lessons the student sees of published courses they are actively enrolled in.
 */
function examLessonsSql(ctx: SchoolCtx, examId: string): SQL {
  return sql`SELECT el.id, el.module_id, el.course_id, el.locked, ${lessonChainWindowsSql(ctx, sql`el`)} AS windows
    FROM (${refAccessLessonsSql("exam_ref", ctx.tenantId, examId, ctx.actor.userId)}) el`;
}

/** POST /exam-attempts: the caller's attempt in progress (200), or a new one (201). */
export async function startExamAttempt(ctx: SchoolCtx, input: { examId: string }): Promise<{ attempt: ExamAttemptView; created: boolean }> {
  const role = ctx.actor.role;
  if (!(ACTOR_ROLES as readonly string[]).includes(role)) throw new ApiError(attemptsErrors.INVALID_ACTOR_ROLE);
  const student = !isStaff(ctx.actor);
  const { examId } = input;
  const reads = await runBatch(ctx, [
    batchable(
      ctx,
      sql`SELECT e.status, e.time_limit_seconds, e.max_attempts, ${usedSql(ctx, examId)} AS used, ${profileColumnsSql(ctx.tenantId, ctx.actor.userId)}
        FROM exams e WHERE e.id = ${examId} AND ${liveInSchool("e", ctx.tenantId)}`,
    ),
    batchable(ctx, inProgressSql(ctx, examId)),
    sectionAttemptsSql(ctx, inProgressIdSql(ctx, examId)),
    batchable(ctx, student ? examLessonsSql(ctx, examId) : sql`SELECT 1 WHERE 0`),
  ]);
  const [exam] = rowsOf<{ status: string; time_limit_seconds: number; max_attempts: number | null; used: number; acc_multiplier: number | null }>(reads[0]);
  const [existing] = rowsOf<ExamAttemptRow>(reads[1]);
  if (!exam) throw new ApiError(examsErrors.EXAM_NOT_FOUND);
  // An attempt in progress is the caller's to finish even if the exam was unpublished since it began.
  if (existing) {
    const view = await currentView(ctx, existing, rowsOf<SectionAttemptRow>(reads[2]));
    if (view.status === "in_progress") return { attempt: view, created: false };
  }
  if (exam.status !== "published") throw new ApiError(examsErrors.EXAM_NOT_PUBLISHED);
  const now = ctx.clock.now();
  const lessons = rowsOf<LessonWindows & { locked: number }>(reads[3]);
  const open = lessons.filter((lesson) => lesson.locked === 0);
  // An exam met in lessons only through blocks the course order still locks waits for them; one met in no lesson is the exams menu's.
  if (student && lessons.length > 0 && open.length === 0) throw new ApiError(coursesErrors.SEQUENTIAL_ORDER_REQUIRED);
  if (student && scheduleRefusesEverywhere(open, now, exam.used === 0)) throw new ApiError(scheduleErrors.WINDOW_CLOSED);

  // The student's accommodation, frozen into this attempt (docs/decisions/accommodations.md, "Effective limits").
  const profile = profileOf(exam, student);
  const maxAttempts = effectiveMaxAttempts(exam.max_attempts, profile);
  const limit = maxAttempts === null ? sql`1` : sql`${usedSql(ctx, examId)} < ${maxAttempts}`;
  const results = await runBatch(ctx, [
    insertWhere(
      ctx,
      examAttempts,
      {
        id: uuidv7(now),
        tenantId: ctx.tenantId,
        examId,
        userId: ctx.actor.userId,
        actorRole: role as ExamAttemptRow["actor_role"],
        status: "in_progress",
        startedAt: now,
        deadlineAt: now + effectiveTimeLimit(exam.time_limit_seconds, profile)! * 1000,
        createdAt: now,
        updatedAt: now,
      },
      sql`${limit} AND NOT EXISTS (SELECT 1 FROM exam_attempts p WHERE ${inSchool("p", ctx.tenantId)} AND p.exam_id = ${examId}
          AND p.user_id = ${ctx.actor.userId} AND p.status = 'in_progress')
        AND EXISTS (SELECT 1 FROM exams le WHERE le.id = ${examId} AND ${liveInSchool("le", ctx.tenantId)} AND le.status = 'published')`,
    ),
    batchable(ctx, inProgressSql(ctx, examId)),
    sectionAttemptsSql(ctx, inProgressIdSql(ctx, examId)),
    ...(await contentStatements(ctx, { type: "attempt.recorded", attempt: "exam", objectId: examId, userId: ctx.actor.userId })),
  ]);
  const [row] = rowsOf<ExamAttemptRow>(results[1]);
  if (!row) throw new ApiError(examsErrors.MAX_EXAM_ATTEMPTS_REACHED);
  const created = changedRows(results[0]) === 1;
  return { attempt: await currentView(ctx, row, rowsOf<SectionAttemptRow>(results[2])), created };
}

/** GET /exam-attempts/active?exam_id=: the caller's attempt in progress (one found past its time is finished first, then 404). */
export async function getActiveExamAttempt(ctx: SchoolCtx, input: { examId: string }): Promise<ExamAttemptView> {
  const results = await runBatch(ctx, [batchable(ctx, inProgressSql(ctx, input.examId)), sectionAttemptsSql(ctx, inProgressIdSql(ctx, input.examId))]);
  const [row] = rowsOf<ExamAttemptRow>(results[0]);
  if (!row) throw new ApiError(examsErrors.EXAM_ATTEMPT_NOT_FOUND);
  const view = await currentView(ctx, row, rowsOf<SectionAttemptRow>(results[1]));
  if (view.status !== "in_progress") throw new ApiError(examsErrors.EXAM_ATTEMPT_NOT_FOUND);
  return view;
}

/** GET /exam-attempts/:id: the owner always; staff within their scope (a restricted curator only their students); anyone else 404. */
export async function getExamAttempt(ctx: SchoolCtx, input: { id: string }): Promise<ExamAttemptView> {
  const staff = isStaff(ctx.actor) ? (scopeCondition(sql`ea.user_id`, restrictedScope(ctx)) ?? sql`1`) : sql`0`;
  const results = await runBatch(ctx, [
    examAttemptSql(ctx, input.id, sql`(ea.user_id = ${ctx.actor.userId} OR ${staff})`),
    sectionAttemptsSql(ctx, input.id),
    sectionResultsSql(ctx, input.id),
  ]);
  const [row] = rowsOf<ExamAttemptRow>(results[0]);
  if (!row) throw new ApiError(examsErrors.EXAM_ATTEMPT_NOT_FOUND);
  const sectionAttempts = rowsOf<SectionAttemptRow>(results[1]);
  if (row.status === "submitted") return presentExamAttempt(row, sectionAttempts, sectionRowsOf(results[2]), ctx.clock.now());
  return currentView(ctx, row, sectionAttempts);
}

/** POST /exam-attempts/:id/submit (body ignored): the finished attempt. Of concurrent submits (and alarm runs) one finishes it. */
export async function submitExamAttempt(ctx: SchoolCtx, input: { id: string }): Promise<ExamAttemptView> {
  const [row] = rowsOf<ExamAttemptRow>((await runBatch(ctx, [examAttemptSql(ctx, input.id, sql`ea.user_id = ${ctx.actor.userId}`)]))[0]);
  if (!row) throw new ApiError(examsErrors.EXAM_ATTEMPT_NOT_FOUND);
  if (row.status === "submitted") throw new ApiError(examsErrors.EXAM_ATTEMPT_ALREADY_SUBMITTED);
  const outcome = await timer.close(ctx, row.id, { tenantId: ctx.tenantId, userId: ctx.actor.userId, ensure: timerStart(ctx, row) });
  if (outcome.outcome === "not_found") throw new ApiError(examsErrors.EXAM_ATTEMPT_NOT_FOUND);
  if (outcome.outcome === "closed") throw new ApiError(examsErrors.EXAM_ATTEMPT_ALREADY_SUBMITTED);
  return presentFinished(await finishClosed(ctx, outcome.view), ctx.clock.now());
}
