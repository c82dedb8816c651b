import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";
import { insertCourseTree, insertEnrollment } from "../../helpers/courses";
import { db } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { as, schoolWithAdmin, signedIn, unknownId, type Member } from "../../helpers/users";
import { addPushDevice, outboxRows } from "../../notifications/helpers";
import { insertPath } from "./helpers";

/** A path's course set: replaced whole, reordered, and the students told of new courses (#59). */

const replace = (admin: Member, pathId: string, courseIds: string[]) => as(admin, `/t/learning-paths/${pathId}/courses`, { method: "PATCH", body: { course_ids: courseIds } });
const reorder = (admin: Member, pathId: string, courseIds: string[]) => as(admin, `/t/learning-paths/${pathId}/reorder-courses`, { method: "PATCH", body: { course_ids: courseIds } });
const courseIdsOf = async (admin: Member, pathId: string) =>
  ((await as(admin, `/t/learning-paths/${pathId}`)).body.data.courses as { course_id: string; position: number }[]).map((course) => [course.course_id, course.position]);

async function courses(tenantId: string, count: number, options: { status?: "draft" | "published" } = {}) {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push((await insertCourseTree(tenantId, { title: `Course ${i + 1}`, ...options })).courseId);
  return ids;
}

describe("PATCH /t/learning-paths/:id/courses", () => {
  it("replaces the whole set in the given order (draft courses too), and may empty it", async () => {
    const { school, admin } = await schoolWithAdmin();
    const [a, b, c] = await courses(school.id, 3);
    const [d] = await courses(school.id, 1, { status: "draft" });
    const pathId = await insertPath(school.id, { status: "draft", courseIds: [a!, b!] });
    expect((await replace(admin, pathId, [c!, a!, d!])).body.data).toEqual({ replaced: true, count: 3 });
    expect(await courseIdsOf(admin, pathId)).toEqual([
      [c, 0],
      [a, 1],
      [d, 2],
    ]);
    expect((await replace(admin, pathId, [c!.toUpperCase()])).body.data).toEqual({ replaced: true, count: 1 });
    expect(await courseIdsOf(admin, pathId)).toEqual([[c, 0]]);
    expect((await replace(admin, pathId, [])).body.data).toEqual({ replaced: true, count: 0 });
    expect(await courseIdsOf(admin, pathId)).toEqual([]);
  });

  it("400 course_not_in_tenant for an unknown, deleted or foreign course; 409 course_already_in_path for a duplicate; nothing changes", async () => {
    const { school, admin } = await schoolWithAdmin();
    const [a, b] = await courses(school.id, 2);
    const gone = (await insertCourseTree(school.id)).courseId;
    await as(admin, `/t/courses/${gone}`, { method: "DELETE" });
    const foreign = (await insertCourseTree((await schoolWithAdmin()).school.id)).courseId;
    const pathId = await insertPath(school.id, { courseIds: [a!] });
    for (const bad of [unknownId(), gone, foreign]) {
      expect(failure(await replace(admin, pathId, [b!, bad]))).toEqual({ status: 400, error: "course_not_in_tenant" });
    }
    expect(failure(await replace(admin, pathId, [b!, a!, b!]))).toEqual({ status: 409, error: "course_already_in_path" });
    expect(failure(await replace(admin, pathId, [b!, b!.toUpperCase()]))).toEqual({ status: 409, error: "course_already_in_path" });
    expect(await courseIdsOf(admin, pathId)).toEqual([[a, 0]]);
    expect(failure(await replace(admin, pathId, Array.from({ length: 201 }, () => unknownId())))).toEqual({ status: 400, error: "invalid_request_body" });
    expect(failure(await replace(admin, pathId, ["nope"]))).toEqual({ status: 400, error: "invalid_request_body" });
  });

  it("path.course_added (#59) to the path's students for each published course new to a published path, once", async () => {
    const { school, admin } = await schoolWithAdmin();
    const [a, b, c] = await courses(school.id, 3);
    const [draft] = await courses(school.id, 1, { status: "draft" });
    const inPath = await signedIn(school, { role: "student" });
    const inNewCourse = await signedIn(school, { role: "student" });
    const outside = await signedIn(school, { role: "student" });
    const removed = await signedIn(school, { role: "student" });
    for (const student of [inPath, inNewCourse, outside, removed]) await addPushDevice(school.id, student.id);
    await insertEnrollment(school.id, a!, inPath.id);
    await insertEnrollment(school.id, b!, inNewCourse.id);
    await insertEnrollment(school.id, c!, outside.id);
    const removedEnrollment = await insertEnrollment(school.id, a!, removed.id);
    await db().update(schema.enrollments).set({ removedAt: Date.now() }).where(eq(schema.enrollments.id, removedEnrollment));
    const pathId = await insertPath(school.id, { title: "Data science", courseIds: [a!] });

    expect((await replace(admin, pathId, [a!, b!, draft!])).status).toBe(200);
    const added = (await outboxRows(school.id)).filter((row) => row.eventCode === "path.course_added");
    expect(added.map((row) => row.userId).sort()).toEqual([inPath.id, inNewCourse.id].sort());
    for (const row of added) {
      expect(row).toMatchObject({ aggregateType: "path", aggregateId: pathId, body: "В траекторию «Data science» добавлен курс «Course 2»." });
      expect(row.dedupeKey).toMatch(new RegExp(`^path\\.course_added:${pathId}:${b}:\\d+:${row.userId}$`));
      expect(row.data).toMatchObject({ event_code: "path.course_added", path_id: pathId, path_title: "Data science", course_title: "Course 2" });
    }
    // The same set again (a retry) and a reorder add nothing.
    await replace(admin, pathId, [a!, b!, draft!]);
    await replace(admin, pathId, [b!, a!, draft!]);
    expect((await outboxRows(school.id)).filter((row) => row.eventCode === "path.course_added")).toHaveLength(2);
  });

  it("nothing for a draft path", async () => {
    const { school, admin } = await schoolWithAdmin();
    const [a, b] = await courses(school.id, 2);
    const student = await signedIn(school, { role: "student" });
    await addPushDevice(school.id, student.id);
    await insertEnrollment(school.id, a!, student.id);
    const pathId = await insertPath(school.id, { status: "draft", courseIds: [a!] });
    expect((await replace(admin, pathId, [a!, b!])).status).toBe(200);
    expect((await outboxRows(school.id)).filter((row) => row.eventCode === "path.course_added")).toEqual([]);
  });
});

describe("PATCH /t/learning-paths/:id/reorder-courses", () => {
  it("takes every live course of the path exactly once; 409 reorder_duplicate and reorder_incomplete otherwise", async () => {
    const { school, admin } = await schoolWithAdmin();
    const [a, b, c] = await courses(school.id, 3);
    const pathId = await insertPath(school.id, { status: "draft", courseIds: [a!, b!, c!] });
    expect((await reorder(admin, pathId, [c!, a!, b!])).body.data).toEqual({ reordered: 3 });
    expect(await courseIdsOf(admin, pathId)).toEqual([
      [c, 0],
      [a, 1],
      [b, 2],
    ]);
    expect(failure(await reorder(admin, pathId, [c!, a!, a!]))).toEqual({ status: 409, error: "reorder_duplicate" });
    expect(failure(await reorder(admin, pathId, [c!, a!]))).toEqual({ status: 409, error: "reorder_incomplete" });
    expect(failure(await reorder(admin, pathId, [c!, a!, b!, unknownId()]))).toEqual({ status: 409, error: "reorder_incomplete" });
    expect(failure(await reorder(admin, pathId, []))).toEqual({ status: 400, error: "invalid_request_body" });

    // A course deleted while in the (draft) path drops out of sight and out of the set to reorder.
    await as(admin, `/t/courses/${a}`, { method: "DELETE" });
    expect((await reorder(admin, pathId, [b!, c!])).body.data).toEqual({ reordered: 2 });
    expect(await courseIdsOf(admin, pathId)).toEqual([
      [b, 0],
      [c, 1],
    ]);
    const [link] = await db()
      .select()
      .from(schema.learningPathCourses)
      .where(and(eq(schema.learningPathCourses.pathId, pathId), eq(schema.learningPathCourses.courseId, a!)));
    expect(link).toMatchObject({ pathId, courseId: a });
  });
});
