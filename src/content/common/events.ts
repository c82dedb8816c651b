import { sql, type SQL } from "drizzle-orm";
import { inSchool } from "../../core/db/conditions";
import type { BatchItem } from "../../core/db/batch";
import {
  contributedStatements,
  contributorsOf,
  needsSecondBatch,
  prepareEvent,
  pushEventsOf,
  requireRegistry,
  type Contributor,
  type ContributorRegistry,
  type Preparation,
  type PreparedEvent,
} from "../../core/events";
import type { SchoolActor, SchoolCtx } from "../../core/http/context";
import type { CompletionSource } from "../../db/schema";
import type { EventDefinition } from "../../platform/notifications/catalog";
import { prefetchSchoolEvents } from "../../platform/notifications/settings";

/**
 * The content half's domain events (docs/domain-events.md, "Events"). A source builds its own
 * statements and one of these; the contributors registered at app assembly (src/contributors.ts)
 * add theirs to the same write batch. This file imports no content area: the areas import it.
 */

export type EventCtx = SchoolCtx<SchoolActor>;

/** An enrollment not completed yet in a course the event may complete, with the published paths holding the course. */
export interface CompletableCourse {
  courseId: string;
  enrollmentId: string;
  pathIds: string[];
}

/** What a passed attempt or a handed-in submission may complete: the student's reference blocks naming the object. */
export interface ReferenceCompletion {
  blockType: "quiz_ref" | "exam_ref" | "assignment_ref";
  source: "quiz" | "exam" | "assignment";
  /** The quiz, exam or assignment id, or SQL naming it. */
  refId: string | SQL;
  studentId: string;
  /** SQL true, when the write batch runs, that the attempt passed (the submission was handed in) and its object is live. */
  passed: SQL;
}

/**
 * The score a settled attempt or an accepted submission gives the student, as SQL the write batch
 * evaluates after the source's own writes (the points award of `rating.scored-awards` reads it).
 */
export interface SettledScore {
  /** The quiz, exam or assignment, or SQL naming it. */
  objectId: string | SQL;
  studentId: string;
  /** Unique per scoring in the school: `quiz_attempt:<id>`, `exam_attempt:<id>`, `submission:<id>:<graded_at>`. */
  key: string;
  /** SQL: the score in hundredths of a percent (0..10000). */
  pct: SQL;
  /** SQL 1/0: passed; NULL (an assignment) lets the rule's threshold decide. */
  passed: SQL;
  /** SQL: the object's passing score in whole percent, or NULL (none). */
  passingScore: SQL;
  /** SQL true when the score is final and the source change took effect in this batch. */
  final: SQL;
}

/** A student's quiz attempt (outside an exam) or exam attempt settled in this batch. */
export interface AttemptSettled {
  type: "attempt.settled";
  attempt: "quiz" | "exam";
  attemptId: string;
  now: number;
  /** The batch finishes the attempt (a submit, a deadline, an exam's finish), rather than grading it. */
  finalized: boolean;
  score: SettledScore;
  completes: ReferenceCompletion;
}

/**
 * An attempt of `userId` was started, finished or (re)scored in this batch, in any role, inside an
 * exam section or not (a section's quiz attempt names its exam: `attempt` `exam`). The quiz's or
 * exam's analytics figures kept per member follow (docs/decisions/heavy-reads.md, "Analytics
 * aggregates"). A source emits it whether or not its own change happened: the contributors rebuild
 * the member's figures from the attempts as they are, so a refused or repeated change writes the
 * same figures again.
 */
export interface AttemptRecorded {
  type: "attempt.recorded";
  attempt: "quiz" | "exam";
  /** The quiz or exam id, or SQL naming it. */
  objectId: string | SQL;
  userId: string;
}

/** A student's submission turned `submitted` in this batch. */
export interface SubmissionSubmitted {
  type: "submission.submitted";
  submissionId: string;
  now: number;
  completes: ReferenceCompletion;
}

/** A curator's review accepted the student's submission in this batch (`when`), with its score. */
export interface SubmissionAccepted {
  type: "submission.accepted";
  submissionId: string;
  assignmentId: string;
  studentId: string;
  now: number;
  /** SQL true when this batch accepted it. */
  when: SQL;
  score: SettledScore;
}

/** A curator's review rejected the student's submission in this batch (`when`). */
export interface SubmissionRejected {
  type: "submission.rejected";
  submissionId: string;
  assignmentId: string;
  studentId: string;
  now: number;
  when: SQL;
}

/** A curator reopened the student's submission (back to draft) in this batch (`when`). */
export interface SubmissionReopened {
  type: "submission.reopened";
  submissionId: string;
  assignmentId: string;
  studentId: string;
  now: number;
  when: SQL;
}

/**
 * Where an access change came from: `direct` staff enrolled or removed students (a bulk enrollment,
 * a removal), `group` a group was linked to or unlinked from the course, `self` the student
 * enrolled themselves, `membership` students joined or left a group linked to courses.
 */
export type EnrollmentVia = "direct" | "group" | "self" | "membership";

/** One course's access change: `students` is a SELECT of the ids whose access to `courseId` it changed. */
interface CourseAccessChange {
  via: "direct" | "group" | "self";
  courseId: string;
  students: SQL;
  /** The group linked or unlinked, for `via: "group"`. */
  groupId?: string;
}

/**
 * A group membership change, which changes access to every course the group is linked to: `access`
 * is a SELECT of the `student_id, course_id` pairs it changed.
 */
interface MembershipAccessChange {
  via: "membership";
  groupId: string;
  access: SQL;
}

/**
 * Students got access to a course in this batch (their enrollment opened or restored), whoever gave
 * it. The students are SQL read where the source places the contributors' statements in its batch
 * (before its writes when it names those without access yet, after them when it names the
 * enrollments the batch opened); `when` must hold too. `enrollmentAccessSql` reads any of them as
 * the same pairs.
 */
export type EnrollmentCreated = { type: "enrollment.created"; now: number; when?: SQL } & (CourseAccessChange | MembershipAccessChange);

/**
 * Students lost their last access to a course in this batch (a direct enrollment removed, a group
 * unlinked, a group left): as `enrollment.created`; `now` is the `removed_at` stored.
 */
export type EnrollmentRemoved = { type: "enrollment.removed"; now: number; when?: SQL } & (CourseAccessChange | MembershipAccessChange);

/**
 * The `student_id, course_id` pairs an enrollment event changed, `when` included: one shape for
 * every source, for a statement at the place the source gives the event in its batch.
 */
export function enrollmentAccessSql(tenantId: string, event: EnrollmentCreated | EnrollmentRemoved): SQL {
  if (event.via === "membership") return sql`SELECT a.student_id, a.course_id FROM (${event.access}) a${event.when ? sql` WHERE (${event.when})` : sql``}`;
  return sql`SELECT u.id AS student_id, ${event.courseId} AS course_id FROM users u
    WHERE ${inSchool("u", tenantId)} AND u.id IN (${event.students})${event.when ? sql` AND (${event.when})` : sql``}`;
}

/**
 * Blocks of the student were completed in this batch (maybe none, when the conditions fail as the
 * batch runs) and the enrollments recounted: the courses listed may have been completed by it.
 * `completionId` names the one completion of a manual completion; otherwise the completions are
 * the student's of `source` stamped `now`.
 */
export interface BlockCompleted {
  type: "block.completed";
  source: CompletionSource;
  studentId: string;
  now: number;
  completionId?: string;
  /** `none`: the source made sure this batch completes no lesson (a manual completion's first batch). */
  lessons: "maybe" | "none";
  courses: readonly CompletableCourse[];
}

/**
 * The recount of this batch may have completed the student's enrollment in the course: `when` is
 * SQL true, as the write batch runs, when it did (the batch completed a block of the course and set
 * the enrollment's `completed_at`). Emitted by `courses.course-completion` for each course a
 * `block.completed` lists. `superseding` collects, from the contributors registered before
 * `courses.completion-pushes` (the path pushes), the SQL under which a push of theirs replaces the
 * course's own push to the student (#33) or to the curators (#34) (docs/domain-events.md,
 * "Superseding pushes").
 */
export interface CourseCompleted {
  type: "course.completed";
  courseId: string;
  enrollmentId: string;
  studentId: string;
  /** The published paths holding the course, as the source's read batch found them. */
  pathIds: readonly string[];
  when: SQL;
  readonly superseding: { student: SQL[]; curators: SQL[] };
}

/**
 * The student's completion of `courseId` in this batch unlocked the next course of a published
 * learning path (`when`). Emitted by `paths.path-progress`, one per path a `course.completed` lists.
 */
export interface PathCourseUnlocked {
  type: "path.course_unlocked";
  pathId: string;
  /** The course whose completion unlocked the next. */
  courseId: string;
  studentId: string;
  /** SQL: the course it unlocked (NULL: none). */
  unlockedCourseId: SQL;
  /** SQL true when this batch completed `courseId` and that unlocked a course. */
  when: SQL;
}

/**
 * The student's completion of `courseId` in this batch completed a published learning path
 * (`when`). Emitted by `paths.path-progress`, one per path a `course.completed` lists, after the
 * path's `path.course_unlocked`. `superseding` is the course completion's collector: a push of the
 * path's that replaces the course's own adds `completed` there (docs/domain-events.md,
 * "Superseding pushes").
 */
export interface PathCompleted {
  type: "path.completed";
  pathId: string;
  courseId: string;
  studentId: string;
  /** SQL: every course of the path is completed, `courseId` among them (the batch's condition left out). */
  completed: SQL;
  /** SQL true when this batch completed `courseId` and with it the path. */
  when: SQL;
  readonly superseding: CourseCompleted["superseding"];
}

/** The second-batch case of a manual completion that completes its lesson (docs/domain-events.md, "Second batch"). */
export const LESSON_COMPLETION = "lesson-completion";

export type ContentEvent =
  | AttemptSettled
  | AttemptRecorded
  | SubmissionSubmitted
  | SubmissionAccepted
  | SubmissionRejected
  | SubmissionReopened
  | EnrollmentCreated
  | EnrollmentRemoved
  | BlockCompleted
  | CourseCompleted
  | PathCourseUnlocked
  | PathCompleted;
export type ContentEventType = ContentEvent["type"];

export type ContentContributor = Contributor<EventCtx, ContentEvent, EventDefinition>;
export type ContentRegistry = ContributorRegistry<EventCtx, ContentEvent, EventDefinition>;

/** A contributor typed for the events it handles. */
export function contentContributor<T extends ContentEventType, R = unknown>(definition: {
  name: string;
  handles: readonly T[];
  emits?: readonly ContentEventType[];
  pushEvents?: readonly EventDefinition[];
  secondBatch?: string;
  prepare?(ctx: EventCtx, event: Extract<ContentEvent, { type: T }>): Preparation<R>;
  statements(ctx: EventCtx, event: Extract<ContentEvent, { type: T }>, prepared: R | undefined, emit: (event: ContentEvent) => void): Promise<BatchItem[]>;
}): ContentContributor {
  return definition as unknown as ContentContributor;
}

/** The context's registry, typed for content events; throws when the context carries none. */
export function contentRegistry(ctx: EventCtx): ContentRegistry {
  return requireRegistry<ContentRegistry>(ctx);
}

/**
 * The reads a source puts in its READ batch for an event it will emit: the settings of its own
 * pushes and of every push the event's contributors and cascades may enqueue (one statement per
 * event, as `prefetchSchoolEvents` reads them), then the contributors' own reads.
 */
export function prepareContentEvent(ctx: EventCtx, event: ContentEvent, ownPushes: readonly EventDefinition[] = []) {
  const registry = contentRegistry(ctx);
  const prefetch = prefetchSchoolEvents(ctx, ctx.tenantId, pushesFor(registry, event.type, ownPushes));
  const reads = prepareEvent(registry, ctx, event);
  return {
    /** The settings reads. */
    prefetch: prefetch.statements as BatchItem[],
    /** The contributors' reads. */
    reads: reads.statements,
    /** `prefetched` are the results of `prefetch`, `read` of `reads`. */
    read(prefetched: readonly unknown[], read: readonly unknown[]): PreparedEvent {
      prefetch.remember(prefetched);
      return reads.read(read);
    },
  };
}

function pushesFor(registry: ContentRegistry, type: ContentEventType, ownPushes: readonly EventDefinition[]): EventDefinition[] {
  const pushes = [...ownPushes];
  for (const push of pushEventsOf(registry, [type])) if (!pushes.includes(push)) pushes.push(push);
  return pushes;
}

/**
 * The push settings reads of a source that reads the facts of its event in the same batch as the
 * settings (a review, a reopen), so it cannot build the event first: its own pushes and its
 * contributors', as `prepareContentEvent` prefetches them. Only for event types whose contributors
 * prepare no reads: it throws otherwise, so a contributor's reads are never skipped.
 */
export function prefetchContentPushes(ctx: EventCtx, type: ContentEventType, ownPushes: readonly EventDefinition[] = []) {
  const registry = contentRegistry(ctx);
  const preparing = contributorsOf(registry, type).find((contributor) => contributor.prepare);
  if (preparing) throw new Error(`${type}: contributor ${preparing.name} prepares reads; its source must call prepareContentEvent`);
  return prefetchSchoolEvents(ctx, ctx.tenantId, pushesFor(registry, type, ownPushes));
}

/** The contributors' statements for an event the source emits (after the source's own statements). */
export function contentStatements(ctx: EventCtx, event: ContentEvent, prepared?: PreparedEvent): Promise<BatchItem[]> {
  return contributedStatements(contentRegistry(ctx), ctx, event, prepared);
}

/** Whether a contributor of the event type needs the source to make the case `reason` in a second batch. */
export function contentNeedsSecondBatch(ctx: EventCtx, type: ContentEventType, reason: string): boolean {
  return needsSecondBatch(contentRegistry(ctx), type, reason);
}
