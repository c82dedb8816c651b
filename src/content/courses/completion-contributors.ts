import { sql } from "drizzle-orm";
import type { BatchItem } from "../../core/db/batch";
import { inSchool } from "../../core/db/conditions";
import { contentContributor, LESSON_COMPLETION, type BlockCompleted, type EventCtx } from "../common/events";
import { COMPLETION_EVENTS, courseCompletionPushes } from "./completion-service";
import { referenceCompletion } from "./ref-completion";

/**
 * #33 to the student and #34 to the student's curators, written only when this batch inserted the
 * completion and set the enrollment's `completed_at` (it is set once, by the recount that follows
 * the insert, at or after `now`), unless the completion completes a learning path, whose pushes
 * replace them (#57 for #33, #58 for #34), written here too. The transition is the enrollment's,
 * so the dedupe key names the enrollment (`{code}:{enrollment_id}:{recipient_id}`): keyed by the
 * course, a curator would hear of only the first of their students to complete it. The student
 * acted, so the rule that the actor gets no push leaves #33 to completions the student did not
 * request (a quiz graded by a curator).
 */
async function completionPushes(ctx: EventCtx, event: BlockCompleted): Promise<BatchItem[]> {
  if (event.lessons === "none") return [];
  const out: BatchItem[] = [];
  for (const course of event.courses) {
    // This batch completed a block of the course (the manual one, or the source's of this instant) and its recount completed the enrollment.
    const completed =
      event.completionId !== undefined
        ? sql`EXISTS (SELECT 1 FROM block_completions nc WHERE nc.id = ${event.completionId} AND ${inSchool("nc", ctx.tenantId)})`
        : sql`EXISTS (SELECT 1 FROM block_completions nc WHERE ${inSchool("nc", ctx.tenantId)} AND nc.student_id = ${event.studentId}
        AND nc.course_id = ${course.courseId} AND nc.source = ${event.source} AND nc.completed_at = ${event.now})`;
    const when = sql`${completed}
      AND EXISTS (SELECT 1 FROM enrollments ce WHERE ce.id = ${course.enrollmentId} AND ${inSchool("ce", ctx.tenantId)} AND ce.completed_at >= ${event.now})`;
    out.push(...(await courseCompletionPushes(ctx, { id: course.courseId, enrollmentId: course.enrollmentId, pathIds: course.pathIds, studentId: event.studentId, when })));
  }
  return out;
}

export const courseCompletionPushesContributor = contentContributor({
  name: "courses.completion-pushes",
  handles: ["block.completed"],
  pushEvents: COMPLETION_EVENTS,
  secondBatch: LESSON_COMPLETION,
  statements: (ctx, event) => completionPushes(ctx, event),
});

/** The courses area's contributors, in the order app assembly registers them (src/contributors.ts). */
export const COURSES_CONTRIBUTORS = [referenceCompletion, courseCompletionPushesContributor];
