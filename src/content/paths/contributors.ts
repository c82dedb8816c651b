import { contentContributor } from "../common/events";
import { courseUnlockedPush, PATH_COMPLETED_EVENTS, PATH_UNLOCK_EVENTS, pathCompletedPushes, pathEvents, reportSuperseding } from "./completion-pushes";

/**
 * What a course completion means for the student's learning paths: for each published path
 * holding the course, `path.course_unlocked` then `path.completed` (docs/domain-events.md,
 * "Events"). Writes nothing itself; the paths' pushes are the contributors of those events.
 */
export const pathProgressContributor = contentContributor({
  name: "paths.path-progress",
  handles: ["course.completed"],
  emits: ["path.course_unlocked", "path.completed"],
  statements: async (ctx, event, _prepared, emit) => {
    for (const next of pathEvents(ctx.tenantId, event)) emit(next);
    return [];
  },
});

/** #56 path.course_unlocked to the student. */
export const pathUnlockPushesContributor = contentContributor({
  name: "paths.unlock-pushes",
  handles: ["path.course_unlocked"],
  pushEvents: PATH_UNLOCK_EVENTS,
  statements: async (ctx, event) => [await courseUnlockedPush(ctx, event)],
});

/**
 * #57 path.completed to the student and #58 path.student_completed to the curators. A completion
 * that completes a path replaces the course's own pushes (#57 for #33, #58 for #34) when the school
 * has the path event on: this contributor reports that condition in the course completion's
 * `superseding`, which its event carries, so the paths' contributors are registered before
 * `courses.completion-pushes`, which reads it (docs/domain-events.md, "Superseding pushes").
 */
export const pathCompletionPushesContributor = contentContributor({
  name: "paths.completion-pushes",
  handles: ["path.completed"],
  pushEvents: PATH_COMPLETED_EVENTS,
  statements: async (ctx, event) => {
    await reportSuperseding(ctx, event);
    return pathCompletedPushes(ctx, event);
  },
});

/** The paths area's contributors, in the order app assembly registers them (src/contributors.ts). */
export const PATHS_CONTRIBUTORS = [pathProgressContributor, pathUnlockPushesContributor, pathCompletionPushesContributor];
