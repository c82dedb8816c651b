import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";
import { insertCourseTree, insertEnrollment, ISO } from "../../helpers/courses";
import { createSchool, createUser, db } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { addMember, createGroup, curatorWith, schoolWithAdmin, signedIn, unknownId } from "../../helpers/users";
import { linkGroup, listLinks, unlinkGroup } from "./course-groups-helpers";

/** A course with three enrolled groups, linked a few ms apart so their order is fixed. */
async function courseWithGroups() {
  const { school, admin } = await schoolWithAdmin();
  const tree = await insertCourseTree(school.id);
  const alpha = await createGroup(school.id, { name: "Alpha 100%" });
  const beta = await createGroup(school.id, { name: "Beta" });
  const gamma = await createGroup(school.id, { name: "Gamma" });
  const [a, b, c, d] = await Promise.all(Array.from({ length: 4 }, () => createUser(school.id, { role: "student" })));
  // a: Alpha only; b: Alpha and Beta; c: Beta and a direct enrollment; d: a member nowhere enrolled (Gamma added after).
  await addMember(alpha, a!.id);
  await addMember(alpha, b!.id);
  await addMember(beta, b!.id);
  await addMember(beta, c!.id);
  await insertEnrollment(school.id, tree.courseId, c!.id);
  for (const group of [alpha, beta, gamma]) {
    expect((await linkGroup(admin, tree.courseId, group.id)).status).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, 3));
  }
  // Joined after the link, without the groups area: a member without the group's source counts as a member only.
  await addMember(gamma, d!.id);
  return { school, admin, tree, alpha, beta, gamma, students: { a: a!, b: b!, c: c!, d: d! } };
}

describe("GET /t/courses/:id/group-enrollments", () => {
  it("rows newest link first with what removing each would do; counts of groups and of students with group access", async () => {
    const { admin, tree, alpha, beta, gamma } = await courseWithGroups();
    const res = await listLinks(admin, tree.courseId);
    expect(res.status).toBe(200);
    const data = res.body.data;
    expect(data).toMatchObject({ counts: { groups: 3, students: 3 }, total: 3, page: 1, limit: 20 });
    expect(data.group_enrollments.map((row: { group_id: string }) => row.group_id)).toEqual([gamma.id, beta.id, alpha.id]);
    const [g, b, a] = data.group_enrollments;
    expect(a).toEqual({
      id: expect.any(String),
      course_id: tree.courseId,
      group_id: alpha.id,
      name: "Alpha 100%",
      description: "",
      logo: null,
      logo_url: null,
      member_count: 2,
      enrolled_students_count: 2,
      would_remove_count: 1,
      would_retain_count: 1,
      enrolled_at: expect.stringMatching(ISO),
      enrolled_by: admin.id,
    });
    expect(b).toMatchObject({ member_count: 2, enrolled_students_count: 2, would_remove_count: 0, would_retain_count: 2 });
    expect(g).toMatchObject({ member_count: 1, enrolled_students_count: 0, would_remove_count: 0, would_retain_count: 0 });
  });

  it("would_remove_count and would_retain_count are exactly what removing the link answers", async () => {
    const { admin, tree, alpha, beta } = await courseWithGroups();
    // Removing Alpha turns Beta's shared student into one Beta alone holds: each is read just before its removal.
    for (const group of [alpha, beta]) {
      const before = (await listLinks(admin, tree.courseId)).body.data.group_enrollments.find((row: { group_id: string }) => row.group_id === group.id);
      const removed = await unlinkGroup(admin, tree.courseId, group.id);
      expect(removed.body.data).toEqual({ removed_count: before.would_remove_count, retained_count: before.would_retain_count });
    }
    expect((await listLinks(admin, tree.courseId)).body.data.counts).toEqual({ groups: 1, students: 0 });
  });

  it("q searches group names with wildcards taken literally; counts ignore q", async () => {
    const { admin, tree, alpha, beta } = await courseWithGroups();
    const byName = await listLinks(admin, tree.courseId, "?q=bet");
    expect(byName.body.data).toMatchObject({ total: 1, counts: { groups: 3, students: 3 } });
    expect(byName.body.data.group_enrollments.map((row: { group_id: string }) => row.group_id)).toEqual([beta.id]);
    const literal = await listLinks(admin, tree.courseId, "?q=100%25");
    expect(literal.body.data.group_enrollments.map((row: { group_id: string }) => row.group_id)).toEqual([alpha.id]);
    expect((await listLinks(admin, tree.courseId, "?q=%25%25")).body.data).toMatchObject({ total: 0, group_enrollments: [] });
    expect(failure(await listLinks(admin, tree.courseId, "?q=%00x"))).toEqual({ status: 400, error: "invalid_params" });
  });

  it("pages; an invalid page reads as 1 and a limit outside 1-100 as 20, never an error", async () => {
    const { admin, tree, alpha, beta, gamma } = await courseWithGroups();
    const ids = (res: Awaited<ReturnType<typeof listLinks>>) => res.body.data.group_enrollments.map((row: { group_id: string }) => row.group_id);
    const second = await listLinks(admin, tree.courseId, "?page=2&limit=2");
    expect(second.body.data).toMatchObject({ page: 2, limit: 2, total: 3 });
    expect(ids(second)).toEqual([alpha.id]);
    expect(ids(await listLinks(admin, tree.courseId, "?limit=1"))).toEqual([gamma.id]);
    for (const [query, page, limit] of [
      ["?page=0&limit=0", 1, 20],
      ["?page=-1&limit=101", 1, 20],
      ["?page=abc&limit=x", 1, 20],
      ["?page=1.5&limit=2.5", 1, 20],
      ["?page=&limit=", 1, 20],
      ["?page=2&page=3&limit=100", 2, 100],
      ["?page=99999999999&limit=100", 1, 100],
    ] as const) {
      const res = await listLinks(admin, tree.courseId, query);
      expect({ query, status: res.status, page: res.body.data.page, limit: res.body.data.limit }).toEqual({ query, status: 200, page, limit });
    }
    expect(ids(await listLinks(admin, tree.courseId, "?page=0"))).toEqual([gamma.id, beta.id, alpha.id]);
    expect(ids(await listLinks(admin, tree.courseId, "?page=9"))).toEqual([]);
  });

  it("a draft course is listed (groups enrolled before it was unpublished); a curator with manage_groups may list", async () => {
    const { school, tree, alpha } = await courseWithGroups();
    await db().update(schema.courses).set({ status: "draft" }).where(eq(schema.courses.id, tree.courseId));
    const curator = await signedIn(school, curatorWith({ can_manage_groups: true }));
    const res = await listLinks(curator, tree.courseId, "?q=alpha");
    expect(res.body.data.group_enrollments.map((row: { group_id: string }) => row.group_id)).toEqual([alpha.id]);
    const fresh = await insertCourseTree(school.id, { status: "draft" });
    expect((await listLinks(curator, fresh.courseId)).body.data).toEqual({ group_enrollments: [], counts: { groups: 0, students: 0 }, total: 0, page: 1, limit: 20 });
  });

  it("students with group access are counted once however many groups give it, and only while enrolled", async () => {
    const { admin, tree, students } = await courseWithGroups();
    // b holds two groups' sources: one student. Removing a student's account takes them out of every count.
    await db().update(schema.users).set({ deletedAt: Date.now() }).where(eq(schema.users.id, students.a.id));
    const res = await listLinks(admin, tree.courseId);
    expect(res.body.data.counts).toEqual({ groups: 3, students: 2 });
    const alpha = res.body.data.group_enrollments[2];
    expect(alpha).toMatchObject({ member_count: 1, enrolled_students_count: 1, would_remove_count: 0, would_retain_count: 1 });
  });

  it("400 invalid_course_id; 404 course_not_found for a missing, deleted or foreign course", async () => {
    const { school, admin } = await schoolWithAdmin();
    const other = await createSchool();
    const deleted = await insertCourseTree(school.id);
    await db().update(schema.courses).set({ deletedAt: Date.now() }).where(eq(schema.courses.id, deleted.courseId));
    const foreign = await insertCourseTree(other.id);
    expect(failure(await listLinks(admin, "not-a-uuid"))).toEqual({ status: 400, error: "invalid_course_id" });
    for (const courseId of [unknownId(), deleted.courseId, foreign.courseId]) {
      expect(failure(await listLinks(admin, courseId))).toEqual({ status: 404, error: "course_not_found" });
    }
  });

  it("403 permission_denied to a curator without manage_groups and to a student", async () => {
    const { school } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id);
    const curator = await signedIn(school, curatorWith({ can_manage_students: true }));
    const student = await signedIn(school, { role: "student" });
    for (const caller of [curator, student]) {
      expect(failure(await listLinks(caller, tree.courseId))).toEqual({ status: 403, error: "permission_denied" });
    }
  });
});
