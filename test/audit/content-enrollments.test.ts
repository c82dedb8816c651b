import { describe, expect, it } from "vitest";
import { insertCourseTree, insertEnrollment, insertGroupSource } from "../helpers/courses";
import { createUser } from "../helpers/factories";
import { failure } from "../helpers/http";
import { addMember, as, createGroup, curatorWith, schoolWithAdmin, signedIn } from "../helpers/users";
import { auditRows, byCall } from "./content-helpers";

describe("audit entries of enrollment removals", () => {
  it("removing the only (direct) source closes the enrollment: sources and status before and after", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id);
    const student = await createUser(school.id, { role: "student" });
    const enrollmentId = await insertEnrollment(school.id, tree.courseId, student.id);
    const res = await as(admin, `/t/courses/${tree.courseId}/enrollments/${student.id}`, { method: "DELETE" });
    expect(res.status).toBe(204);
    expect(await auditRows(school.id)).toEqual([
      {
        ...(await byCall(admin, res)),
        action: "enrollment.removed",
        target_type: "enrollment",
        target_id: enrollmentId,
        summary: "Direct enrollment removed",
        changes: { sources: [["direct"], []], status: ["active", "removed"] },
      },
    ]);
    // Repeated: 404, nothing more.
    expect(failure(await as(admin, `/t/courses/${tree.courseId}/enrollments/${student.id}`, { method: "DELETE" }))).toEqual({
      status: 404,
      error: "enrollment_not_found",
    });
    expect(await auditRows(school.id)).toHaveLength(1);
  });

  it("a student who keeps group access: only the direct source goes, the status stays out of the changes", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id);
    const student = await createUser(school.id, { role: "student" });
    const group = await createGroup(school.id);
    const enrollmentId = await insertEnrollment(school.id, tree.courseId, student.id);
    await insertGroupSource(school.id, enrollmentId, tree.courseId, student.id, group.id);
    const path = `/t/courses/${tree.courseId}/enrollments/${student.id}`;
    expect((await as(admin, path, { method: "DELETE" })).status).toBe(204);
    expect((await auditRows(school.id)).map((row) => row.changes)).toEqual([{ sources: [["direct", `group:${group.id}`], [`group:${group.id}`]] }]);
    // Now group-managed: 409 and no entry.
    expect(failure(await as(admin, path, { method: "DELETE" }))).toEqual({ status: 409, error: "enrollment_managed_by_group" });
    expect(await auditRows(school.id)).toHaveLength(1);
  });

  it("refused removals write nothing: no permission, another school's course, not enrolled, a bad id", async () => {
    const { school, admin } = await schoolWithAdmin();
    const other = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id);
    const student = await createUser(school.id, { role: "student" });
    const stranger = await createUser(school.id, { role: "student" });
    await insertEnrollment(school.id, tree.courseId, student.id);
    const viewer = await signedIn(school, curatorWith({ can_manage_students: false }));
    const path = `/t/courses/${tree.courseId}/enrollments/${student.id}`;
    expect((await as(viewer, path, { method: "DELETE" })).status).toBe(403);
    expect(failure(await as(other.admin, path, { method: "DELETE" }))).toEqual({ status: 404, error: "enrollment_not_found" });
    expect(failure(await as(admin, `/t/courses/${tree.courseId}/enrollments/${stranger.id}`, { method: "DELETE" }))).toEqual({
      status: 404,
      error: "enrollment_not_found",
    });
    expect(failure(await as(admin, `/t/courses/${tree.courseId}/enrollments/nope`, { method: "DELETE" }))).toEqual({ status: 400, error: "invalid_student_id" });
    expect(await auditRows(school.id)).toEqual([]);
    expect(await auditRows(other.school.id)).toEqual([]);
  });
});

describe("audit entries of a group's course enrollment removed", () => {
  it("one entry on the group naming the course, with who lost and kept access; a repeat is 404 and writes nothing", async () => {
    const { school, admin } = await schoolWithAdmin();
    const tree = await insertCourseTree(school.id);
    const group = await createGroup(school.id);
    const [a, b] = [await createUser(school.id, { role: "student" }), await createUser(school.id, { role: "student" })];
    await addMember(group, a.id);
    await addMember(group, b.id);
    await insertEnrollment(school.id, tree.courseId, b.id);
    expect((await as(admin, `/t/courses/${tree.courseId}/group-enrollments`, { body: { group_id: group.id } })).status).toBe(201);
    const res = await as(admin, `/t/courses/${tree.courseId}/group-enrollments/${group.id}`, { method: "DELETE" });
    expect(res.body.data).toEqual({ removed_count: 1, retained_count: 1 });
    expect(await auditRows(school.id)).toEqual([
      {
        ...(await byCall(admin, res)),
        action: "group_enrollment.removed",
        target_type: "group",
        target_id: group.id,
        summary: "Group removed from the course: 1 lost access, 1 kept it",
        changes: { course_id: [tree.courseId, null] },
      },
    ]);
    expect(failure(await as(admin, `/t/courses/${tree.courseId}/group-enrollments/${group.id}`, { method: "DELETE" }))).toEqual({
      status: 404,
      error: "course_group_enrollment_not_found",
    });
    const other = await schoolWithAdmin();
    expect((await as(other.admin, `/t/courses/${tree.courseId}/group-enrollments/${group.id}`, { method: "DELETE" })).status).toBe(404);
    expect(await auditRows(school.id)).toHaveLength(1);
    expect(await auditRows(other.school.id)).toEqual([]);
  });
});
