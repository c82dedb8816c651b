import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";
import { insertCourseTree, insertEnrollment, ISO } from "../../helpers/courses";
import { createSchool, createUser, db } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { addMember, as, createGroup, curatorWith, schoolWithAdmin, signedIn, unknownId } from "../../helpers/users";
import { insertCompletion } from "../enrollments/helpers";
import { enrollmentOf, linkGroup, linkRows, sourceKeys } from "./course-groups-helpers";

describe("POST /t/courses/:id/group-enrollments", () => {
  it("201 for a new link: every member gets the group source, new accesses are counted apart from existing ones", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id, { shape: [1, 1, 4] });
    const group = await createGroup(school.id, { name: "Morning" });
    const fresh = await createUser(school.id, { role: "student" });
    const direct = await createUser(school.id, { role: "student" });
    const gone = await createUser(school.id, { role: "student" });
    for (const student of [fresh, direct, gone]) await addMember(group, student.id);
    await db().update(schema.users).set({ deletedAt: Date.now() }).where(eq(schema.users.id, gone.id));
    await insertEnrollment(school.id, tree.courseId, direct.id);

    const res = await linkGroup(admin, tree.courseId, group.id);
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      group_enrollment: {
        id: expect.any(String),
        course_id: tree.courseId,
        group_id: group.id,
        name: "Morning",
        description: "",
        logo: null,
        logo_url: null,
        member_count: 2,
        enrolled_students_count: 2,
        would_remove_count: 1,
        would_retain_count: 1,
        enrolled_at: expect.stringMatching(ISO),
        enrolled_by: admin.id,
      },
      enrolled_count: 1,
      already_enrolled_count: 1,
    });
    expect(await sourceKeys(tree.courseId, fresh.id)).toEqual([`group:${group.id}`]);
    expect(await sourceKeys(tree.courseId, direct.id)).toEqual(["direct", `group:${group.id}`]);
    // A deleted account is no member that counts, and gets no access.
    expect(await enrollmentOf(tree.courseId, gone.id)).toBeUndefined();
    expect(await enrollmentOf(tree.courseId, fresh.id)).toMatchObject({ removedAt: null, enrolledBy: admin.id, totalBlocks: 4, blocksCompleted: 0 });
    const links = await linkRows(tree.courseId);
    expect(links).toHaveLength(1);
    expect(links[0]).toMatchObject({ id: res.body.data.group_enrollment.id, tenantId: school.id, groupId: group.id, enrolledBy: admin.id });
  });

  it("200 when the link exists: nothing changes, every member counts as already enrolled", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id);
    const group = await createGroup(school.id);
    for (let i = 0; i < 3; i++) await addMember(group, (await createUser(school.id, { role: "student" })).id);
    const first = await linkGroup(admin, tree.courseId, group.id);
    expect(first.status).toBe(201);
    expect(first.body.data).toMatchObject({ enrolled_count: 3, already_enrolled_count: 0 });
    const again = await linkGroup(admin, tree.courseId, group.id);
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual({ ...first.body.data, enrolled_count: 0, already_enrolled_count: 3 });
    expect(await linkRows(tree.courseId)).toHaveLength(1);
    const sources = await db().select().from(schema.enrollmentSources).where(eq(schema.enrollmentSources.courseId, tree.courseId));
    expect(sources).toHaveLength(3);
  });

  it("a removed enrollment is restored with its progress and counts as new access", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id, { shape: [1, 1, 4] });
    const group = await createGroup(school.id);
    const student = await createUser(school.id, { role: "student" });
    await addMember(group, student.id);
    const enrollmentId = await insertEnrollment(school.id, tree.courseId, student.id, { totalBlocks: 4 });
    const lesson = tree.modules[0]!.lessons[0]!;
    for (const blockId of lesson.blocks.slice(0, 2)) {
      await insertCompletion({ tenantId: school.id, courseId: tree.courseId, lessonId: lesson.id, blockId, studentId: student.id, enrollmentId });
    }
    await db().delete(schema.enrollmentSources).where(eq(schema.enrollmentSources.enrollmentId, enrollmentId));
    await db().update(schema.enrollments).set({ removedAt: Date.now() - 1000 }).where(eq(schema.enrollments.id, enrollmentId));

    const res = await linkGroup(admin, tree.courseId, group.id);
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ enrolled_count: 1, already_enrolled_count: 0 });
    expect(await enrollmentOf(tree.courseId, student.id)).toMatchObject({ id: enrollmentId, removedAt: null, blocksCompleted: 2, totalBlocks: 4 });
  });

  it("an empty group is linked with nothing to count", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id);
    const group = await createGroup(school.id);
    const res = await linkGroup(admin, tree.courseId, group.id);
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ group_enrollment: { member_count: 0, enrolled_students_count: 0 }, enrolled_count: 0, already_enrolled_count: 0 });
  });

  it("a curator with manage_groups may enroll; the logo is read as a ready link", async () => {
    const { school } = await schoolWithAdmin();
    const curator = await signedIn(school, curatorWith({ can_manage_groups: true }));
    const tree = await insertCourseTree(school.id);
    const group = await createGroup(school.id, { logo: "https://cdn.example.com/logo.png" });
    const res = await linkGroup(curator, tree.courseId, group.id);
    expect(res.status).toBe(201);
    expect(res.body.data.group_enrollment).toMatchObject({ logo: "https://cdn.example.com/logo.png", logo_url: "https://cdn.example.com/logo.png", enrolled_by: curator.id });
  });

  it("404 course_not_found for a draft, deleted, foreign or unknown course; nothing is written", async () => {
    const { school, admin } = await schoolWithAdmin();
    const other = await createSchool();
    const group = await createGroup(school.id);
    await addMember(group, (await createUser(school.id, { role: "student" })).id);
    const draft = await insertCourseTree(school.id, { status: "draft" });
    const deleted = await insertCourseTree(school.id);
    await db().update(schema.courses).set({ deletedAt: Date.now() }).where(eq(schema.courses.id, deleted.courseId));
    const foreign = await insertCourseTree(other.id);
    for (const courseId of [draft.courseId, deleted.courseId, foreign.courseId, unknownId()]) {
      expect(failure(await linkGroup(admin, courseId, group.id))).toEqual({ status: 404, error: "course_not_found" });
      expect(await linkRows(courseId)).toEqual([]);
    }
    const enrollments = await db().select().from(schema.enrollments).where(eq(schema.enrollments.tenantId, school.id));
    expect(enrollments).toEqual([]);
  });

  it("404 group_not_found for a deleted, foreign or unknown group", async () => {
    const { school, admin } = await schoolWithAdmin();
    const other = await createSchool();
    const tree = await insertCourseTree(school.id);
    const deleted = await createGroup(school.id, { deleted: true });
    const foreign = await createGroup(other.id);
    await addMember(deleted, (await createUser(school.id, { role: "student" })).id);
    for (const groupId of [deleted.id, foreign.id, unknownId()]) {
      expect(failure(await linkGroup(admin, tree.courseId, groupId))).toEqual({ status: 404, error: "group_not_found" });
    }
    expect(await linkRows(tree.courseId)).toEqual([]);
    expect(await db().select().from(schema.enrollments).where(eq(schema.enrollments.courseId, tree.courseId))).toEqual([]);
  });

  it("400 for a malformed course id or body", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id);
    const group = await createGroup(school.id);
    expect(failure(await linkGroup(admin, "not-a-uuid", group.id))).toEqual({ status: 400, error: "invalid_course_id" });
    expect(failure(await linkGroup(admin, tree.courseId, "nope"))).toEqual({ status: 400, error: "invalid_request_body" });
    expect(failure(await as(admin, `/t/courses/${tree.courseId}/group-enrollments`, { body: {} }))).toEqual({ status: 400, error: "invalid_request_body" });
  });

  it("403 permission_denied to a curator without manage_groups", async () => {
    const { school } = await schoolWithAdmin();
    const curator = await signedIn(school, curatorWith({ can_manage_students: true }));
    const tree = await insertCourseTree(school.id);
    const group = await createGroup(school.id);
    expect(failure(await linkGroup(curator, tree.courseId, group.id))).toEqual({ status: 403, error: "permission_denied" });
  });
});

describe("what a group link holds", () => {
  it("DELETE /t/courses/:id answers 409 course_has_group_enrollments while a group is enrolled", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id);
    const group = await createGroup(school.id);
    expect((await linkGroup(admin, tree.courseId, group.id)).status).toBe(201);
    expect(failure(await as(admin, `/t/courses/${tree.courseId}`, { method: "DELETE" }))).toEqual({ status: 409, error: "course_has_group_enrollments" });
    const [course] = await db().select().from(schema.courses).where(eq(schema.courses.id, tree.courseId));
    expect(course!.deletedAt).toBeNull();
    expect((await as(admin, `/t/courses/${tree.courseId}/group-enrollments/${group.id}`, { method: "DELETE" })).status).toBe(200);
    expect((await as(admin, `/t/courses/${tree.courseId}`, { method: "DELETE" })).status).toBe(204);
  });

  it("a student enrolled through the group cannot be removed directly: 409 enrollment_managed_by_group", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id);
    const group = await createGroup(school.id);
    const student = await createUser(school.id, { role: "student" });
    await addMember(group, student.id);
    expect((await linkGroup(admin, tree.courseId, group.id)).status).toBe(201);
    const res = await as(admin, `/t/courses/${tree.courseId}/enrollments/${student.id}`, { method: "DELETE" });
    expect(failure(res)).toEqual({ status: 409, error: "enrollment_managed_by_group" });
    expect(await enrollmentOf(tree.courseId, student.id)).toMatchObject({ removedAt: null });
    expect(await sourceKeys(tree.courseId, student.id)).toEqual([`group:${group.id}`]);
  });
});
