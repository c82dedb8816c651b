import { contentContributor } from "../common/events";
import { PATH_COMPLETION_EVENTS, pathCompletionPushes } from "./completion-pushes";

/**
 * The learning-path pushes of a course completion (#56 path.course_unlocked, #57 path.completed,
 * #58 path.student_completed). A completion that completes a path replaces the course's own
 * pushes (#57 for #33, #58 for #34) when the school has the path event on: this contributor
 * reports that condition in the event's `superseding`, so it is registered before
 * `courses.completion-pushes`, which reads it (docs/domain-events.md, "Superseding pushes").
 */
export const pathCompletionPushesContributor = contentContributor({
  name: "paths.completion-pushes",
  handles: ["course.completed"],
  pushEvents: PATH_COMPLETION_EVENTS,
  statements: async (ctx, event) => {
    const paths = await pathCompletionPushes(ctx, { courseId: event.courseId, studentId: event.studentId, pathIds: event.pathIds, when: event.when });
    if (paths.supersedesStudentPush) event.superseding.student.push(paths.supersedesStudentPush);
    if (paths.supersedesCuratorPush) event.superseding.curators.push(paths.supersedesCuratorPush);
    return paths.statements;
  },
});

/** The paths area's contributors, in the order app assembly registers them (src/contributors.ts). */
export const PATHS_CONTRIBUTORS = [pathCompletionPushesContributor];
