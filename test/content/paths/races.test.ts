import { describe, expect, it } from "vitest";
import { barrierD1, requestWithD1 } from "../../helpers/d1-barrier";
import { wrapD1 } from "../../helpers/wrapped-d1";
import { insertCourseTree, insertEnrollment } from "../../helpers/courses";
import { failure } from "../../helpers/http";
import { as, schoolWithAdmin, signedIn } from "../../helpers/users";
import { addPushDevice, outboxRows } from "../../notifications/helpers";
import { insertPath } from "./helpers";
import { schoolD1 } from "../../helpers/databases";

describe("race: concurrent replaces of a published path's courses", () => {
  it("6 concurrent PATCH …/courses adding the same course: all 200, the set written once, one path.course_added per student", async () => {
    const REPLACES = 6;
    const { school, admin } = await schoolWithAdmin();
    const [a, b] = [(await insertCourseTree(school.id)).courseId, (await insertCourseTree(school.id)).courseId];
    const student = await signedIn(school, { role: "student" });
    await addPushDevice(school.id, student.id);
    await insertEnrollment(school.id, a, student.id);
    const pathId = await insertPath(school.id, { courseIds: [a] });
    // Every replace waits at its write until all have read the set without the new course.
    const barrier = barrierD1(await schoolD1(school.id), { held: /^UPDATE learning_paths SET updated_at/i, parties: REPLACES });
    const results = await Promise.all(
      Array.from({ length: REPLACES }, () =>
        requestWithD1(barrier.db, `/t/learning-paths/${pathId}/courses`, { method: "PATCH", token: admin.token, tenant: admin.subdomain, body: { course_ids: [a, b] } }),
      ),
    );
    expect(barrier.stats.releases).toEqual([REPLACES]);
    expect(results.map((res) => res.status)).toEqual(Array(REPLACES).fill(200));
    const detail = (await as(admin, `/t/learning-paths/${pathId}`)).body.data;
    expect(detail.courses.map((course: { course_id: string }) => course.course_id)).toEqual([a, b]);
    expect((await outboxRows(school.id)).filter((row) => row.eventCode === "path.course_added").map((row) => row.userId)).toEqual([student.id]);
  });

  it("a course deleted between the replace's read and its write: the write changes nothing and the replace answers course_not_in_tenant", async () => {
    const { school, admin } = await schoolWithAdmin();
    const [a, b] = [(await insertCourseTree(school.id)).courseId, (await insertCourseTree(school.id)).courseId];
    const pathId = await insertPath(school.id, { status: "draft", courseIds: [a] });
    // The course goes just before the replace's write batch reaches D1.
    let deletions = 0;
    const shard = await schoolD1(school.id);
    const racing = wrapD1(shard, {
      get(target, property) {
        const value = Reflect.get(target, property, target);
        if (property !== "batch") return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
        return async (statements: D1PreparedStatement[]) => {
          const text = (statements[0] as unknown as { statement: string }).statement;
          if (deletions === 0 && /^UPDATE learning_paths SET updated_at/i.test(text)) {
            deletions += 1;
            await target.prepare("UPDATE courses SET deleted_at = ?1 WHERE id = ?2").bind(Date.now(), b).run();
          }
          return target.batch(statements);
        };
      },
    });
    const replaced = await requestWithD1(racing, `/t/learning-paths/${pathId}/courses`, { method: "PATCH", token: admin.token, tenant: admin.subdomain, body: { course_ids: [a, b] } });
    expect(deletions).toBe(1);
    expect(failure(replaced)).toEqual({ status: 400, error: "course_not_in_tenant" });
    expect((await as(admin, `/t/learning-paths/${pathId}`)).body.data.courses.map((course: { course_id: string }) => course.course_id)).toEqual([a]);
  });
});
