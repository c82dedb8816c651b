import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { appWithContributors } from "../../src/app";
import { contentContributor, enrollmentAccessSql } from "../../src/content/common/events";
import { CONTRIBUTORS } from "../../src/contributors";
import { batchable } from "../../src/core/db/batch";
import { contributorRegistry, type ContributorRegistry } from "../../src/core/events";
import { insertCourseTree, insertEnrollment } from "../helpers/courses";
import { failure } from "../helpers/http";
import { probedCall } from "../helpers/probe";
import { addMember, createGroup, schoolWithAdmin, signedIn, type Member } from "../helpers/users";
import { addPushDevice, outboxRows } from "../notifications/helpers";

/**
 * Every access change announces `enrollment.created` / `enrollment.removed` (docs/domain-events.md,
 * "Events"): a probe contributor registered after the app's selects the pairs each event names, in
 * the source's own batch, so the rows it reads are the access the batch changed. A repeated or
 * refused change yields none, and the app's own contributors keep writing what they wrote.
 */

type Row = [type: string, via: string, studentId: string, courseId: string];

const probe = contentContributor({
  name: "test.access-probe",
  handles: ["enrollment.created", "enrollment.removed"],
  statements: async (ctx, event) => [
    batchable(
      ctx,
      sql`SELECT 'access-probe' AS probe, ${event.type} AS type, ${event.via} AS via, a.student_id, a.course_id
        FROM (${enrollmentAccessSql(ctx.tenantId, event)}) a ORDER BY a.student_id, a.course_id`,
    ),
  ],
});

const probeApp = appWithContributors(contributorRegistry([...CONTRIBUTORS.contributors, probe]) as unknown as ContributorRegistry);

/** A /t/* request as the member through the probe app: its response and the probe's rows. */
async function call(member: Member, path: string, init: { method?: string; body?: unknown } = {}) {
  const { res, rows } = await probedCall(probeApp, "access-probe", member, path, init);
  return { res, rows: rows.map((row) => [row.type, row.via, row.student_id, row.course_id] as Row) };
}

describe("enrollment.created / enrollment.removed for every access change", () => {
  it("a student's own enrollment: once when it opens or restores, never for an active one or a refused one; no #31", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    await addPushDevice(school.id, student.id);
    const course = await insertCourseTree(school.id);
    const draft = await insertCourseTree(school.id, { status: "draft" });

    const first = await call(student, `/t/courses/${course.courseId}/enroll`, { method: "POST" });
    expect(first.res.status).toBe(201);
    expect(first.rows).toEqual([["enrollment.created", "self", student.id, course.courseId]]);

    const again = await call(student, `/t/courses/${course.courseId}/enroll`, { method: "POST" });
    expect(again.res.status).toBe(200);
    expect(again.rows).toEqual([]);

    const refused = await call(student, `/t/courses/${draft.courseId}/enroll`, { method: "POST" });
    expect(failure(refused.res)).toEqual({ status: 404, error: "course_not_found" });
    expect(refused.rows).toEqual([]);

    const removed = await call(admin, `/t/courses/${course.courseId}/enrollments/${student.id}`, { method: "DELETE" });
    expect(removed.res.status).toBe(204);
    expect(removed.rows).toEqual([["enrollment.removed", "direct", student.id, course.courseId]]);

    const restored = await call(student, `/t/courses/${course.courseId}/enroll`, { method: "POST" });
    expect(restored.res.status).toBe(200);
    expect(restored.rows).toEqual([["enrollment.created", "self", student.id, course.courseId]]);
    // A student's own enrollment sends no #31 (the removal's #32 is off by default).
    expect((await outboxRows(school.id)).map((row) => row.eventCode)).toEqual([]);
  });

  it("a direct enrollment and its removal: the students whose access changed, none for a repeat or a refusal", async () => {
    const { school, admin } = await schoolWithAdmin();
    const [fresh, enrolled] = [await signedIn(school, { role: "student" }), await signedIn(school, { role: "student" })];
    const course = await insertCourseTree(school.id);
    await insertEnrollment(school.id, course.courseId, enrolled.id);

    const bulk = await call(admin, `/t/courses/${course.courseId}/enroll/bulk`, { body: { student_ids: [fresh.id, enrolled.id] } });
    expect(bulk.res.status).toBe(200);
    expect(bulk.rows).toEqual([["enrollment.created", "direct", fresh.id, course.courseId]]);
    const repeat = await call(admin, `/t/courses/${course.courseId}/enroll/bulk`, { body: { student_ids: [fresh.id, enrolled.id] } });
    expect(repeat.res.status).toBe(200);
    expect(repeat.rows).toEqual([]);

    const removal = await call(admin, `/t/courses/${course.courseId}/enrollments/${fresh.id}`, { method: "DELETE" });
    expect(removal.res.status).toBe(204);
    expect(removal.rows).toEqual([["enrollment.removed", "direct", fresh.id, course.courseId]]);
    const removedAgain = await call(admin, `/t/courses/${course.courseId}/enrollments/${fresh.id}`, { method: "DELETE" });
    expect(failure(removedAgain.res)).toEqual({ status: 404, error: "enrollment_not_found" });
    expect(removedAgain.rows).toEqual([]);
  });

  it("a group's course link and unlink: the members without other access, none for a repeat or a refusal", async () => {
    const { school, admin } = await schoolWithAdmin();
    const [member, direct] = [await signedIn(school, { role: "student" }), await signedIn(school, { role: "student" })];
    const course = await insertCourseTree(school.id);
    const draft = await insertCourseTree(school.id, { status: "draft" });
    const group = await createGroup(school.id);
    await addMember(group, member.id);
    await addMember(group, direct.id);
    await insertEnrollment(school.id, course.courseId, direct.id);

    const link = await call(admin, `/t/courses/${course.courseId}/group-enrollments`, { body: { group_id: group.id } });
    expect(link.res.status).toBe(201);
    expect(link.rows).toEqual([["enrollment.created", "group", member.id, course.courseId]]);
    const relink = await call(admin, `/t/courses/${course.courseId}/group-enrollments`, { body: { group_id: group.id } });
    expect(relink.res.status).toBe(200);
    expect(relink.rows).toEqual([]);
    const refused = await call(admin, `/t/courses/${draft.courseId}/group-enrollments`, { body: { group_id: group.id } });
    expect(failure(refused.res)).toEqual({ status: 404, error: "course_not_found" });
    expect(refused.rows).toEqual([]);

    const unlink = await call(admin, `/t/courses/${course.courseId}/group-enrollments/${group.id}`, { method: "DELETE" });
    expect(unlink.res.status).toBe(200);
    // The member with a direct enrollment keeps the access.
    expect(unlink.rows).toEqual([["enrollment.removed", "group", member.id, course.courseId]]);
    const unlinkAgain = await call(admin, `/t/courses/${course.courseId}/group-enrollments/${group.id}`, { method: "DELETE" });
    expect(failure(unlinkAgain.res)).toEqual({ status: 404, error: "course_group_enrollment_not_found" });
    expect(unlinkAgain.rows).toEqual([]);
  });

  it("a group membership change: one pair per student and linked course whose access it changed, none for a repeat or a refusal; no #31/#32", async () => {
    const { school, admin } = await schoolWithAdmin();
    const [joiner, direct] = [await signedIn(school, { role: "student" }), await signedIn(school, { role: "student" })];
    await addPushDevice(school.id, joiner.id);
    const [first, second] = [await insertCourseTree(school.id), await insertCourseTree(school.id)];
    const group = await createGroup(school.id);
    for (const course of [first, second]) {
      expect((await call(admin, `/t/courses/${course.courseId}/group-enrollments`, { body: { group_id: group.id } })).res.status).toBe(201);
    }
    await insertEnrollment(school.id, first.courseId, direct.id);
    const pairs = (type: string, list: [string, string][]) =>
      list.map(([studentId, courseId]) => [type, "membership", studentId, courseId]).sort((a, b) => `${a[2]}${a[3]}`.localeCompare(`${b[2]}${b[3]}`));

    const added = await call(admin, `/t/groups/${group.id}/members`, { body: { student_ids: [joiner.id, direct.id] } });
    expect(added.res.status).toBe(200);
    expect(added.rows).toEqual(
      pairs("enrollment.created", [
        [joiner.id, first.courseId],
        [joiner.id, second.courseId],
        [direct.id, second.courseId],
      ]),
    );
    const addedAgain = await call(admin, `/t/groups/${group.id}/members`, { body: { student_ids: [joiner.id, direct.id] } });
    expect(addedAgain.res.status).toBe(200);
    expect(addedAgain.rows).toEqual([]);

    const outsider = await signedIn(school, { role: "student" });
    const refused = await call(admin, `/t/groups/${group.id}/members`, { method: "DELETE", body: { student_ids: [joiner.id, outsider.id] } });
    expect(failure(refused.res)).toEqual({ status: 404, error: "member_not_found" });
    expect(refused.rows).toEqual([]);

    const removed = await call(admin, `/t/groups/${group.id}/members`, { method: "DELETE", body: { student_ids: [joiner.id, direct.id] } });
    expect(removed.res.status).toBe(200);
    // The direct enrollment in the first course stays.
    expect(removed.rows).toEqual(
      pairs("enrollment.removed", [
        [joiner.id, first.courseId],
        [joiner.id, second.courseId],
        [direct.id, second.courseId],
      ]),
    );
    // A membership change sends its group pushes, never #31/#32.
    expect((await outboxRows(school.id)).map((row) => row.eventCode).filter((code) => code.startsWith("course."))).toEqual([]);
  });
});
