import { describe, expect, it } from "vitest";
import { app } from "../../../src/app";
import { countingD1 } from "../../helpers/d1-counter";
import { insertCourseTree, insertEnrollment } from "../../helpers/courses";
import { schoolWithAdmin, signedIn, type Member } from "../../helpers/users";
import { fixtureD1, schoolD1 } from "../../helpers/databases";
import { envWith } from "../../helpers/wrapped-d1";

/** Runs one request through the app with a D1 binding that counts what the request asks of it. */
async function counted(member: Member, path: string, method = "GET") {
  const counting = countingD1(await schoolD1(member.tenantId));
  const response = await app.request(
    `https://api.lms.localhost/api/v1${path}`,
    { method, headers: { authorization: `Bearer ${member.token}`, "x-tenant-subdomain": member.subdomain } },
    envWith(counting.db),
  );
  return { status: response.status, body: (await response.json()) as any, counts: { ...counting.counts } };
}

/** A school with `n` published courses of two blocks each; the student is enrolled in every other one. */
async function schoolWithCourses(n: number) {
  const { school, admin } = await schoolWithAdmin();
  const student = await signedIn(school, { role: "student" });
  const courseIds: string[] = [];
  for (let i = 0; i < n; i++) {
    const tree = await insertCourseTree(school.id, { shape: [1, 2, 1] });
    courseIds.push(tree.courseId);
    if (i % 2 === 0) await insertEnrollment(school.id, tree.courseId, student.id, { totalBlocks: 2 });
  }
  return { school, admin, student, courseIds };
}

describe("course reads: D1 round trips", () => {
  it("GET /t/courses?limit=20 as a student: the auth query and one batch (counts and page), whatever the number of rows", async () => {
    const small = await schoolWithCourses(2);
    const big = await schoolWithCourses(30);
    const smallRun = await counted(small.student, "/t/courses?limit=20");
    const bigRun = await counted(big.student, "/t/courses?limit=20");
    expect(smallRun.status).toBe(200);
    expect(bigRun.status).toBe(200);
    expect(bigRun.body.data.courses).toHaveLength(20);
    expect(bigRun.body.data.total).toBe(30);
    expect(bigRun.body.data.courses.filter((course: { auth_has_access: boolean }) => course.auth_has_access)).toHaveLength(10);
    // Auth (1 statement), then one batch of two statements: 2 round trips.
    expect(bigRun.counts).toEqual({ prepare: 3, batch: 1, exec: 0 });
    expect(smallRun.counts).toEqual(bigRun.counts);
    const staffRun = await counted(big.admin, "/t/courses?limit=100");
    expect(staffRun.counts).toEqual({ prepare: 3, batch: 1, exec: 0 });
  });

  it("GET /t/courses/:id: the auth query and one statement, for staff and for an enrolled student with resume", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    const tree = await insertCourseTree(school.id, { shape: [4, 5, 3] });
    await insertEnrollment(school.id, tree.courseId, student.id, { totalBlocks: 60 });
    await fixtureD1.prepare("UPDATE enrollments SET last_accessed_block_id = ? WHERE course_id = ?").bind(tree.blockIds[40], tree.courseId).run();
    const studentRun = await counted(student, `/t/courses/${tree.courseId}`);
    expect(studentRun.status).toBe(200);
    expect(studentRun.body.data.resume).toEqual({ lesson_index: 13, module_id: tree.modules[2]!.id, lesson_id: tree.modules[2]!.lessons[3]!.id });
    expect(studentRun.counts).toEqual({ prepare: 2, batch: 0, exec: 0 });
    const staffRun = await counted(admin, `/t/courses/${tree.courseId}`);
    expect(staffRun.counts).toEqual({ prepare: 2, batch: 0, exec: 0 });
  });
});
