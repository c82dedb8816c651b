import { describe, expect, it } from "vitest";
import { insertCourseTree } from "../helpers/courses";
import { createUser } from "../helpers/factories";
import { failure } from "../helpers/http";
import { addMember, as, createGroup, curatorWith, schoolWithAdmin, signedIn } from "../helpers/users";
import { auditRows, byCall } from "./content-helpers";

describe("audit entries of group membership changes", () => {
  it("adding: one entry on the group with the students it added, in request order; skipped ids are not in it", async () => {
    const { school, admin } = await schoolWithAdmin();
    const group = await createGroup(school.id);
    await insertCourseTree(school.id);
    const [a, b, c] = [
      await createUser(school.id, { role: "student" }),
      await createUser(school.id, { role: "student" }),
      await createUser(school.id, { role: "student" }),
    ];
    await addMember(group, b.id);
    const staff = await createUser(school.id, { role: "curator" });
    const res = await as(admin, `/t/groups/${group.id}/members`, { body: { student_ids: [c.id, b.id, staff.id, a.id] } });
    expect(res.body.data.added).toEqual([c.id, a.id]);
    expect(await auditRows(school.id)).toEqual([
      {
        ...(await byCall(admin, res)),
        action: "group.member_added",
        target_type: "group",
        target_id: group.id,
        summary: "2 added to the group",
        changes: { student_ids: [null, [c.id, a.id]] },
      },
    ]);
    // Repeated: everyone is a member already, nothing written.
    expect((await as(admin, `/t/groups/${group.id}/members`, { body: { student_ids: [c.id, a.id] } })).body.data.added).toEqual([]);
    expect(await auditRows(school.id)).toHaveLength(1);
  });

  it("removing: one entry with the removed students; all-or-nothing refusals write nothing", async () => {
    const { school, admin } = await schoolWithAdmin();
    const group = await createGroup(school.id);
    const [a, b, c] = [
      await createUser(school.id, { role: "student" }),
      await createUser(school.id, { role: "student" }),
      await createUser(school.id, { role: "student" }),
    ];
    await addMember(group, a.id);
    await addMember(group, b.id);
    const path = `/t/groups/${group.id}/members`;
    expect(failure(await as(admin, path, { method: "DELETE", body: { student_ids: [a.id, c.id] } }))).toEqual({ status: 404, error: "member_not_found" });
    expect(await auditRows(school.id)).toEqual([]);
    const res = await as(admin, path, { method: "DELETE", body: { student_ids: [b.id, a.id.toUpperCase(), b.id] } });
    expect(res.status).toBe(200);
    expect(await auditRows(school.id)).toEqual([
      {
        ...(await byCall(admin, res)),
        action: "group.member_removed",
        target_type: "group",
        target_id: group.id,
        summary: "2 removed from the group",
        changes: { student_ids: [[b.id, a.id], null] },
      },
    ]);
    expect(failure(await as(admin, path, { method: "DELETE", body: { student_ids: [a.id] } }))).toEqual({ status: 404, error: "member_not_found" });
    expect(await auditRows(school.id)).toHaveLength(1);
  });

  it("refused requests write nothing: no permission, another school's group, validation, only foreign students", async () => {
    const { school, admin } = await schoolWithAdmin();
    const other = await schoolWithAdmin();
    const group = await createGroup(school.id);
    const student = await createUser(school.id, { role: "student" });
    const foreign = await createUser(other.school.id, { role: "student" });
    const viewer = await signedIn(school, curatorWith({ can_manage_groups: false }));
    const path = `/t/groups/${group.id}/members`;
    expect((await as(viewer, path, { body: { student_ids: [student.id] } })).status).toBe(403);
    expect((await as(other.admin, path, { body: { student_ids: [student.id] } })).status).toBe(404);
    expect(failure(await as(admin, path, { body: { student_ids: [] } }))).toEqual({ status: 400, error: "empty_member_list" });
    expect(failure(await as(admin, path, { body: { student_ids: [foreign.id] } }))).toEqual({ status: 400, error: "cross_tenant_student" });
    expect((await as(viewer, path, { method: "DELETE", body: { student_ids: [student.id] } })).status).toBe(403);
    expect(await auditRows(school.id)).toEqual([]);
    expect(await auditRows(other.school.id)).toEqual([]);
  });
});

describe("audit entries of a group's deletion", () => {
  it("deleting a group with members records them removed; an empty group's deletion and a refused one write nothing", async () => {
    const { school, admin } = await schoolWithAdmin();
    const group = await createGroup(school.id);
    const empty = await createGroup(school.id);
    const [a, b] = [await createUser(school.id, { role: "student" }), await createUser(school.id, { role: "student" })];
    await addMember(group, b.id, 1_000);
    await addMember(group, a.id, 2_000);
    const tree = await insertCourseTree(school.id);
    const linked = await createGroup(school.id);
    await addMember(linked, a.id);
    expect((await as(admin, `/t/courses/${tree.courseId}/group-enrollments`, { body: { group_id: linked.id } })).status).toBe(201);
    expect(failure(await as(admin, `/t/groups/${linked.id}`, { method: "DELETE" }))).toEqual({ status: 409, error: "group_has_course_enrollments" });
    expect((await as(admin, `/t/groups/${empty.id}`, { method: "DELETE" })).status).toBe(200);
    const res = await as(admin, `/t/groups/${group.id}`, { method: "DELETE" });
    expect(res.status).toBe(200);
    expect((await as(admin, `/t/groups/${group.id}`, { method: "DELETE" })).status).toBe(404);
    expect(await auditRows(school.id)).toEqual([
      {
        ...(await byCall(admin, res)),
        action: "group.member_removed",
        target_type: "group",
        target_id: group.id,
        summary: "Group deleted: 2 removed from the group",
        changes: { student_ids: [[b.id, a.id], null] },
      },
    ]);
  });
});
