import { describe, expect, it } from "vitest";
import { app } from "../../../src/app";
import { roundTripD1 } from "../../helpers/d1-counter";
import { insertCourseTree, insertEnrollment } from "../../helpers/courses";
import { readResponse } from "../../helpers/http";
import { addMember, createGroup, schoolWithAdmin, signedIn, type Member } from "../../helpers/users";
import { days, putGroupWindow, putWindow } from "./helpers";
import { schoolD1 } from "../../helpers/databases";
import { envWith } from "../../helpers/wrapped-d1";

/** One request through the app on a D1 binding that counts round trips (each batch once, each lone statement once). */
async function counted(member: Member, path: string, init: { method?: string; body?: unknown } = {}) {
  const counting = roundTripD1(await schoolD1(member.tenantId));
  const headers: Record<string, string> = { authorization: `Bearer ${member.token}`, "x-tenant-subdomain": member.subdomain };
  if (init.body !== undefined) headers["content-type"] = "application/json";
  const response = await app.request(
    `https://api.lms.localhost/api/v1${path}`,
    { method: init.method ?? "GET", headers, ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}) },
    envWith(counting.db),
  );
  const res = await readResponse(response, { method: init.method ?? "GET", path: `/api/v1${path}` });
  return { status: res.status, body: res.body, roundTrips: counting.roundTrips() };
}

describe("schedule: D1 round trips", () => {
  it("a student's course detail, module index and lesson cost the same with group grids as without any window", async () => {
    const { school, admin } = await schoolWithAdmin();
    const plain = await signedIn(school, { role: "student" });
    const grouped = await signedIn(school, { role: "student" });
    const tree = await insertCourseTree(school.id, { shape: [3, 3, 2] });
    const bare = await insertCourseTree(school.id, { shape: [3, 3, 2] });
    for (const student of [plain, grouped]) {
      await insertEnrollment(school.id, tree.courseId, student.id);
      await insertEnrollment(school.id, bare.courseId, student.id);
    }
    await putWindow(admin, "courses", tree.courseId, { starts_at: days(-3) });
    for (const groupName of ["A", "B"]) {
      const group = await createGroup(school.id, { name: groupName });
      await addMember(group, grouped.id);
      const node = { course_id: tree.courseId };
      await putGroupWindow(admin, group.id, { ...node, level: "course" }, { starts_at: days(-5), ends_at: days(20) });
      for (const module of tree.modules) {
        await putGroupWindow(admin, group.id, { ...node, level: "module", module_id: module.id }, { ends_at: days(10) });
        for (const lesson of module.lessons) {
          await putGroupWindow(admin, group.id, { ...node, level: "lesson", module_id: module.id, lesson_id: lesson.id }, { ends_at: days(groupName === "A" ? 2 : -2) });
        }
      }
    }

    const paths = (courseId: string, lessonId: string) => [`/t/courses/${courseId}`, `/t/courses/${courseId}/modules`, `/t/modules/${tree.modules[0]!.id}`, `/t/lessons/${lessonId}`];
    const withGrids = paths(tree.courseId, tree.lessonIds[4]!);
    const without = paths(bare.courseId, bare.lessonIds[4]!);
    for (let i = 0; i < withGrids.length; i++) {
      const a = await counted(grouped, withGrids[i]!);
      const b = await counted(plain, without[i]!);
      expect(a.status).toBe(200);
      expect(b.status).toBe(200);
      expect({ path: withGrids[i], roundTrips: a.roundTrips }).toEqual({ path: withGrids[i], roundTrips: b.roundTrips });
    }
    const detail = await counted(grouped, `/t/courses/${tree.courseId}`);
    expect(detail.roundTrips).toBe(2);
    expect(detail.body.data.locked).toBe(false);
    const index = await counted(grouped, `/t/courses/${tree.courseId}/modules`);
    expect(index.roundTrips).toBe(2);
    // The lenient of the two lesson ends (group A's, in two days) keeps every lesson open.
    expect(index.body.data.modules.flatMap((module: { lessons: { locked: boolean }[] }) => module.lessons.map((lesson) => lesson.locked))).toEqual(Array(9).fill(false));
  });

  it("window verbs: GET is the auth query and one batch; PUT and DELETE add the event settings read", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id);
    const group = await createGroup(school.id);
    const path = `/t/modules/${tree.modules[0]!.id}/schedule`;
    expect((await counted(admin, path)).roundTrips).toBe(2);
    expect(await counted(admin, path, { method: "PUT", body: { ends_at: days(2) } })).toMatchObject({ status: 200, roundTrips: 3 });
    expect(await counted(admin, path, { method: "PUT", body: { ends_at: days(3) } })).toMatchObject({ status: 200, roundTrips: 3 });
    expect(await counted(admin, path, { method: "DELETE" })).toMatchObject({ status: 200, roundTrips: 3 });
    expect((await counted(admin, `/t/courses/${tree.courseId}/schedule-tree`)).roundTrips).toBe(2);
    expect((await counted(admin, `/t/groups/${group.id}/course-schedule?course_id=${tree.courseId}`)).roundTrips).toBe(2);
    const node = { course_id: tree.courseId, level: "course" };
    expect(await counted(admin, `/t/groups/${group.id}/course-schedule`, { method: "PUT", body: { ...node, window: { ends_at: days(2) } } })).toMatchObject({ status: 200, roundTrips: 3 });
    expect(await counted(admin, `/t/groups/${group.id}/course-schedule`, { method: "DELETE", body: node })).toMatchObject({ status: 200, roundTrips: 3 });
  });
});
