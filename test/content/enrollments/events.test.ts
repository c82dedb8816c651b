import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";
import { insertCourseTree, insertEnrollment, insertGroupSource } from "../../helpers/courses";
import { createUser, db } from "../../helpers/factories";
import { createGroup, schoolWithAdmin, signedIn } from "../../helpers/users";
import { addPushDevice, call, outboxRows } from "../../notifications/helpers";
import { bulk, enroll, unenroll } from "./helpers";

const setEvent = (admin: { token: string; subdomain: string }, code: string, enabled: boolean) =>
  call(admin, `/t/notifications/admin/events/${code}`, { method: "PATCH", body: { enabled } });

async function rowsOf(tenantId: string, code: string) {
  return (await outboxRows(tenantId)).filter((row) => row.eventCode === code);
}

/** A student with an enabled push device, so pushes can reach them. */
async function reachableStudent(tenantId: string, firstName = "Student") {
  const student = await createUser(tenantId, { role: "student", firstName });
  await addPushDevice(tenantId, student.id);
  return student;
}

describe("course.enrolled (#31)", () => {
  it("one push per student who got new access through bulk enrollment (restored included); none on a retry", async () => {
    const { school, admin } = await schoolWithAdmin();
    await addPushDevice(school.id, admin.id);
    const tree = await insertCourseTree(school.id, { title: "Algebra" });
    const fresh = await reachableStudent(school.id);
    const already = await reachableStudent(school.id);
    const returning = await reachableStudent(school.id);
    const unreachable = await createUser(school.id, { role: "student" });
    await insertEnrollment(school.id, tree.courseId, already.id);
    const oldId = await insertEnrollment(school.id, tree.courseId, returning.id);
    await db().delete(schema.enrollmentSources).where(eq(schema.enrollmentSources.enrollmentId, oldId));
    await db().update(schema.enrollments).set({ removedAt: Date.now() - 5000 }).where(eq(schema.enrollments.id, oldId));

    const ids = [fresh.id, already.id, returning.id, unreachable.id, admin.id];
    const res = await bulk(admin, tree.courseId, ids);
    expect(res.body.data.enrolled).toEqual([fresh.id, returning.id, unreachable.id]);
    const rows = await rowsOf(school.id, "course.enrolled");
    // The student without a push device gets no row; the acting admin is no student (and never the recipient).
    expect(rows.map((row) => row.userId).sort()).toEqual([fresh.id, returning.id].sort());
    const enrolledAt = (await db().select().from(schema.enrollments).where(eq(schema.enrollments.id, oldId)))[0]!.enrolledAt;
    for (const row of rows) {
      expect(row).toMatchObject({
        title: "Новый курс",
        body: "Вы записаны на курс «Algebra».",
        aggregateType: "course",
        aggregateId: tree.courseId,
        dedupeKey: `course.enrolled:${tree.courseId}:${enrolledAt}:${row.userId}`,
        data: { event_code: "course.enrolled", course_id: tree.courseId, course_title: "Algebra" },
      });
    }
    // A retried request finds everyone enrolled: nothing more.
    expect((await bulk(admin, tree.courseId, ids)).body.data.enrolled_count).toBe(0);
    expect(await rowsOf(school.id, "course.enrolled")).toHaveLength(2);
  });

  it("a removed and restored student is told again; a self-enrollment tells nobody", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id);
    const student = await reachableStudent(school.id);
    expect((await bulk(admin, tree.courseId, [student.id])).body.data.enrolled_count).toBe(1);
    expect((await unenroll(admin, tree.courseId, student.id)).status).toBe(204);
    expect((await bulk(admin, tree.courseId, [student.id])).body.data.enrolled_count).toBe(1);
    expect((await rowsOf(school.id, "course.enrolled")).map((row) => row.userId)).toEqual([student.id, student.id]);

    const self = await signedIn(school, { role: "student" });
    await addPushDevice(school.id, self.id);
    expect((await enroll(self, tree.courseId)).status).toBe(201);
    expect((await rowsOf(school.id, "course.enrolled")).filter((row) => row.userId === self.id)).toEqual([]);
  });

  it("nothing when the school turned the event off, or for a draft course", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id);
    const draft = await insertCourseTree(school.id, { status: "draft" });
    const student = await reachableStudent(school.id);
    expect((await bulk(admin, draft.courseId, [student.id])).body.data.enrolled_count).toBe(0);
    expect((await setEvent(admin, "course.enrolled", false)).status).toBe(200);
    expect((await bulk(admin, tree.courseId, [student.id])).body.data.enrolled_count).toBe(1);
    expect(await rowsOf(school.id, "course.enrolled")).toEqual([]);
  });
});

describe("course.unenrolled (#32)", () => {
  it("off by default; when on, only the removal of the last source tells the student, once", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id, { title: "Biology" });
    const quiet = await reachableStudent(school.id);
    await insertEnrollment(school.id, tree.courseId, quiet.id);
    expect((await unenroll(admin, tree.courseId, quiet.id)).status).toBe(204);
    expect(await rowsOf(school.id, "course.unenrolled")).toEqual([]);

    expect((await setEvent(admin, "course.unenrolled", true)).status).toBe(200);
    const direct = await reachableStudent(school.id);
    const both = await reachableStudent(school.id);
    await insertEnrollment(school.id, tree.courseId, direct.id);
    const bothId = await insertEnrollment(school.id, tree.courseId, both.id);
    await insertGroupSource(school.id, bothId, tree.courseId, both.id, (await createGroup(school.id)).id);

    // The group keeps the second student enrolled: no push.
    expect((await unenroll(admin, tree.courseId, both.id)).status).toBe(204);
    expect((await unenroll(admin, tree.courseId, direct.id)).status).toBe(204);
    expect((await unenroll(admin, tree.courseId, direct.id)).status).toBe(404);
    const rows = await rowsOf(school.id, "course.unenrolled");
    const [removed] = await db().select().from(schema.enrollments).where(eq(schema.enrollments.studentId, direct.id));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      userId: direct.id,
      title: "Доступ к курсу закрыт",
      body: "Вы больше не записаны на курс «Biology».",
      aggregateId: tree.courseId,
      dedupeKey: `course.unenrolled:${tree.courseId}:${removed!.removedAt}:${direct.id}`,
    });
  });
});
