import { describe, expect, it } from "vitest";
import { insertCourseTree, insertEnrollment } from "../../helpers/courses";
import { createSchool, createUser } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { as, createGroup, curatorWith, schoolWithAdmin, signedIn, unknownId } from "../../helpers/users";
import { insertCompletion } from "../enrollments/helpers";
import { addMembers, enrollmentOf, linkGroup, membershipsOf, removeMembers, sourceKeys } from "./members-helpers";

describe("DELETE /t/groups/:id/members", () => {
  it("removes the memberships and only this group's sources; an enrollment without a source left closes", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id);
    const other = await insertCourseTree(school.id);
    const first = await createGroup(school.id);
    const second = await createGroup(school.id);
    await linkGroup(school.id, first.id, tree.courseId);
    await linkGroup(school.id, first.id, other.courseId);
    await linkGroup(school.id, second.id, tree.courseId);
    const twice = await createUser(school.id, { role: "student" });
    const stays = await createUser(school.id, { role: "student" });
    await addMembers(admin, first.id, [twice.id, stays.id]);
    await addMembers(admin, second.id, [twice.id]);
    expect(await sourceKeys(tree.courseId, twice.id)).toEqual([`group:${first.id}`, `group:${second.id}`].sort());

    const res = await removeMembers(admin, first.id, [twice.id]);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ removed: true });
    expect(await membershipsOf(first.id)).toEqual([stays.id]);
    // Still in the second group: access to the shared course stays; the first group's other course goes.
    expect(await sourceKeys(tree.courseId, twice.id)).toEqual([`group:${second.id}`]);
    expect(await enrollmentOf(tree.courseId, twice.id)).toMatchObject({ removedAt: null });
    expect(await sourceKeys(other.courseId, twice.id)).toEqual([]);
    expect((await enrollmentOf(other.courseId, twice.id))!.removedAt).toEqual(expect.any(Number));
    // The member who stayed keeps everything.
    expect(await sourceKeys(other.courseId, stays.id)).toEqual([`group:${first.id}`]);

    expect((await removeMembers(admin, second.id, [twice.id])).status).toBe(200);
    expect(await sourceKeys(tree.courseId, twice.id)).toEqual([]);
    expect((await enrollmentOf(tree.courseId, twice.id))!.removedAt).toEqual(expect.any(Number));
  });

  it("a direct source keeps the enrollment active after the group removal", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id);
    const group = await createGroup(school.id);
    await linkGroup(school.id, group.id, tree.courseId);
    const student = await createUser(school.id, { role: "student" });
    const enrollmentId = await insertEnrollment(school.id, tree.courseId, student.id);
    await addMembers(admin, group.id, [student.id]);
    expect(await sourceKeys(tree.courseId, student.id)).toEqual(["direct", `group:${group.id}`]);
    expect((await removeMembers(admin, group.id, [student.id])).status).toBe(200);
    expect(await sourceKeys(tree.courseId, student.id)).toEqual(["direct"]);
    expect(await enrollmentOf(tree.courseId, student.id)).toMatchObject({ id: enrollmentId, removedAt: null });
  });

  it("progress stays on the closed enrollment and is back when the student is added again", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id, { shape: [1, 1, 3] });
    const group = await createGroup(school.id);
    await linkGroup(school.id, group.id, tree.courseId);
    const student = await createUser(school.id, { role: "student" });
    await addMembers(admin, group.id, [student.id]);
    const enrollment = (await enrollmentOf(tree.courseId, student.id))!;
    for (const blockId of tree.blockIds.slice(0, 2)) {
      await insertCompletion({ tenantId: school.id, courseId: tree.courseId, lessonId: tree.lessonIds[0]!, blockId, studentId: student.id, enrollmentId: enrollment.id });
    }
    await removeMembers(admin, group.id, [student.id]);
    expect(await enrollmentOf(tree.courseId, student.id)).toMatchObject({ id: enrollment.id, removedAt: expect.any(Number) });

    expect((await addMembers(admin, group.id, [student.id])).body.data.added).toEqual([student.id]);
    expect(await enrollmentOf(tree.courseId, student.id)).toMatchObject({ id: enrollment.id, removedAt: null, blocksCompleted: 2, totalBlocks: 3 });
    expect(await sourceKeys(tree.courseId, student.id)).toEqual([`group:${group.id}`]);
  });

  it("404 member_not_found when any listed id is not a member, and nothing is removed", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id);
    const group = await createGroup(school.id);
    await linkGroup(school.id, group.id, tree.courseId);
    const member = await createUser(school.id, { role: "student" });
    const outsider = await createUser(school.id, { role: "student" });
    await addMembers(admin, group.id, [member.id]);
    for (const ids of [[member.id, outsider.id], [member.id, unknownId()], [outsider.id]]) {
      expect(failure(await removeMembers(admin, group.id, ids))).toEqual({ status: 404, error: "member_not_found" });
    }
    expect(await membershipsOf(group.id)).toEqual([member.id]);
    expect(await sourceKeys(tree.courseId, member.id)).toEqual([`group:${group.id}`]);
    // A repeated id is one member.
    expect((await removeMembers(admin, group.id, [member.id, member.id.toUpperCase()])).status).toBe(200);
    expect(await membershipsOf(group.id)).toEqual([]);
    expect(failure(await removeMembers(admin, group.id, [member.id]))).toEqual({ status: 404, error: "member_not_found" });
  });

  it("400 empty_member_list and too_many_members first; 400 invalid_request_body for a malformed id or body", async () => {
    const { school, admin } = await schoolWithAdmin();
    const group = await createGroup(school.id);
    expect(failure(await removeMembers(admin, group.id, []))).toEqual({ status: 400, error: "empty_member_list" });
    const tooMany = Array.from({ length: 501 }, (_, i) => (i === 0 ? "x" : unknownId()));
    expect(failure(await removeMembers(admin, group.id, tooMany))).toEqual({ status: 400, error: "too_many_members" });
    expect(failure(await removeMembers(admin, group.id, ["x"]))).toEqual({ status: 400, error: "invalid_request_body" });
    expect(failure(await as(admin, `/t/groups/${group.id}/members`, { method: "DELETE", body: { student_ids: 5 } }))).toEqual({ status: 400, error: "invalid_request_body" });
  });

  it("404 group_not_found for an unknown, deleted or foreign group; 403 permission_denied without can_manage_groups", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await createUser(school.id, { role: "student" });
    const deleted = await createGroup(school.id, { deleted: true });
    const foreign = await createGroup((await createSchool()).id);
    for (const id of [unknownId(), deleted.id, foreign.id]) {
      expect(failure(await removeMembers(admin, id, [student.id]))).toEqual({ status: 404, error: "group_not_found" });
    }
    const group = await createGroup(school.id);
    await addMembers(admin, group.id, [student.id]);
    const restricted = await signedIn(school, curatorWith({}));
    expect(failure(await removeMembers(restricted, group.id, [student.id]))).toEqual({ status: 403, error: "permission_denied" });
    expect(await membershipsOf(group.id)).toEqual([student.id]);
  });
});
