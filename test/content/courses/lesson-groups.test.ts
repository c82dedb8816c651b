import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";
import { insertCourseTree, insertEnrollment } from "../../helpers/courses";
import { db } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { addMember, as, createGroup, schoolWithAdmin, signedIn, unknownId } from "../../helpers/users";

async function setup() {
  const { school, admin } = await schoolWithAdmin();
  const student = await signedIn(school, { role: "student" });
  const tree = await insertCourseTree(school.id, { shape: [1, 2, 1] });
  await insertEnrollment(school.id, tree.courseId, student.id);
  return { school, admin, student, tree, lessonId: tree.lessonIds[0]! };
}

async function storedGroupIds(lessonId: string) {
  const rows = await db().select().from(schema.lessonGroups).where(eq(schema.lessonGroups.lessonId, lessonId));
  return rows.map((row) => row.groupId).sort();
}

const sorted = (ids: string[]) => [...ids].sort();

describe("GET/PUT /t/lessons/:id/groups", () => {
  it("replaces the list (duplicates named once), reads it back, and an empty list opens the lesson again", async () => {
    const { school, admin, student, tree, lessonId } = await setup();
    expect((await as(admin, `/t/lessons/${lessonId}/groups`)).body.data).toEqual({ group_ids: [] });
    const [a, b, c] = [await createGroup(school.id), await createGroup(school.id), await createGroup(school.id)];

    const first = await as(admin, `/t/lessons/${lessonId}/groups`, { method: "PUT", body: { group_ids: [a.id, b.id, a.id] } });
    expect(first.status).toBe(200);
    expect(sorted(first.body.data.group_ids)).toEqual(sorted([a.id, b.id]));
    expect(await storedGroupIds(lessonId)).toEqual(sorted([a.id, b.id]));

    // The student is in no group: the lesson leaves their outline.
    const hidden = await as(student, `/t/courses/${tree.courseId}/modules`);
    expect(hidden.body.data.modules[0].lessons.map((l: { id: string }) => l.id)).toEqual([tree.lessonIds[1]]);
    expect(hidden.body.data.total_lessons).toBe(1);

    const second = await as(admin, `/t/lessons/${lessonId}/groups`, { method: "PUT", body: { group_ids: [c.id.toUpperCase()] } });
    expect(second.body.data).toEqual({ group_ids: [c.id] });
    expect(await storedGroupIds(lessonId)).toEqual([c.id]);
    await addMember(c, student.id);
    const member = await as(student, `/t/modules/${tree.modules[0]!.id}/lessons`);
    expect(member.body.data.lessons.map((l: { id: string }) => l.id)).toEqual(tree.lessonIds);

    const cleared = await as(admin, `/t/lessons/${lessonId}/groups`, { method: "PUT", body: { group_ids: [] } });
    expect(cleared.body.data).toEqual({ group_ids: [] });
    expect(await storedGroupIds(lessonId)).toEqual([]);
  });

  it("answers live groups only: a group deleted after it was set drops out of the list", async () => {
    const { school, admin, lessonId } = await setup();
    const [kept, later] = [await createGroup(school.id), await createGroup(school.id)];
    await as(admin, `/t/lessons/${lessonId}/groups`, { method: "PUT", body: { group_ids: [kept.id, later.id] } });
    await db().update(schema.groups).set({ deletedAt: Date.now() }).where(eq(schema.groups.id, later.id));
    expect((await as(admin, `/t/lessons/${lessonId}/groups`)).body.data).toEqual({ group_ids: [kept.id] });
  });

  it("a group of another school, a deleted or unknown group is 400 group_not_in_tenant and nothing is written", async () => {
    const { school, admin, lessonId } = await setup();
    const mine = await createGroup(school.id);
    await as(admin, `/t/lessons/${lessonId}/groups`, { method: "PUT", body: { group_ids: [mine.id] } });
    const other = await schoolWithAdmin();
    const foreign = await createGroup(other.school.id);
    const deleted = await createGroup(school.id, { deleted: true });
    for (const bad of [foreign.id, deleted.id, unknownId()]) {
      const res = await as(admin, `/t/lessons/${lessonId}/groups`, { method: "PUT", body: { group_ids: [mine.id, bad] } });
      expect(failure(res)).toEqual({ status: 400, error: "group_not_in_tenant" });
    }
    expect(await storedGroupIds(lessonId)).toEqual([mine.id]);
  });

  it("validates the body (uuid array of at most 200) and answers 404 lesson_not_found for a missing, deleted or foreign lesson", async () => {
    const { school, admin, lessonId } = await setup();
    const path = `/t/lessons/${lessonId}/groups`;
    for (const body of [{}, { group_ids: ["nope"] }, { group_ids: Array.from({ length: 201 }, () => unknownId()) }, { group_ids: null }]) {
      expect(failure(await as(admin, path, { method: "PUT", body }))).toEqual({ status: 400, error: "invalid_request_body" });
    }
    const deleted = await insertCourseTree(school.id);
    await db().update(schema.lessons).set({ deletedAt: Date.now() }).where(eq(schema.lessons.id, deleted.lessonIds[0]!));
    const other = await schoolWithAdmin();
    const foreign = await insertCourseTree(other.school.id);
    const group = await createGroup(school.id);
    for (const id of [unknownId(), deleted.lessonIds[0]!, foreign.lessonIds[0]!]) {
      expect(failure(await as(admin, `/t/lessons/${id}/groups`))).toEqual({ status: 404, error: "lesson_not_found" });
      expect(failure(await as(admin, `/t/lessons/${id}/groups`, { method: "PUT", body: { group_ids: [group.id] } }))).toEqual({
        status: 404,
        error: "lesson_not_found",
      });
    }
    expect(await storedGroupIds(foreign.lessonIds[0]!)).toEqual([]);
  });

  it("is for course managers only", async () => {
    const { student, lessonId } = await setup();
    expect(failure(await as(student, `/t/lessons/${lessonId}/groups`))).toEqual({ status: 403, error: "forbidden" });
    expect(failure(await as(student, `/t/lessons/${lessonId}/groups`, { method: "PUT", body: { group_ids: [] } }))).toEqual({ status: 403, error: "forbidden" });
  });
});
