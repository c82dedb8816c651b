import { describe, expect, it } from "vitest";
import { app } from "../../../src/app";
import { insertCourseTree, insertEnrollment } from "../../helpers/courses";
import { countingD1 } from "../../helpers/d1-counter";
import { createUser } from "../../helpers/factories";
import { as, schoolWithAdmin, signedIn, type Member } from "../../helpers/users";
import { schoolD1 } from "../../helpers/databases";
import { envWith } from "../../helpers/wrapped-d1";

/** The request through the app with a D1 binding that counts what it is asked for. */
async function counted(member: Member, path: string, method = "GET") {
  const counting = countingD1(await schoolD1(member.tenantId));
  const response = await app.request(
    `https://api.lms.localhost/api/v1${path}`,
    { method, headers: { authorization: `Bearer ${member.token}`, "x-tenant-subdomain": member.subdomain } },
    envWith(counting.db),
  );
  await response.arrayBuffer();
  return { status: response.status, counts: { ...counting.counts } };
}

describe("D1 work of the enrollment endpoints", () => {
  it("self-enrollment: the auth query and one batch of five statements", async () => {
    const { school } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    const tree = await insertCourseTree(school.id, { shape: [3, 3, 3] });
    expect(await counted(student, `/t/courses/${tree.courseId}/enroll`, "POST")).toEqual({ status: 201, counts: { prepare: 6, batch: 1, exec: 0 } });
    expect(await counted(student, `/t/courses/${tree.courseId}/enroll`, "POST")).toEqual({ status: 200, counts: { prepare: 6, batch: 1, exec: 0 } });
  });

  it("removal: the auth query, the push settings and one batch of five statements (the audit entry included)", async () => {
    const { school, admin } = await schoolWithAdmin();
    // On, so the push statement is a real one (course.unenrolled is off by default).
    await as(admin, "/t/notifications/admin/events/course.unenrolled", { method: "PATCH", body: { enabled: true } });
    const tree = await insertCourseTree(school.id);
    const student = await createUser(school.id, { role: "student" });
    await insertEnrollment(school.id, tree.courseId, student.id);
    expect(await counted(admin, `/t/courses/${tree.courseId}/enrollments/${student.id}`, "DELETE")).toEqual({ status: 204, counts: { prepare: 7, batch: 1, exec: 0 } });
  });

  it("my courses: the auth query and one statement", async () => {
    const { school } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    for (let i = 0; i < 3; i++) await insertEnrollment(school.id, (await insertCourseTree(school.id)).courseId, student.id);
    expect(await counted(student, "/t/me/courses")).toEqual({ status: 200, counts: { prepare: 2, batch: 0, exec: 0 } });
  });
});
