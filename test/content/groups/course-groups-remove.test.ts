import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";
import { insertCourseTree, insertEnrollment } from "../../helpers/courses";
import { createUser, db } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { addMember, createGroup, curatorWith, schoolWithAdmin, signedIn, unknownId } from "../../helpers/users";
import { insertCompletion, unenroll } from "../enrollments/helpers";
import { enrollmentOf, linkGroup, linkRows, sourceKeys, unlinkGroup } from "./course-groups-helpers";

describe("DELETE /t/courses/:id/group-enrollments/:group_id", () => {
  it("a student in two enrolled groups keeps access when one link goes and loses it when both have", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id);
    const morning = await createGroup(school.id);
    const evening = await createGroup(school.id);
    const both = await createUser(school.id, { role: "student" });
    const onlyMorning = await createUser(school.id, { role: "student" });
    await addMember(morning, both.id);
    await addMember(evening, both.id);
    await addMember(morning, onlyMorning.id);
    expect((await linkGroup(admin, tree.courseId, morning.id)).body.data).toMatchObject({ enrolled_count: 2, already_enrolled_count: 0 });
    expect((await linkGroup(admin, tree.courseId, evening.id)).body.data).toMatchObject({ enrolled_count: 0, already_enrolled_count: 1 });

    const first = await unlinkGroup(admin, tree.courseId, morning.id);
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual({ removed_count: 1, retained_count: 1 });
    expect(await enrollmentOf(tree.courseId, both.id)).toMatchObject({ removedAt: null });
    expect(await sourceKeys(tree.courseId, both.id)).toEqual([`group:${evening.id}`]);
    expect(await enrollmentOf(tree.courseId, onlyMorning.id)).toMatchObject({ removedAt: expect.any(Number) });
    expect(await sourceKeys(tree.courseId, onlyMorning.id)).toEqual([]);

    const second = await unlinkGroup(admin, tree.courseId, evening.id);
    expect(second.body.data).toEqual({ removed_count: 1, retained_count: 0 });
    expect(await enrollmentOf(tree.courseId, both.id)).toMatchObject({ removedAt: expect.any(Number) });
    expect(await linkRows(tree.courseId)).toEqual([]);
  });

  it("a direct source keeps the student enrolled; removing it afterwards closes the enrollment", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id);
    const group = await createGroup(school.id);
    const student = await createUser(school.id, { role: "student" });
    await addMember(group, student.id);
    await insertEnrollment(school.id, tree.courseId, student.id);
    expect((await linkGroup(admin, tree.courseId, group.id)).body.data).toMatchObject({ enrolled_count: 0, already_enrolled_count: 1 });

    expect((await unlinkGroup(admin, tree.courseId, group.id)).body.data).toEqual({ removed_count: 0, retained_count: 1 });
    expect(await sourceKeys(tree.courseId, student.id)).toEqual(["direct"]);
    expect(await enrollmentOf(tree.courseId, student.id)).toMatchObject({ removedAt: null });
    // Direct removal is allowed again now that no group holds the enrollment.
    expect((await unenroll(admin, tree.courseId, student.id)).status).toBe(204);
    expect(await enrollmentOf(tree.courseId, student.id)).toMatchObject({ removedAt: expect.any(Number) });
  });

  it("progress stays on the closed enrollment and comes back when the group is enrolled again", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id, { shape: [1, 1, 3] });
    const group = await createGroup(school.id);
    const student = await createUser(school.id, { role: "student" });
    await addMember(group, student.id);
    expect((await linkGroup(admin, tree.courseId, group.id)).status).toBe(201);
    const enrollment = (await enrollmentOf(tree.courseId, student.id))!;
    const lesson = tree.modules[0]!.lessons[0]!;
    await insertCompletion({ tenantId: school.id, courseId: tree.courseId, lessonId: lesson.id, blockId: lesson.blocks[0]!, studentId: student.id, enrollmentId: enrollment.id });
    await db().update(schema.enrollments).set({ blocksCompleted: 1 }).where(eq(schema.enrollments.id, enrollment.id));

    expect((await unlinkGroup(admin, tree.courseId, group.id)).body.data).toEqual({ removed_count: 1, retained_count: 0 });
    expect(await enrollmentOf(tree.courseId, student.id)).toMatchObject({ id: enrollment.id, removedAt: expect.any(Number), blocksCompleted: 1, totalBlocks: 3 });

    const again = await linkGroup(admin, tree.courseId, group.id);
    expect(again.status).toBe(201);
    expect(again.body.data).toMatchObject({ enrolled_count: 1, already_enrolled_count: 0 });
    expect(await enrollmentOf(tree.courseId, student.id)).toMatchObject({ id: enrollment.id, removedAt: null, blocksCompleted: 1, totalBlocks: 3 });
    const completions = await db().select().from(schema.blockCompletions).where(eq(schema.blockCompletions.studentId, student.id));
    expect(completions).toHaveLength(1);
  });

  it("other courses of the group keep their links and sources", async () => {
    const { school, admin } = await schoolWithAdmin();
    const algebra = await insertCourseTree(school.id);
    const biology = await insertCourseTree(school.id);
    const group = await createGroup(school.id);
    const student = await createUser(school.id, { role: "student" });
    await addMember(group, student.id);
    await linkGroup(admin, algebra.courseId, group.id);
    await linkGroup(admin, biology.courseId, group.id);
    expect((await unlinkGroup(admin, algebra.courseId, group.id)).body.data).toEqual({ removed_count: 1, retained_count: 0 });
    expect(await sourceKeys(biology.courseId, student.id)).toEqual([`group:${group.id}`]);
    expect(await enrollmentOf(biology.courseId, student.id)).toMatchObject({ removedAt: null });
    expect(await linkRows(biology.courseId)).toHaveLength(1);
  });

  it("400 invalid_group_id for a malformed group id, 400 invalid_course_id for a malformed course id", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id);
    const group = await createGroup(school.id);
    expect(failure(await unlinkGroup(admin, tree.courseId, "not-a-uuid"))).toEqual({ status: 400, error: "invalid_group_id" });
    expect(failure(await unlinkGroup(admin, "not-a-uuid", group.id))).toEqual({ status: 400, error: "invalid_course_id" });
  });

  it("404 course_group_enrollment_not_found when the group is not enrolled, or the course or group is another school's", async () => {
    const { school, admin } = await schoolWithAdmin();
    const other = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id);
    const group = await createGroup(school.id);
    const foreignTree = await insertCourseTree(other.school.id);
    const foreignGroup = await createGroup(other.school.id);
    expect((await linkGroup(other.admin, foreignTree.courseId, foreignGroup.id)).status).toBe(201);
    for (const [courseId, groupId] of [
      [tree.courseId, group.id],
      [tree.courseId, unknownId()],
      [foreignTree.courseId, foreignGroup.id],
    ] as const) {
      expect(failure(await unlinkGroup(admin, courseId, groupId))).toEqual({ status: 404, error: "course_group_enrollment_not_found" });
    }
    expect(await linkRows(foreignTree.courseId)).toHaveLength(1);
    // Upper-case spelling names the same link.
    expect((await unlinkGroup(other.admin, foreignTree.courseId, foreignGroup.id.toUpperCase())).status).toBe(200);
    expect(failure(await unlinkGroup(other.admin, foreignTree.courseId, foreignGroup.id))).toEqual({ status: 404, error: "course_group_enrollment_not_found" });
  });

  it("403 permission_denied to a curator without manage_groups; nothing changes", async () => {
    const { school, admin } = await schoolWithAdmin();
    const curator = await signedIn(school, curatorWith({ can_manage_students: true, can_manage_courses: true }));
    const tree = await insertCourseTree(school.id);
    const group = await createGroup(school.id);
    await linkGroup(admin, tree.courseId, group.id);
    expect(failure(await unlinkGroup(curator, tree.courseId, group.id))).toEqual({ status: 403, error: "permission_denied" });
    expect(await linkRows(tree.courseId)).toHaveLength(1);
  });
});
