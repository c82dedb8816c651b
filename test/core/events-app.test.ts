import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { contentContributor, type ContentEvent } from "../../src/content/common/events";
import { bulkEnroll, removeEnrollment } from "../../src/content/enrollments/enroll-service";
import { reviewSubmission } from "../../src/content/submissions/review-service";
import { CONTRIBUTORS } from "../../src/contributors";
import type { Env } from "../../src/core/env";
import { contributorRegistry, type ContributorRegistry } from "../../src/core/events";
import type { SchoolCtx } from "../../src/core/http/context";
import { serviceContext } from "../../src/core/http/request-context";
import * as schema from "../../src/db/schema";
import { enrollmentOf, insertCourseTree } from "../helpers/courses";
import { db } from "../helpers/factories";
import { schoolCtx } from "../helpers/school-ctx";
import { as, schoolWithAdmin, signedIn } from "../helpers/users";
import { addPushDevice, outboxRows } from "../notifications/helpers";
import { draftOf, submissionSchool, submit } from "../content/submissions/helpers";

/**
 * The app's registry in the contexts that reach the sources (docs/domain-events.md, "The registry
 * travels in the context"): no context is built without it, a source reached through one that has
 * none throws before writing anything, and a contributor registered next to the app's sees every
 * event a converted source announces, with the ids a later consumer (audit, webhooks) needs.
 */

/** The admin's own school context, with `contributors` as given. */
async function adminCtx(tenantId: string, adminId: string, contributors: unknown): Promise<SchoolCtx> {
  const ctx = await schoolCtx(tenantId, { actor: "member" });
  return { ...ctx, actor: { ...ctx.actor, userId: adminId }, contributors } as SchoolCtx;
}

/** The app's contributors and, last, one that records the events it sees and writes nothing. */
function recording(): { registry: ContributorRegistry; seen: ContentEvent[] } {
  const seen: ContentEvent[] = [];
  const recorder = contentContributor({
    name: "test.recorder",
    handles: ["submission.accepted", "submission.rejected", "submission.reopened", "enrollment.created", "enrollment.removed"],
    statements: async (_ctx, event) => {
      seen.push(event);
      return [];
    },
  });
  return { registry: contributorRegistry([...CONTRIBUTORS.contributors, recorder]) as ContributorRegistry, seen };
}

describe("the contributors' registry in every context", () => {
  it("serviceContext refuses to build a context without the registry", () => {
    expect(() => serviceContext(env as Env, undefined as unknown as ContributorRegistry)).toThrow("serviceContext needs the contributors' registry (src/contributors.ts)");
  });

  it("a source reached through a context without the registry throws and writes nothing, where the app's registry enrolls and pushes", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    await addPushDevice(school.id, student.id);
    const tree = await insertCourseTree(school.id);

    const bare = await adminCtx(school.id, admin.id, undefined);
    await expect(bulkEnroll(bare, { courseId: tree.courseId, studentIds: [student.id] })).rejects.toThrow(
      "domain event emitted through a context without the contributors' registry (src/contributors.ts): its contributors would be skipped",
    );
    expect(await enrollmentOf(tree.courseId, student.id)).toBeUndefined();
    expect((await outboxRows(school.id)).map((row) => row.eventCode)).toEqual([]);

    const app = await adminCtx(school.id, admin.id, CONTRIBUTORS);
    expect(await bulkEnroll(app, { courseId: tree.courseId, studentIds: [student.id] })).toEqual({ enrolled: [student.id], skipped: [], enrolled_count: 1, skipped_count: 0 });
    expect((await enrollmentOf(tree.courseId, student.id))?.removedAt).toBeNull();
    expect((await outboxRows(school.id)).map((row) => [row.eventCode, row.userId])).toEqual([["course.enrolled", student.id]]);
  });
});

describe("a contributor plugged in next to the app's", () => {
  it("sees enrollment.created and enrollment.removed with the course, the students and the batch's instant", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    await addPushDevice(school.id, student.id);
    // #32 is off by default.
    expect((await as(admin, "/t/notifications/admin/events/course.unenrolled", { method: "PATCH", body: { enabled: true } })).status).toBe(200);
    const tree = await insertCourseTree(school.id);
    const { registry, seen } = recording();
    const ctx = await adminCtx(school.id, admin.id, registry);

    await bulkEnroll(ctx, { courseId: tree.courseId, studentIds: [student.id] });
    await removeEnrollment(ctx, { courseId: tree.courseId, studentId: student.id });
    const enrollment = await enrollmentOf(tree.courseId, student.id);
    expect(seen.map((event) => [event.type, "courseId" in event ? event.courseId : null, "via" in event ? event.via : null, "now" in event ? event.now : null])).toEqual([
      ["enrollment.created", tree.courseId, "direct", enrollment!.enrolledAt],
      ["enrollment.removed", tree.courseId, "direct", enrollment!.removedAt],
    ]);
    // The app's own contributor still wrote both pushes.
    expect((await outboxRows(school.id)).map((row) => row.eventCode).sort()).toEqual(["course.enrolled", "course.unenrolled"]);
  });

  it("sees submission.accepted with its score key, alongside the points rating.scored-awards writes in the same batch", async () => {
    const base = await submissionSchool({ maxScoreHundredths: 1000 });
    const draft = await draftOf(base.student, base.assignment.id);
    expect((await submit(base.student, draft.id)).status).toBe(200);
    const { registry, seen } = recording();
    const ctx = await adminCtx(base.school.id, base.admin.id, registry);

    await reviewSubmission(ctx, { id: draft.id, body: { status: "accepted", score: "10.00" } });
    const [row] = await db().select().from(schema.submissions).where(eq(schema.submissions.id, draft.id));
    expect(seen.map((event) => [event.type, "submissionId" in event ? event.submissionId : null, "assignmentId" in event ? event.assignmentId : null, "now" in event ? event.now : null])).toEqual([
      ["submission.accepted", draft.id, base.assignment.id, row!.gradedAt],
    ]);
    expect(seen[0]!.type === "submission.accepted" && seen[0]!.score.key).toBe(`submission:${draft.id}:${row!.gradedAt}`);
    const points = await db().select().from(schema.pointEvents).where(eq(schema.pointEvents.studentId, base.student.id));
    expect(points.map((event) => [event.sourceType, event.sourceKey])).toEqual([["assignment", `submission:${draft.id}:${row!.gradedAt}`]]);
  });
});
