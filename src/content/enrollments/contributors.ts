import { eventDefinition } from "../../platform/notifications/catalog";
import { contentContributor } from "../common/events";
import { courseEnrolledPush, courseUnenrolledPush } from "./pushes";

/**
 * #31 `course.enrolled` / #32 `course.unenrolled` to the students an `enrollment.created` /
 * `enrollment.removed` names, whichever area gave or took the access (a direct enrollment, a
 * group's course link): one statement, at the place the source gives the event in its batch.
 */
export const accessPushesContributor = contentContributor({
  name: "enrollments.access-pushes",
  handles: ["enrollment.created", "enrollment.removed"],
  pushEvents: [eventDefinition("course.enrolled")!, eventDefinition("course.unenrolled")!],
  statements: async (ctx, event) => {
    const push = { courseId: event.courseId, students: event.students, now: event.now, ...(event.when ? { when: event.when } : {}) };
    return [await (event.type === "enrollment.created" ? courseEnrolledPush(ctx, push) : courseUnenrolledPush(ctx, push))];
  },
});

/** The enrollments area's contributors, in the order app assembly registers them (src/contributors.ts). */
export const ENROLLMENTS_CONTRIBUTORS = [accessPushesContributor];
