import { sql } from "drizzle-orm";
import { inSchool } from "../../core/db/conditions";
import { contentContributor, LESSON_COMPLETION, type BlockCompleted, type ContentEvent, type EventCtx } from "../common/events";
import { COMPLETION_EVENTS, courseCompletionPushes } from "./completion-service";
import { referenceCompletion } from "./ref-completion";

/**
 * For each course a `block.completed` lists, `course.completed` with the SQL that holds when this
 * batch inserted the completion and its recount set the enrollment's `completed_at` (set once, at
 * or after `now`). Its contributors write the path pushes (`paths.completion-pushes`) and then the
 * course's own (`courses.completion-pushes`), which the path pushes may replace.
 */
function emitCourseCompletions(ctx: EventCtx, event: BlockCompleted, emit: (event: ContentEvent) => void): void {
  if (event.lessons === "none") return;
  for (const course of event.courses) {
    // This batch completed a block of the course (the manual one, or the source's of this instant) and its recount completed the enrollment.
    const completed =
      event.completionId !== undefined
        ? sql`EXISTS (SELECT 1 FROM block_completions nc WHERE nc.id = ${event.completionId} AND ${inSchool("nc", ctx.tenantId)})`
        : sql`EXISTS (SELECT 1 FROM block_completions nc WHERE ${inSchool("nc", ctx.tenantId)} AND nc.student_id = ${event.studentId}
        AND nc.course_id = ${course.courseId} AND nc.source = ${event.source} AND nc.completed_at = ${event.now})`;
    const when = sql`${completed}
      AND EXISTS (SELECT 1 FROM enrollments ce WHERE ce.id = ${course.enrollmentId} AND ${inSchool("ce", ctx.tenantId)} AND ce.completed_at >= ${event.now})`;
    emit({
      type: "course.completed",
      courseId: course.courseId,
      enrollmentId: course.enrollmentId,
      studentId: event.studentId,
      pathIds: course.pathIds,
      when,
      superseding: { student: [], curators: [] },
    });
  }
}

/**
 * The course completion as an event. Its pushes need the course and its paths read before the
 * batch that completes, hence the second batch of a lesson completion (docs/domain-events.md,
 * "Second batch").
 */
export const courseCompletionContributor = contentContributor({
  name: "courses.course-completion",
  handles: ["block.completed"],
  emits: ["course.completed"],
  secondBatch: LESSON_COMPLETION,
  statements: async (ctx, event, _prepared, emit) => {
    emitCourseCompletions(ctx, event, emit);
    return [];
  },
});

/**
 * #33 to the student and #34 to the student's curators. The transition is the enrollment's, so the
 * dedupe key names the enrollment (`{code}:{enrollment_id}:{recipient_id}`): keyed by the course, a
 * curator would hear of only the first of their students to complete it. The student acted, so the
 * rule that the actor gets no push leaves #33 to completions the student did not request (a quiz
 * graded by a curator). Registered after the contributors that may supersede them (the path pushes).
 */
export const courseCompletionPushesContributor = contentContributor({
  name: "courses.completion-pushes",
  handles: ["course.completed"],
  pushEvents: COMPLETION_EVENTS,
  statements: (ctx, event) => courseCompletionPushes(ctx, event),
});

/** The courses area's contributors, in the order app assembly registers them (src/contributors.ts). */
export const COURSES_COMPLETION_CONTRIBUTORS = [referenceCompletion, courseCompletionContributor];
/** Registered after the path pushes (src/contributors.ts), which may replace them. */
export const COURSES_PUSH_CONTRIBUTORS = [courseCompletionPushesContributor];
