import { describe, expect, it } from "vitest";
import { app } from "../../../src/app";
import { insertCourseTree, insertEnrollment } from "../../helpers/courses";
import { roundTripD1 } from "../../helpers/d1-counter";
import { schoolWithAdmin, signedIn, type Member } from "../../helpers/users";
import { schoolD1 } from "../../helpers/databases";
import { envWith } from "../../helpers/wrapped-d1";

/** Content reads cost the guard's query and one batch (the student's resume UPDATE rides in it), whatever the course's size. */

async function counted(member: Member, path: string) {
  const counter = roundTripD1(await schoolD1(member.tenantId));
  const res = await app.request(
    `https://api.lms.localhost/api/v1${path}`,
    { headers: { authorization: `Bearer ${member.token}`, "x-tenant-subdomain": member.subdomain } },
    envWith(counter.db),
  );
  return { status: res.status, stats: counter.stats };
}

describe("round trips of the content reads", () => {
  it("GET /lessons/:id, /lessons/:id/blocks, /blocks/:id and /courses/:id/my-completions: two round trips for a student of a sequential course and for staff", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await signedIn(school, { role: "student" });
    const tree = await insertCourseTree(school.id, { sequential: true, shape: [4, 5, 6] });
    await insertEnrollment(school.id, tree.courseId, student.id);
    const lessonId = tree.lessonIds[7]!;
    const paths = [`/t/lessons/${lessonId}`, `/t/lessons/${lessonId}/blocks`, `/t/blocks/${tree.blockIds[0]}`];
    for (const member of [student, admin]) {
      for (const path of paths) expect({ path, role: member.role, ...(await counted(member, path)) }).toEqual({ path, role: member.role, status: 200, stats: { batches: 1, statements: 1 } });
    }
    expect(await counted(student, `/t/courses/${tree.courseId}/my-completions`)).toEqual({ status: 200, stats: { batches: 0, statements: 2 } });
    // A refusal costs no more.
    expect(await counted(student, `/t/blocks/${tree.blockIds[40]}`)).toEqual({ status: 409, stats: { batches: 1, statements: 1 } });
  });
});
