import { sql, type SQL } from "drizzle-orm";
import { batchable, changedRows, insertWhere, rowsOf, runBatch, type BatchItem } from "../../core/db/batch";
import type { SchoolCtx } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { uuidv7 } from "../../core/lib/ids";
import { submissions } from "../../db/schema";
import { afterStaged, discardStaged, stagedAssetsInsert, stagedFitQuotaSql, stageFiles, type StagedFile } from "../../platform/media/direct-upload";
import { mediaErrors } from "../../platform/media/errors";
import { assignmentTargetsStudentSql } from "../assignments/access";
import { assignmentsErrors } from "../assignments/errors";
import { refAccessLessonsSql } from "../common/ref-access";
import { coursesErrors } from "../courses/errors";
import { scheduleErrors } from "../schedule/errors";
import { lessonChainWindowsSql } from "../common/windows";
import { scheduleRefusesEverywhere, type LessonWindows } from "../schedule/availability";
import { attachIdsStatement, attachStagedStatement, distinctIds, isMultipart, ownAssetsSql, readSubmissionFiles } from "./files";
import { presentRead, latestAttemptSql, submissionReadsWhere } from "./read";
import type { SubmissionRow, SubmissionView } from "./present";
import type { CreateSubmissionBody } from "./schemas";
import { inSchool, liveInSchool } from "../../core/db/conditions";
import { effectiveMaxAttempts, profileColumnsSql, profileOf } from "../accommodations/effective";

/**
 * POST /assignments/:id/submissions (docs/decisions/assignments.md, "Submissions"): the student's draft.
 *
 * 404 `assignment_not_found`, then 403 `student_not_in_targeted_group`. A latest attempt in
 * draft, submitted or accepted is answered unchanged (200; files sent with the request are not
 * stored). After a rejection the next attempt is a new draft, up to `max_attempts` (409
 * `max_attempts_reached`); the first attempt meets the schedule's first-attempt rule, a later one
 * only a start not yet come (403 `schedule_window_closed`). Then the files: ids of the student's
 * own confirmed assets (400 `attachment_not_in_tenant`) or 1-5 file parts stored as assets.
 *
 * The draft is one conditional INSERT: nothing of the attempt number or later exists, and the
 * attempt before it is still rejected. Concurrent creates therefore make one draft; the others
 * read it back in the same batch and answer it (200), removing the files they had put into storage.
 */

type CreateOutcome = { submission: SubmissionView; created: boolean };

interface AssignmentFacts {
  max_attempts: number | null;
  targeted: number;
  assets_ok: number;
}

/** The lessons through which the student reaches the assignment, with their windows (the first-attempt rule). */
export function assignmentLessonsSql(ctx: SchoolCtx, assignmentId: string | SQL): SQL {
  return sql`SELECT al.id, al.module_id, al.course_id, al.locked, ${lessonChainWindowsSql(ctx, sql`al`)} AS windows
    FROM (${refAccessLessonsSql("assignment_ref", ctx.tenantId, assignmentId, ctx.actor.userId)}) al`;
}

function liveAssignmentSql(ctx: SchoolCtx, assignmentId: string, condition: SQL = sql`1`): SQL {
  return sql`EXISTS (SELECT 1 FROM assignments ca WHERE ca.id = ${assignmentId} AND ${liveInSchool("ca", ctx.tenantId)} AND ${condition})`;
}

export async function createSubmission(ctx: SchoolCtx, input: { assignmentId: string; body: CreateSubmissionBody; request: Request }): Promise<CreateOutcome> {
  const files = isMultipart(input.request) ? await readSubmissionFiles(input.request) : null;
  const ids = files ? [] : distinctIds(input.body.attachment_ids ?? []);
  const { assignmentId } = input;
  const me = ctx.actor.userId;
  const latest = latestAttemptSql(ctx, assignmentId, me);
  const reads = await runBatch(ctx, [
    batchable(
      ctx,
      sql`SELECT a.max_attempts, ${assignmentTargetsStudentSql(ctx.tenantId, sql`a.id`, me)} AS targeted, ${ownAssetsSql(ctx, ids)} AS assets_ok,
          ${profileColumnsSql(ctx.tenantId, me)}
        FROM assignments a WHERE a.id = ${assignmentId} AND ${liveInSchool("a", ctx.tenantId)}`,
    ),
    ...submissionReadsWhere(ctx, latest),
    batchable(ctx, assignmentLessonsSql(ctx, assignmentId)),
  ]);
  const [facts] = rowsOf<AssignmentFacts & { acc_multiplier: number | null }>(reads[0]);
  if (!facts) throw new ApiError(assignmentsErrors.ASSIGNMENT_NOT_FOUND);
  // The student's extra attempts (docs/decisions/accommodations.md, "Effective limits").
  const extraAttempts = profileOf(facts, ctx.actor.role === "student").extraAttempts;
  const assignment = { ...facts, max_attempts: effectiveMaxAttempts(facts.max_attempts, profileOf(facts, ctx.actor.role === "student")) };
  if (assignment.targeted !== 1) throw new ApiError(assignmentsErrors.STUDENT_NOT_IN_TARGETED_GROUP);
  const [previous] = rowsOf<SubmissionRow>(reads[1]);
  if (previous && previous.status !== "rejected") return { submission: await presentRead(ctx, reads[1], reads[2]), created: false };
  if (previous && assignment.max_attempts !== null && previous.attempt >= assignment.max_attempts) {
    throw new ApiError(assignmentsErrors.MAX_ATTEMPTS_REACHED, {
      message: `All ${assignment.max_attempts} attempts allowed for this assignment are used.`,
    });
  }
  const attempt = previous ? previous.attempt + 1 : 1;
  const now = ctx.clock.now();
  const lessons = rowsOf<LessonWindows & { locked: number }>(reads[3]);
  const open = lessons.filter((lesson) => lesson.locked === 0);
  // An assignment met in lessons only through blocks the course order still locks waits for them; a standalone one meets none.
  if (lessons.length > 0 && open.length === 0) throw new ApiError(coursesErrors.SEQUENTIAL_ORDER_REQUIRED);
  if (scheduleRefusesEverywhere(open, now, attempt === 1)) throw new ApiError(scheduleErrors.WINDOW_CLOSED);
  if (assignment.assets_ok !== 1) throw new ApiError(assignmentsErrors.ATTACHMENT_NOT_IN_TENANT);

  const staged = files ? await stageFiles(ctx, files) : [];
  let outcome: CreateOutcome;
  try {
    outcome = await writeDraft(ctx, { assignmentId, attempt, ids, staged, now, extraAttempts });
  } catch (err) {
    await discardStaged(ctx, staged);
    throw err;
  }
  // Files belong to the draft this request made; a draft made by another request keeps its own.
  if (outcome.created) await afterStaged(ctx, staged);
  else await discardStaged(ctx, staged);
  return outcome;
}

async function writeDraft(
  ctx: SchoolCtx,
  input: { assignmentId: string; attempt: number; ids: string[]; staged: StagedFile[]; now: number; extraAttempts: number },
): Promise<CreateOutcome> {
  const { assignmentId, attempt, ids, staged, now, extraAttempts } = input;
  const me = ctx.actor.userId;
  const id = uuidv7(now);
  // Nothing of this attempt or later exists, and the one before it (if any) is still rejected.
  const free = sql`NOT EXISTS (SELECT 1 FROM submissions x WHERE ${inSchool("x", ctx.tenantId)} AND x.assignment_id = ${assignmentId} AND x.student_id = ${me}
    AND (x.attempt >= ${attempt} OR (x.attempt = ${attempt - 1} AND x.status <> 'rejected')))`;
  const fits = staged.length > 0 ? stagedFitQuotaSql(ctx, staged) : sql`1`;
  const allowed = liveAssignmentSql(ctx, assignmentId, sql`(ca.max_attempts IS NULL OR ca.max_attempts + ${extraAttempts} >= ${attempt})`);
  const created = sql`EXISTS (SELECT 1 FROM submissions ns WHERE ns.id = ${id} AND ${inSchool("ns", ctx.tenantId)})`;
  const statements: BatchItem[] = [
    insertWhere(
      ctx,
      submissions,
      { id, tenantId: ctx.tenantId, assignmentId, studentId: me, attempt, status: "draft", createdAt: now, updatedAt: now },
      sql`${free} AND ${allowed} AND ${fits} AND ${ownAssetsSql(ctx, ids)}`,
    ),
  ];
  if (staged.length > 0) statements.push(stagedAssetsInsert(ctx, staged, created), attachStagedStatement(ctx, id, staged, created, now));
  if (ids.length > 0) statements.push(attachIdsStatement(ctx, id, ids, created, now));
  const readAt = statements.length;
  statements.push(
    ...submissionReadsWhere(ctx, latestAttemptSql(ctx, assignmentId, me)),
    batchable(ctx, sql`SELECT ${liveAssignmentSql(ctx, assignmentId)} AS live, ${fits} AS fits, ${ownAssetsSql(ctx, ids)} AS assets_ok`),
  );
  const results = await runBatch(ctx, statements);
  if (changedRows(results[0]) === 1) {
    return { submission: await presentRead(ctx, results[readAt], results[readAt + 1]), created: true };
  }
  const [current] = rowsOf<SubmissionRow>(results[readAt]);
  // Another request made the draft (or the next attempt) first: answer it, as a repeated create would.
  if (current && (current.attempt >= attempt || current.status !== "rejected")) {
    return { submission: await presentRead(ctx, results[readAt], results[readAt + 1]), created: false };
  }
  const state = rowsOf<{ live: number; fits: number; assets_ok: number }>(results[readAt + 2])[0];
  if (!state || state.live !== 1) throw new ApiError(assignmentsErrors.ASSIGNMENT_NOT_FOUND);
  if (state.fits !== 1) throw new ApiError(mediaErrors.STORAGE_QUOTA_EXCEEDED);
  if (state.assets_ok !== 1) throw new ApiError(assignmentsErrors.ATTACHMENT_NOT_IN_TENANT);
  // The assignment's max_attempts was lowered since the read.
  throw new ApiError(assignmentsErrors.MAX_ATTEMPTS_REACHED);
}
