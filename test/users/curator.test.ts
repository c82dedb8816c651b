import { describe, expect, it } from "vitest";
import { createSchool, createUser } from "../helpers/factories";
import { as, curatorWith, schoolWithAdmin, signedIn, unknownId, userRow } from "../helpers/users";

describe("PUT /t/users/:id/curator", () => {
  it("assigns and clears a student's individual curator and answers the user with the curator fields", async () => {
    const { school, admin } = await schoolWithAdmin();
    const curator = await createUser(school.id, { role: "curator", firstName: "Malika" });
    const student = await createUser(school.id, { role: "student" });
    const res = await as(admin, `/t/users/${student.id}/curator`, { method: "PUT", body: { curator_id: curator.id } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: {
        id: student.id,
        tenant_id: school.id,
        email: student.email,
        first_name: "Test",
        last_name: "User",
        avatar: null,
        role: "student",
        is_active: true,
        last_active_at: null,
        created_at: new Date(student.createdAt).toISOString(),
        updated_at: expect.any(String),
        group_count: 0,
        groups: [],
        individual_curator_id: curator.id,
        individual_curator_first_name: "Malika",
        individual_curator_last_name: "User",
        individual_curator_email: curator.email,
      },
    });
    const cleared = await as(admin, `/t/users/${student.id}/curator`, { method: "PUT", body: { curator_id: null } });
    expect(cleared.status).toBe(200);
    expect(cleared.body.data).toMatchObject({ individual_curator_id: null, individual_curator_email: null });
    expect((await userRow(student.id))!.individualCuratorId).toBeNull();
  });

  it("lets a curator with manage_groups assign, and answers 403 `permission_denied` without it", async () => {
    const school = await createSchool();
    const curator = await createUser(school.id, { role: "curator" });
    const student = await createUser(school.id, { role: "student" });
    const manager = await signedIn(school, curatorWith({ can_manage_groups: true }));
    expect((await as(manager, `/t/users/${student.id}/curator`, { method: "PUT", body: { curator_id: curator.id } })).status).toBe(200);
    for (const options of [curatorWith({ can_manage_students: true }), { role: "student" as const }]) {
      const caller = await signedIn(school, options);
      const res = await as(caller, `/t/users/${student.id}/curator`, { method: "PUT", body: { curator_id: null } });
      expect(res.status).toBe(403);
      expect(res.body.error).toBe("permission_denied");
    }
  });

  it("answers 400 `curator_not_eligible` for a deleted curator, a non-curator or another school's curator", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await createUser(school.id, { role: "student" });
    const deleted = await createUser(school.id, { role: "curator" });
    await as(admin, `/t/users/${deleted.id}`, { method: "DELETE" });
    const otherStudent = await createUser(school.id, { role: "student" });
    const foreignCurator = await createUser((await createSchool()).id, { role: "curator" });
    for (const curatorId of [deleted.id, otherStudent.id, admin.id, foreignCurator.id, unknownId()]) {
      const res = await as(admin, `/t/users/${student.id}/curator`, { method: "PUT", body: { curator_id: curatorId } });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe("curator_not_eligible");
    }
    expect((await userRow(student.id))!.individualCuratorId).toBeNull();
  });

  it("answers 404 `user_not_found` for another school's student, a non-student and an unknown id", async () => {
    const { school, admin } = await schoolWithAdmin();
    const curator = await createUser(school.id, { role: "curator" });
    const foreign = await createUser((await createSchool()).id, { role: "student" });
    for (const id of [foreign.id, curator.id, unknownId()]) {
      const res = await as(admin, `/t/users/${id}/curator`, { method: "PUT", body: { curator_id: curator.id } });
      expect(res.status).toBe(404);
      expect(res.body.error).toBe("user_not_found");
    }
    expect((await userRow(foreign.id))!.individualCuratorId).toBeNull();
  });

  it("answers 400 `invalid_id_format` for a bad path id and `invalid_request_body` for a bad body", async () => {
    const { school, admin } = await schoolWithAdmin();
    const student = await createUser(school.id, { role: "student" });
    const badId = await as(admin, "/t/users/abc/curator", { method: "PUT", body: { curator_id: null } });
    expect(badId.status).toBe(400);
    expect(badId.body.error).toBe("invalid_id_format");
    for (const body of [{}, { curator_id: "abc" }, { curator_id: 5 }]) {
      const res = await as(admin, `/t/users/${student.id}/curator`, { method: "PUT", body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe("invalid_request_body");
    }
  });
});
