import { eventDefinition } from "../../platform/notifications/catalog";
import { contentContributor } from "../common/events";
import { courseEnrolledPush, courseUnenrolledPush } from "./pushes";

/**
 * #31 `course.enrolled` / #32 `course.unenrolled` to the students an `enrollment.created` /
 * `enrollment.removed` names, when staff gave or took the access (a direct enrollment, a group's
 * course link): one statement, at the place the source gives the event in its batch. A student's
 * own enrollment and a group membership change send no #31/#32 (the membership change has its own
 * group pushes), so this contributor writes nothing for them (docs/domain-events.md, "Access
 * pushes are the enrollments area's contributor").
 */
export const accessPushesContributor = contentContributor({
  name: "enrollments.access-pushes",
  handles: ["enrollment.created", "enrollment.removed"],
  pushEvents: [eventDefinition("course.enrolled")!, eventDefinition("course.unenrolled")!],
  statements: async (ctx, event) => {
    if (event.via === "self" || event.via === "membership") return [];
    const push = { courseId: event.courseId, students: event.students, now: event.now, ...(event.when ? { when: event.when } : {}) };
    return [await (event.type === "enrollment.created" ? courseEnrolledPush(ctx, push) : courseUnenrolledPush(ctx, push))];
  },
});

/** The enrollments area's contributors, in the order app assembly registers them (src/contributors.ts). */
export const ENROLLMENTS_CONTRIBUTORS = [accessPushesContributor];
