import { describe, expect, it } from "vitest";
import { insertCourseTree, insertEnrollment } from "../../helpers/courses";
import { createSchool, createUser } from "../../helpers/factories";
import { failure } from "../../helpers/http";
import { addGroupCurator, addMember, createGroup, curatorWith, schoolWithAdmin, signedIn, unknownId } from "../../helpers/users";
import { addPushDevice, outboxRows } from "../../notifications/helpers";
import { enrollBulk, enrollmentOf, linkGroup, linkRows, sourceKeys } from "./course-groups-helpers";

describe("POST /t/courses/:id/enroll-bulk", () => {
  it("with group_id: answers as POST group-enrollments (201 for a new link, 200 after), #55 once", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id);
    const group = await createGroup(school.id);
    const curator = await createUser(school.id, { role: "curator" });
    await addPushDevice(school.id, curator.id);
    await addGroupCurator(group, curator.id);
    const student = await createUser(school.id, { role: "student" });
    await addMember(group, student.id);

    const first = await enrollBulk(admin, tree.courseId, { group_id: group.id });
    expect(first.status).toBe(201);
    expect(first.body.data).toMatchObject({ group_enrollment: { group_id: group.id, member_count: 1, enrolled_students_count: 1 }, enrolled_count: 1, already_enrolled_count: 0 });
    expect(await sourceKeys(tree.courseId, student.id)).toEqual([`group:${group.id}`]);
    const again = await enrollBulk(admin, tree.courseId, { group_id: group.id });
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual({ ...first.body.data, enrolled_count: 0, already_enrolled_count: 1 });
    // The same link as the group-enrollments endpoint: it answers 200 too.
    expect((await linkGroup(admin, tree.courseId, group.id)).status).toBe(200);
    expect(await linkRows(tree.courseId)).toHaveLength(1);
    expect((await outboxRows(school.id)).filter((row) => row.eventCode === "group.course_enrolled").map((row) => row.userId)).toEqual([curator.id]);
  });

  it("with group_id: 404 course_not_found for a draft course, 404 group_not_found for a foreign group", async () => {
    const { school, admin } = await schoolWithAdmin();
    const other = await createSchool();
    const draft = await insertCourseTree(school.id, { status: "draft" });
    const tree = await insertCourseTree(school.id);
    const group = await createGroup(school.id);
    expect(failure(await enrollBulk(admin, draft.courseId, { group_id: group.id }))).toEqual({ status: 404, error: "course_not_found" });
    expect(failure(await enrollBulk(admin, tree.courseId, { group_id: (await createGroup(other.id)).id }))).toEqual({ status: 404, error: "group_not_found" });
    expect(failure(await enrollBulk(admin, unknownId(), { student_ids: [unknownId()] }))).toEqual({ status: 404, error: "course_not_found" });
  });

  it("with student_ids: answers as POST enroll/bulk (always 200, enrolled and skipped with reasons)", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id);
    const fresh = await createUser(school.id, { role: "student" });
    const already = await createUser(school.id, { role: "student" });
    await insertEnrollment(school.id, tree.courseId, already.id);
    const missing = unknownId();
    const res = await enrollBulk(admin, tree.courseId, { student_ids: [fresh.id, already.id, missing] });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      enrolled: [fresh.id],
      skipped: [
        { student_id: already.id, reason: "already_enrolled" },
        { student_id: missing, reason: "user_not_found" },
      ],
      enrolled_count: 1,
      skipped_count: 2,
    });
    expect(await sourceKeys(tree.courseId, fresh.id)).toEqual(["direct"]);
    expect(await enrollmentOf(tree.courseId, fresh.id)).toMatchObject({ removedAt: null, enrolledBy: admin.id });
    // A draft course skips everyone, as enroll/bulk does.
    const draft = await insertCourseTree(school.id, { status: "draft" });
    const skipped = await enrollBulk(admin, draft.courseId, { student_ids: [fresh.id] });
    expect(skipped.body.data).toMatchObject({ enrolled_count: 0, skipped: [{ student_id: fresh.id, reason: "course_not_published" }] });
  });

  it("with student_ids: the cap and the ids are checked as in enroll/bulk", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id);
    const ids = Array.from({ length: 501 }, () => unknownId());
    expect(failure(await enrollBulk(admin, tree.courseId, { student_ids: ids }))).toEqual({ status: 400, error: "student_ids_cap_exceeded" });
    expect(failure(await enrollBulk(admin, tree.courseId, { student_ids: ["nope"] }))).toEqual({ status: 400, error: "invalid_body" });
    expect(failure(await enrollBulk(admin, tree.courseId, { student_ids: [] }))).toEqual({ status: 400, error: "invalid_body" });
  });

  it("400 invalid_body for both, neither, a malformed group_id or an unknown key", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id);
    const group = await createGroup(school.id);
    const student = await createUser(school.id, { role: "student" });
    for (const body of [{}, { group_id: group.id, student_ids: [student.id] }, { group_id: "nope" }, { group_id: group.id, extra: 1 }, [], null]) {
      expect(failure(await enrollBulk(admin, tree.courseId, body))).toEqual({ status: 400, error: "invalid_body" });
    }
    expect(await linkRows(tree.courseId)).toEqual([]);
    expect(await enrollmentOf(tree.courseId, student.id)).toBeUndefined();
    expect(failure(await enrollBulk(admin, "not-a-uuid", { group_id: group.id }))).toEqual({ status: 400, error: "invalid_course_id" });
  });

  it("403 permission_denied to a curator with manage_students but not manage_groups", async () => {
    const { school } = await schoolWithAdmin();
    const curator = await signedIn(school, curatorWith({ can_manage_students: true }));
    const tree = await insertCourseTree(school.id);
    expect(failure(await enrollBulk(curator, tree.courseId, { student_ids: [unknownId()] }))).toEqual({ status: 403, error: "permission_denied" });
  });
});
