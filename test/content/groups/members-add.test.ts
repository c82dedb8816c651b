import { describe, expect, it } from "vitest";
import { insertCourseTree, insertEnrollment } from "../../helpers/courses";
import { createSchool, createUser } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { addMember, as, createGroup, curatorWith, schoolWithAdmin, signedIn, unknownId } from "../../helpers/users";
import { insertCompletion } from "../enrollments/helpers";
import { addMembers, enrollmentOf, linkGroup, membershipsOf, sourceKeys } from "./members-helpers";

describe("POST /t/groups/:id/members", () => {
  it("adds live students of the school; skips members, unknown ids, staff and other schools' users, in request order without repeats", async () => {
    const { school, admin } = await schoolWithAdmin();
    const group = await createGroup(school.id);
    const fresh = await createUser(school.id, { role: "student" });
    const inactive = await createUser(school.id, { role: "student", isActive: false });
    const member = await createUser(school.id, { role: "student" });
    await addMember(group, member.id);
    const curator = await createUser(school.id, { role: "curator" });
    const superadmin = await createUser(null);
    const foreign = await createUser((await createSchool()).id, { role: "student" });
    const missing = unknownId();

    const res = await addMembers(admin, group.id, [fresh.id.toUpperCase(), member.id, missing, curator.id, admin.id, fresh.id, foreign.id, superadmin.id, inactive.id]);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      added: [fresh.id, inactive.id],
      skipped: [
        { student_id: member.id, reason: "already_member" },
        { student_id: missing, reason: "user_not_found" },
        { student_id: curator.id, reason: "user_not_found" },
        { student_id: admin.id, reason: "user_not_found" },
        { student_id: foreign.id, reason: "wrong_tenant" },
        { student_id: superadmin.id, reason: "user_not_found" },
      ],
    });
    expect(await membershipsOf(group.id)).toEqual([fresh.id, inactive.id, member.id].sort());
    // A repeat adds nobody.
    expect((await addMembers(admin, group.id, [fresh.id])).body.data).toEqual({ added: [], skipped: [{ student_id: fresh.id, reason: "already_member" }] });
  });

  it("gives new members the group's source on every course the group is enrolled in, with their progress", async () => {
    const { school, admin } = await schoolWithAdmin();
    const group = await createGroup(school.id);
    const first = await insertCourseTree(school.id, { shape: [1, 1, 2] });
    const second = await insertCourseTree(school.id, { shape: [1, 1, 3] });
    const unlinked = await insertCourseTree(school.id);
    await linkGroup(school.id, group.id, first.courseId);
    await linkGroup(school.id, group.id, second.courseId);
    const student = await createUser(school.id, { role: "student" });
    const direct = await createUser(school.id, { role: "student" });
    const enrollmentId = await insertEnrollment(school.id, first.courseId, direct.id);
    await insertCompletion({ tenantId: school.id, courseId: first.courseId, lessonId: first.lessonIds[0]!, blockId: first.blockIds[0]!, studentId: direct.id, enrollmentId });

    expect((await addMembers(admin, group.id, [student.id, direct.id])).body.data.added).toEqual([student.id, direct.id]);
    expect(await sourceKeys(first.courseId, student.id)).toEqual([`group:${group.id}`]);
    expect(await sourceKeys(second.courseId, student.id)).toEqual([`group:${group.id}`]);
    expect(await sourceKeys(unlinked.courseId, student.id)).toEqual([]);
    expect(await sourceKeys(first.courseId, direct.id)).toEqual(["direct", `group:${group.id}`]);
    expect(await enrollmentOf(second.courseId, student.id)).toMatchObject({ removedAt: null, enrolledBy: admin.id, blocksCompleted: 0, totalBlocks: 3 });
    expect(await enrollmentOf(first.courseId, direct.id)).toMatchObject({ id: enrollmentId, removedAt: null, blocksCompleted: 1, totalBlocks: 2 });
    expect(await enrollmentOf(unlinked.courseId, student.id)).toBeUndefined();
  });

  it("400 empty_member_list and too_many_members before any id is read; 400 invalid_request_body for a malformed id or body", async () => {
    const { school, admin } = await schoolWithAdmin();
    const group = await createGroup(school.id);
    expect(failure(await addMembers(admin, group.id, []))).toEqual({ status: 400, error: "empty_member_list" });
    const tooMany = Array.from({ length: 501 }, (_, i) => (i === 0 ? "not-a-uuid" : unknownId()));
    expect(failure(await addMembers(admin, group.id, tooMany))).toEqual({ status: 400, error: "too_many_members" });
    // 500 is the limit, not over it.
    expect((await addMembers(admin, group.id, tooMany.slice(1))).status).toBe(200);
    expect(failure(await addMembers(admin, group.id, [unknownId(), "not-a-uuid"]))).toEqual({ status: 400, error: "invalid_request_body" });
    expect(failure(await addMembers(admin, group.id, "nope"))).toEqual({ status: 400, error: "invalid_request_body" });
    expect(failure(await as(admin, `/t/groups/${group.id}/members`, { method: "POST", body: {} }))).toEqual({ status: 400, error: "invalid_request_body" });
    expect(await membershipsOf(group.id)).toEqual([]);
  });

  it("400 cross_tenant_student when every listed id is a user of another school; a mix is a partial success", async () => {
    const { school, admin } = await schoolWithAdmin();
    const group = await createGroup(school.id);
    const other = await createSchool();
    const foreignStudent = await createUser(other.id, { role: "student" });
    const foreignAdmin = await createUser(other.id, { role: "admin" });
    expect(failure(await addMembers(admin, group.id, [foreignStudent.id, foreignAdmin.id]))).toEqual({ status: 400, error: "cross_tenant_student" });
    const mixed = await addMembers(admin, group.id, [foreignStudent.id, unknownId()]);
    expect(mixed.status).toBe(200);
    expect(mixed.body.data.skipped.map((s: { reason: string }) => s.reason)).toEqual(["wrong_tenant", "user_not_found"]);
  });

  it("404 group_not_found for an unknown, deleted or foreign group, and nothing is written", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await createUser(school.id, { role: "student" });
    const deleted = await createGroup(school.id, { deleted: true });
    const foreign = await createGroup((await createSchool()).id);
    for (const id of [unknownId(), deleted.id, foreign.id]) {
      expect(failure(await addMembers(admin, id, [student.id]))).toEqual({ status: 404, error: "group_not_found" });
    }
    expect(await membershipsOf(deleted.id)).toEqual([]);
    expect(await membershipsOf(foreign.id)).toEqual([]);
  });

  it("needs can_manage_groups: 403 permission_denied for curators without it and for students", async () => {
    const { school } = await schoolWithAdmin();
    const group = await createGroup(school.id);
    const student = await signedIn(school, { role: "student" });
    const restricted = await signedIn(school, curatorWith({ can_manage_students: true }));
    for (const caller of [student, restricted]) {
      expect(failure(await addMembers(caller, group.id, [student.id]))).toEqual({ status: 403, error: "permission_denied" });
    }
    const manager = await signedIn(school, curatorWith({ can_manage_groups: true }));
    expect((await addMembers(manager, group.id, [student.id])).body.data.added).toEqual([student.id]);
  });
});
