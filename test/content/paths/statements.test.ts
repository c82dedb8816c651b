import { describe, expect, it } from "vitest";
import { insertCourseTree, insertEnrollment } from "../../helpers/courses";
import { schoolWithAdmin, signedIn, type Member } from "../../helpers/users";
import { insertPath, markCompleted } from "./helpers";
import { countedRequest } from "../../helpers/counted";

const counted = countedRequest;

/** `paths` published paths of `size` courses each, and `students` students part-way along every one. */
async function school(paths: number, size: number, students: number) {
  const { school, admin } = await schoolWithAdmin();
  const learners: Member[] = [];
  for (let i = 0; i < students; i++) learners.push(await signedIn(school, { role: "student" }));
  const pathIds: string[] = [];
  for (let p = 0; p < paths; p++) {
    const courseIds: string[] = [];
    for (let c = 0; c < size; c++) courseIds.push((await insertCourseTree(school.id)).courseId);
    pathIds.push(await insertPath(school.id, { courseIds }));
    for (const learner of learners) await markCompleted(await insertEnrollment(school.id, courseIds[0]!, learner.id));
  }
  return { school, admin, learner: learners[0]!, pathIds };
}

describe("D1 work of the path endpoints", () => {
  it("reads: the auth query and one round trip, the same for 1 or 4 paths of 1 or 3 courses", async () => {
    for (const [paths, size, students] of [
      [1, 1, 1],
      [4, 3, 3],
    ] as const) {
      const { admin, learner, pathIds } = await school(paths, size, students);
      expect(await counted(admin, "/t/learning-paths")).toEqual({ status: 200, counts: { prepare: 3, batch: 1, exec: 0 } });
      expect(await counted(admin, `/t/learning-paths/${pathIds[0]}`)).toEqual({ status: 200, counts: { prepare: 2, batch: 1, exec: 0 } });
      expect(await counted(admin, `/t/learning-paths/${pathIds[0]}/students`)).toEqual({ status: 200, counts: { prepare: 4, batch: 1, exec: 0 } });
      expect(await counted(learner, "/t/students/me/paths")).toEqual({ status: 200, counts: { prepare: 2, batch: 0, exec: 0 } });
    }
  });

  it("writes: one batch after the auth query; replacing the set reads once first and adds one push statement per course new to a published path", async () => {
    const { school: created, admin, pathIds } = await school(1, 2, 1);
    const draft = await insertPath(created.id, { status: "draft" });
    expect(await counted(admin, `/t/learning-paths/${draft}`, { method: "PATCH", body: { title: "Renamed" } })).toEqual({ status: 200, counts: { prepare: 3, batch: 1, exec: 0 } });
    expect(await counted(admin, `/t/learning-paths/${draft}/publish`, { method: "POST" })).toEqual({ status: 409, counts: { prepare: 3, batch: 1, exec: 0 } });
    const added = [(await insertCourseTree(created.id)).courseId, (await insertCourseTree(created.id)).courseId];
    const path = pathIds[0]!;
    const body = { course_ids: added };
    // Auth; the read batch (push settings, path, ids, current set); the write batch (path, drop, upsert, two pushes).
    expect(await counted(admin, `/t/learning-paths/${path}/courses`, { method: "PATCH", body })).toEqual({ status: 200, counts: { prepare: 10, batch: 2, exec: 0 } });
    expect(await counted(admin, `/t/learning-paths/${draft}/courses`, { method: "PATCH", body })).toEqual({ status: 200, counts: { prepare: 8, batch: 2, exec: 0 } });
  });
});
