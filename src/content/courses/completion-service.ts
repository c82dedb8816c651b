import { sql, type SQL } from "drizzle-orm";
import { batchable, runBatch, type BatchItem, rowsOf } from "../../core/db/batch";
import type { SchoolCtx, SchoolActor } from "../../core/http/context";
import { ApiError } from "../../core/http/errors";
import { uuidv7 } from "../../core/lib/ids";
import type { BlockType, CompletionSource } from "../../db/schema";
import { eventDefinition } from "../../platform/notifications/catalog";
import { dispatchQueued, enqueue } from "../../platform/notifications/enqueue";
import { publishedPathsHoldingSql } from "../common/path-unlock";
import { courseVisibleSql } from "../common/access";
import { contentNeedsSecondBatch, contentStatements, LESSON_COMPLETION, prepareContentEvent, type BlockCompleted, type CompletableCourse, type CourseCompleted } from "../common/events";
import { recomputeProgress } from "../common/progress";
import { presentCompletion, presentProgress } from "./block-present";
import { MANUAL_BLOCK_TYPES } from "./block-types";
import { coursesErrors } from "./errors";
import { BLOCK_FROM, blockLockedSql, contentAccessSql, liveBlockSql } from "./lesson-content";
import { assignmentSubmittedSql } from "./references";
import { inSchool, liveInSchool } from "../../core/db/conditions";

/**
 * `POST /blocks/:id/complete`. Every rule is a condition of one conditional INSERT (the block is
 * live and visible, the student actively enrolled, the type completes by hand, the course order
 * allows it), followed in the same batch by the enrollment's recount and a read-back of the
 * completion, the progress and the facts that say why nothing was inserted. With the guard's
 * query that is two D1 round trips.
 *
 * The completion emits `block.completed` (docs/domain-events.md). The one that completes the
 * block's lesson earns the lesson's points, and with it perhaps the module's and the course's
 * (contributor `rating.completion-awards`, #60/#63); the one that completes the course also
 * announces it (contributor `courses.course-completion` emits `course.completed`, whose
 * contributors `paths.completion-pushes` and `courses.completion-pushes` write the learning-path
 * pushes and `course.completed`, `course.student_completed`). Those contributors must write in the
 * batch that completes and need the course and its paths read first, so they declare the second
 * batch of a lesson completion (docs/domain-events.md, "Second batch"): the first batch reads the
 * school's settings of their pushes and the published paths that hold the course, and refuses a
 * completion that would complete the lesson (completing the course implies it); that one is made
 * by a second batch carrying the contributors' statements (conditional on the enrollment's
 * completion): one more round trip for the last block of each lesson.
 */

/** The settings of the course's own completion pushes (#33/#34), read ahead by a completing source. */
export const COMPLETION_EVENTS = [eventDefinition("course.completed")!, eventDefinition("course.student_completed")!];

const MANUAL = sql.join(
  MANUAL_BLOCK_TYPES.map((type) => sql`${type}`),
  sql`, `,
);

/** Joined to BLOCK_FROM: the student's active enrollment in the block's course. */
function enrollmentJoin(ctx: SchoolCtx): SQL {
  return sql`JOIN enrollments e ON ${inSchool("e", ctx.tenantId)} AND e.course_id = t.course_id AND e.student_id = ${ctx.actor.userId} AND e.removed_at IS NULL`;
}

/** SQL true when the student has an assignment submission that lets the block complete. */
function submittedSql(ctx: SchoolCtx): SQL {
  return sql`(t.type = 'assignment_ref' AND ${assignmentSubmittedSql(ctx.tenantId, sql`t.ref_id`, ctx.actor.userId)})`;
}

/**
 * SQL true when completing the block leaves no live block of its lesson open for the student: it
 * completes the lesson (and perhaps the module and the course, which need the lesson complete).
 */
function completesLessonSql(ctx: SchoolCtx): SQL {
  return sql`NOT EXISTS (SELECT 1 FROM blocks ob
      WHERE ${inSchool("ob", ctx.tenantId)} AND ob.lesson_id = t.lesson_id AND ob.deleted_at IS NULL AND ob.id <> t.id
        AND NOT EXISTS (SELECT 1 FROM block_completions oc WHERE ${inSchool("oc", ctx.tenantId)} AND oc.block_id = ob.id AND oc.student_id = ${ctx.actor.userId}))`;
}

function insertCompletion(ctx: SchoolCtx, input: { id: string; blockId: string; now: number; completingLesson: boolean }): BatchItem {
  const source: SQL = sql`CASE WHEN t.type = 'assignment_ref' THEN ${"assignment" satisfies CompletionSource} ELSE ${"manual" satisfies CompletionSource} END`;
  return batchable(
    ctx,
    sql`INSERT INTO block_completions (id, tenant_id, course_id, lesson_id, block_id, student_id, enrollment_id, source, completed_at)
      SELECT ${input.id}, t.tenant_id, t.course_id, t.lesson_id, t.id, ${ctx.actor.userId}, e.id, ${source}, ${input.now}
      FROM ${BLOCK_FROM} ${enrollmentJoin(ctx)}
      WHERE ${liveBlockSql(ctx, input.blockId)} AND ${contentAccessSql(ctx)}
        AND (t.type IN (${MANUAL}) OR ${submittedSql(ctx)})
        AND NOT ${blockLockedSql(ctx)}
        ${input.completingLesson ? sql`` : sql`AND NOT ${completesLessonSql(ctx)}`}
      ON CONFLICT (block_id, student_id) DO NOTHING`,
  );
}

interface Outcome {
  type: BlockType;
  course_id: string;
  enrollment_id: string;
  locked: number;
  submitted: number;
  completes: number;
  completion_id: string | null;
  completion_source: CompletionSource | null;
  completion_at: number | null;
  blocks_completed: number;
  total_blocks: number;
  completed_at: number | null;
  /** JSON array of the published paths holding the course. */
  path_ids: string;
}

/** The block as the student may reach it (no row otherwise), with the student's completion and progress. */
function readOutcome(ctx: SchoolCtx, blockId: string): BatchItem {
  return batchable(
    ctx,
    sql`SELECT t.type, t.course_id, e.id AS enrollment_id,
        ${blockLockedSql(ctx)} AS locked, ${submittedSql(ctx)} AS submitted, ${completesLessonSql(ctx)} AS completes,
        bc.id AS completion_id, bc.source AS completion_source, bc.completed_at AS completion_at,
        e.blocks_completed, e.total_blocks, e.completed_at, ${publishedPathsHoldingSql(ctx.tenantId, sql`t.course_id`)} AS path_ids
      FROM ${BLOCK_FROM} ${enrollmentJoin(ctx)}
        LEFT JOIN block_completions bc ON ${inSchool("bc", ctx.tenantId)} AND bc.block_id = t.id AND bc.student_id = ${ctx.actor.userId}
      WHERE ${liveBlockSql(ctx, blockId)} AND ${contentAccessSql(ctx)}`,
  );
}

/** The completion of a second batch: the course the first one read, and the completion's source. */
interface LessonCompletion extends CompletableCourse {
  source: CompletionSource;
}

/** The statements of one completion attempt; the outcome is the last one's row. */
async function attempt(ctx: SchoolCtx, blockId: string, course?: LessonCompletion): Promise<Outcome | undefined> {
  const id = uuidv7();
  const now = ctx.clock.now();
  const studentId = ctx.actor.userId;
  // A contributor that needs the second batch: the first one refuses a completion of the lesson.
  const completingLesson = course !== undefined || !contentNeedsSecondBatch(ctx, "block.completed", LESSON_COMPLETION);
  const event: BlockCompleted = {
    type: "block.completed",
    source: course?.source ?? "manual",
    studentId,
    now,
    completionId: id,
    lessons: completingLesson ? "maybe" : "none",
    courses: course ? [{ courseId: course.courseId, enrollmentId: course.enrollmentId, pathIds: course.pathIds }] : [],
  };
  // The first attempt reads the pushes' settings too, so a second one builds its pushes without a read.
  // Contributors of `block.completed` prepare no reads here: the event's reads would share the batch of its writes.
  const prefetch = course ? null : prepareContentEvent(ctx, event);
  const statements: BatchItem[] = [
    ...(prefetch?.prefetch ?? []),
    insertCompletion(ctx, { id, blockId, now, completingLesson }),
    recomputeProgress(ctx, { tenantId: ctx.tenantId, courseId: sql`(SELECT course_id FROM block_completions WHERE id = ${id} AND ${inSchool(ctx.tenantId)})`, studentId }),
  ];
  const contributed = await contentStatements(ctx, event);
  statements.push(...contributed, readOutcome(ctx, blockId));
  const results = await runBatch(ctx, statements);
  prefetch?.read(results.slice(0, prefetch.prefetch.length), []);
  if (contributed.length > 0) await dispatchQueued(ctx);
  return rowsOf<Outcome>(results[results.length - 1])[0];
}

/**
 * #33 to the student and #34 to the student's curators, for any completing write (a passed quiz
 * completes its blocks too): `when` holds once the batch's recount has set the enrollment's
 * `completed_at`, and a push of a contributor registered before (a path completed, #57/#58)
 * replaces its course push when its `superseding` condition holds. A context without an actor (a
 * quiz finalized by its deadline) leaves nobody out.
 */
export async function courseCompletionPushes(ctx: SchoolCtx<SchoolActor>, event: CourseCompleted): Promise<BatchItem[]> {
  const { when } = event;
  const courseTitle = sql`(SELECT ct.title FROM courses ct WHERE ct.id = ${event.courseId} AND ${inSchool("ct", ctx.tenantId)})`;
  const studentName = sql`(SELECT su.first_name || ' ' || su.last_name FROM users su WHERE su.id = ${event.studentId} AND ${inSchool("su", ctx.tenantId)})`;
  const unless = (superseding: readonly SQL[]) => (superseding.length > 0 ? sql`${when} AND NOT (${sql.join([...superseding], sql` OR `)})` : when);
  return [
    await enqueue(
      ctx,
      "course.completed",
      { token: "student", studentId: event.studentId },
      { course_title: courseTitle },
      { id: event.courseId },
      `course.completed:${event.enrollmentId}`,
      { when: unless(event.superseding.student) },
    ),
    await enqueue(
      ctx,
      "course.student_completed",
      { token: "student_curators", studentId: event.studentId },
      { student_name: studentName, course_title: courseTitle },
      { id: event.courseId },
      `course.student_completed:${event.enrollmentId}`,
      { when: unless(event.superseding.curators) },
    ),
  ];
}

/** POST /blocks/:id/complete: the completion (new or the existing one) and the enrollment's progress. */
export async function completeBlock(ctx: SchoolCtx, input: { id: string }) {
  let outcome = await attempt(ctx, input.id);
  if (!outcome) throw new ApiError(coursesErrors.BLOCK_NOT_FOUND);
  if (outcome.type === "quiz_ref" || outcome.type === "exam_ref") {
    throw new ApiError(coursesErrors.BLOCK_TYPE_COMPLETED_VIA_DOMAIN, { message: `A ${outcome.type} block completes through its ${outcome.type === "quiz_ref" ? "quiz" : "exam"}, not by hand.` });
  }
  if (outcome.completion_id === null) {
    if (outcome.locked === 1) throw new ApiError(coursesErrors.SEQUENTIAL_ORDER_REQUIRED);
    if (outcome.type === "assignment_ref" && outcome.submitted !== 1) throw new ApiError(coursesErrors.ASSIGNMENT_NOT_SUBMITTED);
    if (outcome.completes === 1) {
      const source: CompletionSource = outcome.type === "assignment_ref" ? "assignment" : "manual";
      outcome = await attempt(ctx, input.id, { courseId: outcome.course_id, enrollmentId: outcome.enrollment_id, pathIds: JSON.parse(outcome.path_ids) as string[], source });
    }
    if (!outcome || outcome.completion_id === null) throw new ApiError(coursesErrors.BLOCK_NOT_FOUND);
  }
  return {
    completion: presentCompletion({
      id: outcome.completion_id,
      studentId: ctx.actor.userId,
      blockId: input.id,
      enrollmentId: outcome.enrollment_id,
      source: outcome.completion_source!,
      completedAt: outcome.completion_at!,
    }),
    progress: presentProgress({ blocksCompleted: outcome.blocks_completed, totalBlocks: outcome.total_blocks, completedAt: outcome.completed_at }),
  };
}

/** GET /courses/:id/my-completions: the caller's completed live blocks of a course they are actively enrolled in. */
export async function myCompletions(ctx: SchoolCtx, input: { id: string }) {
  const { tenantId } = ctx;
  const userId = ctx.actor.userId;
  const rows = await ctx.db.all<{ block_id: string | null }>(
    sql`SELECT bc.block_id FROM courses c
        JOIN enrollments e ON ${inSchool("e", tenantId)} AND e.course_id = c.id AND e.student_id = ${userId} AND e.removed_at IS NULL
        LEFT JOIN block_completions bc ON ${inSchool("bc", tenantId)} AND bc.course_id = c.id AND bc.student_id = ${userId}
          AND EXISTS (SELECT 1 FROM blocks b WHERE b.id = bc.block_id AND ${liveInSchool("b", tenantId)})
      WHERE c.id = ${input.id} AND ${courseVisibleSql(ctx, sql`c`)}
      ORDER BY bc.completed_at, bc.block_id`,
  );
  if (rows.length === 0) throw new ApiError(coursesErrors.COURSE_NOT_FOUND);
  return { block_ids: rows.flatMap((row) => (row.block_id === null ? [] : [row.block_id])) };
}
