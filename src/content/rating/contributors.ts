import { contentContributor, LESSON_COMPLETION } from "../common/events";
import { completionAwards, RATING_RULE_EVENTS } from "./award";

/**
 * The lessons, modules and courses a `block.completed` batch completes earn their points
 * (`completionAwards`). Registered after `courses.completion-pushes`, so its statements follow the
 * source's recount (a course's award needs the enrollment the recount completed).
 */
export const completionAwardsContributor = contentContributor({
  name: "rating.completion-awards",
  handles: ["block.completed"],
  pushEvents: RATING_RULE_EVENTS,
  secondBatch: LESSON_COMPLETION,
  statements: async (ctx, event) => (event.lessons === "none" ? [] : completionAwards(ctx, { studentId: event.studentId, now: event.now })),
});

/** The rating area's contributors, in the order app assembly registers them (src/contributors.ts). */
export const RATING_CONTRIBUTORS = [completionAwardsContributor];
